/**
 * `ClaudeHooks`: Claude-style hooks in Interlock. Tool hooks become pipeline hooks; hooks that
 * answer allow, ask or deny become a policy (or an approver); agent-level hooks run as plain
 * functions with typed outcomes.
 */
export { outcomeOf, runAgentEvent } from "./AgentEvents.ts"
export { compile, compileMatcher, invoke, select, subjectOf } from "./ClaudeHook.ts"
export { approver, combine, decider, policy } from "./PolicyHooks.ts"
export { entriesOf, toInterlock } from "./ToolHooks.ts"
