/** The bridge's test environment: Interlock hooks and a rules policy as the gateway's config would give them. */
import { Hooks, type HooksConfig, Policy, Verdict } from "@interlock/core"
import { type Duration, Effect, Layer } from "effect"
import { AuditSink, Bridge, ClaudeHooks, type ClaudeHooksConfig, type CompiledClaudeHooks } from "../src/index.ts"

/** A secret that must never reach an audit row or stderr. */
export const SECRET = "sk-live-SECRET-77"

const boom = (): never => {
  throw new Error(SECRET)
}

/** Interlock hooks (core style), as a gateway config defines them. */
export const interlockHooks: HooksConfig = {
  preToolCall: [
    {
      match: "claude/Bash",
      id: "strip-sudo",
      run: (call) => {
        const command = String(call.args.command ?? "")
        return command.startsWith("sudo ")
          ? Verdict.rewrite({ args: { ...call.args, command: command.slice(5) } })
          : Verdict.continue
      }
    },
    { match: "claude/Bash", id: "boom", run: (call) => (call.args.command === "boom" ? boom() : Verdict.continue) },
    { match: "claude/Answer", id: "answer", run: () => Verdict.halt({ content: [{ type: "text", text: "42" }] }) }
  ],
  postToolCall: [
    {
      match: "vault/*",
      id: "redact",
      run: (_call, result) =>
        Verdict.replace({ content: [{ type: "text", text: result.text.replace(/sk-[\w-]+/g, "[REDACTED]") }] })
    },
    {
      match: "claude/Read",
      id: "redact-read",
      run: (_call, result) =>
        Verdict.replace({ content: [{ type: "text", text: result.text.replace(/sk-[\w-]+/g, "[REDACTED]") }] })
    },
    { match: "fs/explode", id: "post-boom", run: () => boom() }
  ],
  toolCallFailed: [{
    match: "fs/flaky",
    id: "recover",
    run: () => Verdict.recover({ content: [{ type: "text", text: "use the cached copy" }] })
  }]
}

/** Claude-style tool hooks in the same config. */
export const claudeToolHooks: ClaudeHooksConfig = {
  PreToolUse: [
    {
      matcher: "KillSwitch",
      hooks: [{ id: "kill-switch", run: () => ["halt", { stopReason: "kill switch pulled" }] }]
    },
    { matcher: "Grep", hooks: [{ id: "grep-context", run: () => ["ok", { additionalContext: "prefer rg" }] }] }
  ],
  PostToolUse: [{
    matcher: "mcp__notes__.*",
    hooks: [{ id: "notes-context", run: () => ["ok", { additionalContext: "notes are public" }] }]
  }]
}

/** Claude-style hooks of the agent-level events. */
export const agentConfig: ClaudeHooksConfig = {
  UserPromptSubmit: [{
    hooks: [{
      id: "no-prod",
      run: (input) =>
        String((input as { prompt: string }).prompt).includes("prod")
          ? ["block", { reason: "no prod deploys on Fridays" }]
          : String((input as { prompt: string }).prompt) === "crash"
          ? boom()
          : ["ok", { additionalContext: "repo uses pnpm" }]
    }]
  }],
  Stop: [{
    hooks: [{
      id: "tests-green",
      run: (input) => ((input as { stop_hook_active?: boolean }).stop_hook_active
        ? "ok"
        : ["block", { reason: "run the tests first" }])
    }]
  }],
  SubagentStop: [{ hooks: [{ id: "budget", run: () => ["halt", { stopReason: "budget exhausted" }] }] }],
  SubagentStart: [{
    matcher: "code-reviewer",
    hooks: [{ id: "reviewer", run: () => ["ok", { additionalContext: "be strict" }] }]
  }],
  PreCompact: [{ hooks: [{ id: "compact", run: () => ["ok", { customInstructions: "keep the TODO list" }] }] }],
  Notification: [{ hooks: [{ id: "notify", run: () => boom() }] }],
  PermissionRequest: [{
    matcher: "Write",
    hooks: [{
      id: "docs-only",
      run: (input) =>
        String((input as { tool_input: { file_path?: string } }).tool_input.file_path).startsWith("docs/")
          ? "allow"
          : ["deny", { message: "only docs may be written" }]
    }]
  }]
}

const merge = (a: HooksConfig, b: HooksConfig): HooksConfig => {
  const out: Record<string, Array<unknown>> = {}
  for (const config of [a, b]) {
    for (const [event, entries] of Object.entries(config)) {
      out[event] = [...(out[event] ?? []), ...(entries as Array<unknown>)]
    }
  }
  return out as HooksConfig
}

/** The rules of the test config. */
export const rules = Policy.rules({
  rules: [
    { id: "allow-ls", match: "claude/Bash", decision: "allow", when: (args) => args.command === "ls" },
    {
      id: "no-rm",
      match: "claude/Bash",
      decision: "deny",
      reason: "rm is not allowed",
      when: (args) => String(args.command).includes("rm ")
    },
    { id: "ask-write", match: "claude/Write", decision: "ask", reason: "writes need a look" },
    { id: "ask-edit", match: "claude/Edit", decision: "ask", reason: "edits need a look" },
    { id: "fs-read", match: "fs/read_file", decision: "allow" }
  ],
  default: "allow"
})

/** Builds the environment and runs the bridge on an event. */
export const bridge = (
  event: unknown,
  options: {
    readonly policy?: Layer.Layer<Policy, any>
    readonly audit?: Layer.Layer<AuditSink>
    readonly hooks?: Layer.Layer<Hooks, any>
    readonly deadline?: Duration.Duration
    readonly rewriteInput?: Bridge.BridgeOptions["rewriteInput"]
  } = {}
) =>
  Effect.gen(function*() {
    const audit = AuditSink.memory()
    const tools = yield* ClaudeHooks.toInterlock(claudeToolHooks)
    const agentHooks: CompiledClaudeHooks = yield* ClaudeHooks.compile(agentConfig)
    const layer = Layer.mergeAll(
      options.hooks ?? Hooks.layer(merge(interlockHooks, tools)),
      options.policy ?? rules,
      options.audit ?? audit.layer
    )
    const result = yield* Effect.provide(
      Bridge.run(typeof event === "string" ? event : JSON.stringify(event), {
        agentHooks,
        deadline: options.deadline,
        rewriteInput: options.rewriteInput
      }),
      layer
    )
    const json = result.stdout.length > 0 ? JSON.parse(result.stdout) : undefined
    return { ...result, json, rows: audit.rows }
  })

/** The fields every Claude Code hook event carries, for one session. */
export const session = { session_id: "sess-1", transcript_path: "/t.jsonl", cwd: "/repo", permission_mode: "default" }

/** A PreToolUse event for a tool and its input. */
export const pre = (tool_name: string, tool_input: Record<string, unknown>) => ({
  ...session,
  hook_event_name: "PreToolUse",
  tool_name,
  tool_input,
  tool_use_id: "toolu_1"
})

/** A PreToolUse answer with these hookSpecificOutput fields. */
export const preOut = (fields: Record<string, unknown>) => ({
  hookSpecificOutput: { hookEventName: "PreToolUse", ...fields }
})
