/**
 * The callTool program, in the order DESIGN.md gives:
 * 1. tools filter; 2. pre-hooks (onion order); 3. policy on the final call, Ask -> Approvals;
 * 4. the transport under the call's deadline; 5. post-hooks (reverse) on any result, a failing
 * one withholds it; 6. on an error, failure hooks (reverse), where Recover ends the chain and a
 * failing failure hook returns the original error. Every result and error carries a Receipt.
 */
import { Cause, type Duration, Effect, Exit, Tracer } from "effect"
import type { ApprovalOutcome } from "./Approvals.ts"
import { checkInput } from "./CallInputCheck.ts"
import { type ClientState, hookContext } from "./internal/ClientState.ts"
import { type CallError, Denied, HookFailed, ProtocolError, Timeout, TransportError } from "./Errors.ts"
import { type ChainEnd, type ChainSpec, type Recorder, refusal, runChain, STOP } from "./HookChain.ts"
import type { HookContext } from "./HookContext.ts"
import { deny as policyDeny, type PolicyDecision } from "./PolicyDecision.ts"
import { type ApprovalRecord, type CallOutcome, type DetachedStep, type HookRun, makeReceipt, type PolicyRecord, type Receipt } from "./Receipt.ts"
import { isTimedOut, runWithin } from "./Supervisor.ts"
import { now, recordCall, recordDetached, startSpan } from "./Telemetry.ts"
import type { CallInput, CallOptions } from "./ToolCalls.ts"
import type { ToolCall } from "./ToolCall.ts"
import { ToolResult, WITHHELD_TEXT } from "./ToolResult.ts"
import { toMillis } from "./Millis.ts"

/** The mutable record of one call, frozen into a Receipt when the call ends. */
interface Trail {
  call: ToolCall
  readonly runs: Array<HookRun>
  policy: PolicyRecord | undefined
  approval: ApprovalRecord | undefined
  sent: boolean
  toolChanged: boolean | undefined
  /** Steps that missed their deadline and were left running (rare: undefined until one is). */
  detached: Array<DetachedStep> | undefined
}

const preSpec = (ctx: HookContext): ChainSpec<ToolCall> => ({
  event: "preToolCall",
  call: (run, call) => run(call, ctx),
  input: (call) => ({ event: "preToolCall", call }),
  apply: (call, verdict) => (verdict._tag === "Rewrite" ? verdict.call : verdict._tag === "Continue" ? call : STOP)
})

const postSpec = (call: ToolCall, ctx: HookContext): ChainSpec<ToolResult> => ({
  event: "postToolCall",
  call: (run, result) => run(call, result, ctx),
  input: () => POST_INPUT,
  apply: (result, verdict) => (verdict._tag === "Replace" ? verdict.result : result)
})

const failedSpec = (call: ToolCall, ctx: HookContext): ChainSpec<CallError> => ({
  event: "toolCallFailed",
  call: (run, error) => run(call, error, ctx),
  input: () => FAILED_INPUT,
  apply: (error, verdict) => (verdict._tag === "Recover" ? STOP : error)
})

const POST_INPUT = { event: "postToolCall" } as const
const FAILED_INPUT = { event: "toolCallFailed" } as const
const POLICY_FAILED = policyDeny("the policy did not decide in time")
const NO_FACTS = {}

const millisOf = (input: Duration.Input | undefined, fallback: number): number => {
  if (input === undefined) return fallback
  const millis = toMillis(input)
  return millis >= 0 ? millis : fallback
}

const receiptOf = (trail: Trail, outcome: CallOutcome): Receipt => {
  const fields = {
    callId: trail.call.callId,
    serverId: trail.call.serverId,
    name: trail.call.name,
    hooks: trail.runs,
    policy: trail.policy,
    approval: trail.approval,
    sent: trail.sent,
    outcome,
    toolChanged: trail.toolChanged
  }
  // The key is there only when set: a receipt with nothing detached looks as it always did.
  return makeReceipt(trail.detached === undefined ? fields : { ...fields, detached: trail.detached }, trail.call)
}

/** Records, when `detached`, that a step of the call was left running past its deadline. */
const markDetached = (trail: Trail, detached: boolean, step: DetachedStep): Effect.Effect<void> =>
  Effect.withFiber((fiber) => {
    if (!detached) return Effect.void
    if (trail.detached === undefined) trail.detached = [step]
    else trail.detached.push(step)
    recordDetached(fiber, { operation: "callTool", step })
    return Effect.void
  })

const withReceipt = (error: CallError, receipt: Receipt): CallError => {
  switch (error._tag) {
    case "Denied":
      return new Denied({ reason: error.reason, receipt })
    case "HookFailed":
      return new HookFailed({ hookId: error.hookId, event: error.event, kind: error.kind, receipt })
    case "Timeout":
      return new Timeout({ millis: error.millis, receipt })
    case "TransportError":
      return new TransportError({ serverId: error.serverId, detail: error.detail, receipt })
    case "ProtocolError":
      return new ProtocolError({ serverId: error.serverId, code: error.code, detail: error.detail, receipt })
  }
}

const decidePolicy = (
  client: ClientState,
  trail: Trail,
  call: ToolCall,
  ctx: HookContext
): PolicyDecision | Effect.Effect<PolicyDecision> => {
  const tool = client.transport.describeTool?.(call.serverId, call.name)
  const decision: Effect.Effect<PolicyDecision> = client.policy.decide(call, ctx, tool === undefined ? NO_FACTS : { tool })
  // A policy that answered at once (the built-ins do) costs no fiber and no timer.
  if (Exit.isExit(decision)) {
    const exit = decision as Exit.Exit<PolicyDecision>
    return Exit.isSuccess(exit) ? exit.value : POLICY_FAILED
  }
  return Effect.flatMap(runWithin(client.env.supervisor, decision, client.policyTimeoutMs), (answer) =>
    !isTimedOut(answer)
      ? Effect.succeed(Exit.isSuccess(answer) ? answer.value : POLICY_FAILED)
      : Effect.as(markDetached(trail, answer.detached, "policy"), POLICY_FAILED))
}

const classify = (call: ToolCall, exit: Exit.Exit<ToolResult, CallError>): Effect.Effect<ToolResult, CallError> => {
  if (Exit.isSuccess(exit)) return exit
  if (Cause.hasInterruptsOnly(exit.cause)) return Effect.interrupt
  const error = Cause.findErrorOption(exit.cause)
  // A transport defect is reported without its content: it may quote the request.
  return Effect.fail(
    error._tag === "Some" ? error.value : new TransportError({ serverId: call.serverId, detail: "the transport failed unexpectedly" })
  )
}

/**
 * The transport call under the call's deadline. A transport that enforces deadlines itself (an MCP
 * request timeout) gets the deadline and no second timer; otherwise the request runs in a
 * supervised fiber started at once, and only one that does not finish synchronously (a native tool
 * usually does) costs a timer. That deadline is hard: a request that does not yield to
 * interruption is detached at it (still supervised) and the call fails with Timeout all the same.
 * Interrupting the call interrupts the request.
 */
const sendCall = (
  client: ClientState,
  trail: Trail,
  call: ToolCall,
  options: CallOptions | undefined,
  span: Tracer.Span | undefined
): Effect.Effect<ToolResult, CallError> => {
  const millis = millisOf(options?.timeout, client.callTimeoutMs)
  let request: Effect.Effect<ToolResult, CallError> = client.transport.callTool(call, { onProgress: options?.onProgress, timeoutMs: millis })
  if (span !== undefined) request = Effect.provideService(request, Tracer.ParentSpan, span)
  if (client.transport.enforcesDeadline === true) return Effect.flatMap(Effect.exit(request), (exit) => classify(call, exit))
  return Effect.flatMap(runWithin(client.env.supervisor, request, millis), (exit) =>
    !isTimedOut(exit)
      ? classify(call, exit)
      : Effect.andThen(markDetached(trail, exit.detached, "request"), Effect.fail(new Timeout({ millis }))))
}

/** Puts the receipt's decisions (never arguments or results) on the call's span. */
const annotateReceipt = (span: Tracer.Span, trail: Trail): void => {
  span.attribute("interlock.hooks", trail.runs.length)
  span.attribute("interlock.sent", trail.sent)
  if (trail.policy !== undefined) {
    span.attribute("interlock.policy", trail.policy.decision)
    if (trail.policy.rule !== undefined) span.attribute("interlock.policy_rule", trail.policy.rule)
  }
  if (trail.approval !== undefined) span.attribute("interlock.approval", `${trail.approval.decision}:${trail.approval.source}`)
  if (trail.toolChanged === true) span.attribute("interlock.tool_changed", true)
  if (trail.detached !== undefined) span.attribute("interlock.detached", trail.detached.join(","))
}

/** Runs one governed tool call. */
export const callTool = (client: ClientState, input: CallInput, options: CallOptions | undefined) =>
  Effect.withFiber<ToolResult, CallError>((fiber) => {
    const { call, invalid } = checkInput(input)
    const start = now()
    const ctx = hookContext(client, call.serverId, options)
    const span = startSpan(fiber, "interlock.callTool", start, {
      "interlock.server": call.serverId,
      "interlock.tool": call.name,
      "interlock.call_id": call.callId
    })
    const trail: Trail = {
      call,
      runs: [],
      policy: undefined,
      approval: undefined,
      sent: false,
      toolChanged: client.transport.toolChanged?.(call.serverId, call.name),
      detached: undefined
    }
    const recorder: Recorder = { fiber, span, subject: call, runs: trail.runs }
    const finish = (outcome: CallOutcome) => {
      if (span !== undefined) annotateReceipt(span, trail)
      recordCall({ fiber, span, operation: "callTool", outcome, start, end: now() })
      return receiptOf(trail, outcome)
    }
    const run = program(client, trail, recorder, ctx, options, finish, invalid)
    // An interrupted call's span must still end; without a span there is nothing to close.
    return span === undefined
      ? run
      : Effect.onInterrupt(run, () => Effect.sync(() => recordCall({ fiber, span, operation: "callTool", outcome: "interrupted", start, end: now() })))
  })

const program = Effect.fnUntraced(function*(
  client: ClientState,
  trail: Trail,
  recorder: Recorder,
  ctx: HookContext,
  options: CallOptions | undefined,
  finish: (outcome: CallOutcome) => Receipt,
  invalid: ProtocolError | undefined
) {
  const call = trail.call
  const answered = invalid === undefined ? yield* Effect.exit(governedRequest(client, trail, recorder, ctx, options)) : Exit.fail(invalid)
  if (Exit.isFailure(answered)) {
    const error = Cause.findErrorOption(answered.cause)
    if (error._tag === "None") return yield* Effect.failCause(answered.cause)
    const failing = runChain(
      client.env,
      recorder,
      client.select("toolCallFailed", call.serverId, call.name),
      error.value,
      () => failedSpec(trail.call, ctx)
    )
    const failed: ChainEnd<CallError> = Effect.isEffect(failing) ? yield* failing : failing
    if (failed._tag === "Stopped" && failed.verdict._tag === "Recover") {
      return failed.verdict.result.withReceipt(finish("recovered"))
    }
    return yield* Effect.fail(withReceipt(error.value, finish(error.value._tag === "Denied" ? "denied" : "failed")))
  }
  const { halted, result } = answered.value
  const posting = runChain(client.env, recorder, client.select("postToolCall", call.serverId, call.name), result, () => postSpec(trail.call, ctx))
  const post = Effect.isEffect(posting) ? yield* posting : posting
  if (post._tag === "Failed") return ToolResult.text(WITHHELD_TEXT, { isError: true }).withReceipt(finish("withheld"))
  const outcome: CallOutcome = halted ? "halted" : post.state.isError === true ? "tool_error" : "ok"
  return post.state.withReceipt(finish(outcome))
})

/** Steps 1 to 4: filter, pre-hooks, policy and approvals, transport. */
const governedRequest = Effect.fnUntraced(function*(
  client: ClientState,
  trail: Trail,
  recorder: Recorder,
  ctx: HookContext,
  options: CallOptions | undefined
) {
  const first = trail.call
  if (!client.exposed(first.serverId, first.name)) return yield* new Denied({ reason: { _tag: "NotExposed" } })
  const preparing = runChain(client.env, recorder, client.select("preToolCall", first.serverId, first.name), first, () => preSpec(ctx))
  const pre = Effect.isEffect(preparing) ? yield* preparing : preparing
  trail.call = pre.state
  if (pre._tag === "Stopped" && pre.verdict._tag === "Halt") return { halted: true, result: pre.verdict.result }
  const refused = refusal(pre, "preToolCall")
  if (refused !== undefined) return yield* Effect.fail(refused)
  const call = pre.state
  if (client.pinTools && trail.toolChanged === true) {
    trail.policy = { decision: "deny", rule: "pinTools" }
    return yield* new Denied({
      reason: { _tag: "PolicyDenied", rule: "pinTools", message: "the tool's definition changed since it was pinned" }
    })
  }
  let decision = decidePolicy(client, trail, call, ctx)
  if (Effect.isEffect(decision)) decision = yield* decision
  trail.policy = { decision: decision._tag === "Allow" ? "allow" : decision._tag === "Deny" ? "deny" : "ask", rule: decision.rule }
  if (decision._tag === "Deny") {
    return yield* new Denied({ reason: { _tag: "PolicyDenied", rule: decision.rule, message: decision.reason } })
  }
  if (decision._tag === "Ask") {
    const approval: ApprovalOutcome = yield* client.approvals.request({ call, ctx, reason: decision.reason, rule: decision.rule })
    trail.approval = { decision: approval.decision, source: approval.source, ...(approval.by === undefined ? {} : { by: approval.by }) }
    if (approval.decision !== "allow") return yield* new Denied({ reason: { _tag: "ApprovalDenied", message: approval.reason } })
  }
  trail.sent = true
  const result = yield* sendCall(client, trail, call, options, recorder.span)
  return { halted: false, result }
})
