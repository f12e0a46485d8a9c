/** The bridge in-process, for every event type: Claude Code's answer, the exit code and the audit rows. */
import { assert, describe, it } from "@effect/vitest"
import { Hooks, Policy } from "@interlock/core"
import { Effect, Layer } from "effect"
import { AuditSink, Bridge } from "../src/index.ts"
import { bridge, SECRET } from "./bridgeEnv.ts"

const session = { session_id: "sess-1", transcript_path: "/t.jsonl", cwd: "/repo", permission_mode: "default" }
const pre = (tool_name: string, tool_input: Record<string, unknown>) => ({
  ...session,
  hook_event_name: "PreToolUse",
  tool_name,
  tool_input,
  tool_use_id: "toolu_1"
})
const preOut = (fields: Record<string, unknown>) => ({ hookSpecificOutput: { hookEventName: "PreToolUse", ...fields } })

describe("PreToolUse", () => {
  it.effect("allow only when a rule allows explicitly, naming the rule", () =>
    Effect.gen(function*() {
      const r = yield* bridge(pre("Bash", { command: "ls" }))
      assert.strictEqual(r.exitCode, 0)
      assert.strictEqual(r.stderr, "")
      assert.deepStrictEqual(
        r.json,
        preOut({ permissionDecision: "allow", permissionDecisionReason: "Interlock: allowed by rule allow-ls" })
      )
      assert.strictEqual(r.rows.length, 1)
      assert.deepInclude(r.rows[0], {
        outcome: "answered",
        event: "PreToolUse",
        sessionId: "sess-1",
        toolUseId: "toolu_1",
        server: "claude",
        tool: "Bash",
        claudeDecision: "allow",
        rule: "allow-ls",
        rewritten: false
      })
      assert.strictEqual(r.rows[0].digest?.length, 64)
      assert.deepInclude(r.rows[0].receipt, {
        serverId: "claude",
        name: "Bash",
        callId: "toolu_1",
        policy: { decision: "allow", rule: "allow-ls" },
        sent: true
      })
      assert.strictEqual(r.rows[0].durationMs, 0, "TestClock: no time passes")
    }))

  it.effect("an MCP tool is server/tool for the rules", () =>
    Effect.gen(function*() {
      const r = yield* bridge(pre("mcp__fs__read_file", { path: "README.md" }))
      assert.deepStrictEqual(
        r.json,
        preOut({ permissionDecision: "allow", permissionDecisionReason: "Interlock: allowed by rule fs-read" })
      )
      assert.deepInclude(r.rows[0], { server: "fs", tool: "read_file", rule: "fs-read" })
    }))

  it.effect("a rule's deny denies with its reason", () =>
    Effect.gen(function*() {
      const r = yield* bridge(pre("Bash", { command: `rm -rf / ${SECRET}` }))
      assert.deepStrictEqual(
        r.json,
        preOut({ permissionDecision: "deny", permissionDecisionReason: "rm is not allowed" })
      )
      assert.deepInclude(r.rows[0], { claudeDecision: "deny", rule: "no-rm", error: "rm is not allowed" })
      assert.notInclude(JSON.stringify(r.rows), SECRET, "an audit row never holds the arguments")
    }))

  it.effect("a rule's ask asks", () =>
    Effect.gen(function*() {
      const r = yield* bridge(pre("Write", { file_path: "a.txt", content: "x" }))
      assert.deepStrictEqual(
        r.json,
        preOut({ permissionDecision: "ask", permissionDecisionReason: "writes need a look" })
      )
      assert.deepInclude(r.rows[0], { claudeDecision: "ask", rule: "ask-write" })
    }))

  it.effect("no rule and a default of allow: {} (no opinion)", () =>
    Effect.gen(function*() {
      const r = yield* bridge(pre("Glob", { pattern: "*.ts" }))
      assert.strictEqual(r.stdout, "{}\n")
      assert.strictEqual(r.exitCode, 0)
      assert.deepInclude(r.rows[0], { claudeDecision: "none" })
      assert.notProperty(r.rows[0], "rule")
    }))

  it.effect("the last rewrite (rewriteInput) runs after the policy: allow or no opinion carry updatedInput; a deny does not", () =>
    Effect.gen(function*() {
      const rewriteInput = (call: { readonly name: string; readonly args: Record<string, unknown> }) =>
        call.name === "Bash" ? { ...call.args, command: `filtered(${String(call.args.command)})` } : undefined
      // The rule allow-ls saw "ls", as Claude wrote it.
      const allowed = yield* bridge(pre("Bash", { command: "ls" }), { rewriteInput })
      assert.deepStrictEqual(
        allowed.json,
        preOut({
          permissionDecision: "allow",
          permissionDecisionReason: "Interlock: allowed by rule allow-ls",
          updatedInput: { command: "filtered(ls)" }
        })
      )
      assert.deepInclude(allowed.rows[0], { claudeDecision: "allow", rewritten: true })
      // No rule: no decision (Claude Code's permissions decide), the rewritten input only.
      const open = yield* bridge(pre("Bash", { command: "echo hi" }), { rewriteInput })
      assert.deepStrictEqual(open.json, preOut({ updatedInput: { command: "filtered(echo hi)" } }))
      assert.deepInclude(open.rows[0], { claudeDecision: "none", rewritten: true })
      const denied = yield* bridge(pre("Bash", { command: "rm -rf /" }), { rewriteInput })
      assert.deepStrictEqual(
        denied.json,
        preOut({ permissionDecision: "deny", permissionDecisionReason: "rm is not allowed" })
      )
      const glob = yield* bridge(pre("Glob", { pattern: "*.ts" }), { rewriteInput })
      assert.strictEqual(glob.stdout, "{}\n")
    }))

  it.effect("no rule and a default of deny: deny", () =>
    Effect.gen(function*() {
      const r = yield* bridge(pre("Glob", { pattern: "*" }), { policy: Policy.rules({ rules: [] }) })
      assert.deepStrictEqual(
        r.json,
        preOut({ permissionDecision: "deny", permissionDecisionReason: "no policy rule allows this call" })
      )
    }))

  it.effect("allowAll is not an explicit allow: {}", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* bridge(pre("Glob", {}), { policy: Policy.allowAll })).stdout, "{}\n")
    }))

  it.effect("hooks rewrote the call: updatedInput, with allow when the rewritten call is allowed by a rule", () =>
    Effect.gen(function*() {
      const r = yield* bridge(pre("Bash", { command: "sudo ls" }))
      assert.deepStrictEqual(
        r.json,
        preOut({
          permissionDecision: "allow",
          permissionDecisionReason: "Interlock: allowed by rule allow-ls",
          updatedInput: { command: "ls" }
        })
      )
      assert.deepInclude(r.rows[0], { claudeDecision: "allow", rewritten: true })
    }))

  it.effect("hooks rewrote the call and no rule allows it: ask, showing the rewritten input", () =>
    Effect.gen(function*() {
      const r = yield* bridge(pre("Bash", { command: "sudo make" }))
      assert.deepStrictEqual(
        r.json,
        preOut({
          permissionDecision: "ask",
          permissionDecisionReason: "Interlock rewrote this call's input; confirm the rewritten input",
          updatedInput: { command: "make" }
        })
      )
    }))

  it.effect("the rules see the rewritten call: sudo rm is denied", () =>
    Effect.gen(function*() {
      const r = yield* bridge(pre("Bash", { command: "sudo rm -rf /" }))
      assert.deepStrictEqual(
        r.json,
        preOut({ permissionDecision: "deny", permissionDecisionReason: "rm is not allowed" })
      )
    }))

  it.effect("a hook that raises denies (fail closed), without what it raised", () =>
    Effect.gen(function*() {
      const r = yield* bridge(pre("Bash", { command: "boom" }))
      assert.deepStrictEqual(
        r.json,
        preOut({
          permissionDecision: "deny",
          permissionDecisionReason: "Interlock: hook boom failed (raise), so the call is denied"
        })
      )
      assert.deepInclude(r.rows[0], { claudeDecision: "deny", rule: "boom" })
      assert.deepInclude(r.rows[0].receipt?.hooks.find((hook) => hook.id === "boom"), {
        status: "failed",
        failure: "raise"
      })
      assert.notInclude(r.stdout + JSON.stringify(r.rows), SECRET)
    }))

  it.effect("a hook that answers for the tool (Halt) denies with the answer as the reason", () =>
    Effect.gen(function*() {
      const r = yield* bridge(pre("Answer", {}))
      assert.deepStrictEqual(r.json, preOut({ permissionDecision: "deny", permissionDecisionReason: "42" }))
      assert.deepInclude(r.rows[0], {
        claudeDecision: "deny",
        rule: "answer",
        error: "a hook answered for the tool (Halt)"
      })
    }))

  it.effect("a Claude-style halt stops the run (continue: false) and denies the call", () =>
    Effect.gen(function*() {
      const r = yield* bridge(pre("KillSwitch", {}))
      assert.deepStrictEqual(r.json, {
        continue: false,
        stopReason: "kill switch pulled",
        ...preOut({ permissionDecision: "deny", permissionDecisionReason: "kill switch pulled" })
      })
      assert.deepInclude(r.rows[0], { claudeDecision: "halt", rule: "kill-switch" })
    }))

  it.effect("a hook's additionalContext reaches Claude", () =>
    Effect.gen(function*() {
      const r = yield* bridge(pre("Grep", { pattern: "x" }))
      assert.deepStrictEqual(r.json, preOut({ additionalContext: "prefer rg" }))
    }))

  it.effect("a policy that dies denies: the bridge never crashes into an allow", () =>
    Effect.gen(function*() {
      const dying = Layer.succeed(Policy, { decide: () => Effect.die(new Error("boom")) })
      const r = yield* bridge(pre("Bash", { command: "ls" }), { policy: dying })
      assert.strictEqual(r.exitCode, 0)
      assert.strictEqual(r.json.hookSpecificOutput.permissionDecision, "deny")
    }))

  it.effect("broken Hooks services deny too", () =>
    Effect.gen(function*() {
      const broken = Layer.succeed(Hooks, {
        context: undefined as never,
        get byEvent(): never {
          throw new Error("broken")
        }
      })
      const r = yield* bridge(pre("Bash", { command: "ls" }), { hooks: broken })
      assert.deepStrictEqual(
        r.json,
        preOut({ permissionDecision: "deny", permissionDecisionReason: "Interlock failed to evaluate this event" })
      )
      assert.deepInclude(r.rows[0], { claudeDecision: "deny" })
    }))

  it.effect("an allow whose audit row cannot be written becomes a deny; a deny stays a deny", () =>
    Effect.gen(function*() {
      const failing = Layer.succeed(AuditSink, { record: () => Effect.fail("disk full") })
      const allowed = yield* bridge(pre("Bash", { command: "ls" }), { audit: failing })
      assert.deepStrictEqual(
        allowed.json,
        preOut({
          permissionDecision: "deny",
          permissionDecisionReason: "Interlock could not record this decision in its audit store"
        })
      )
      const denied = yield* bridge(pre("Bash", { command: "rm -rf x" }), { audit: failing })
      assert.strictEqual(denied.json.hookSpecificOutput.permissionDecisionReason, "rm is not allowed")
      const thrown = Layer.succeed(AuditSink, {
        record: () => {
          throw new Error("x")
        }
      })
      assert.strictEqual(
        (yield* bridge(pre("Bash", { command: "ls" }), { audit: thrown })).json.hookSpecificOutput.permissionDecision,
        "deny"
      )
    }))
})

describe("PermissionRequest", () => {
  const request = (tool_name: string, tool_input: Record<string, unknown>) => ({
    ...session,
    hook_event_name: "PermissionRequest",
    tool_name,
    tool_input,
    permission_suggestions: []
  })

  it.effect("an explicit allow answers the prompt with allow; a deny with deny; anything else leaves it to the user", () =>
    Effect.gen(function*() {
      const allowed = yield* bridge(request("Bash", { command: "ls" }))
      assert.deepStrictEqual(allowed.json, {
        hookSpecificOutput: {
          hookEventName: "PermissionRequest",
          decision: { behavior: "allow", updatedInput: { command: "ls" } }
        }
      })
      const denied = yield* bridge(request("Bash", { command: "rm -rf /" }))
      assert.deepStrictEqual(denied.json, {
        hookSpecificOutput: {
          hookEventName: "PermissionRequest",
          decision: { behavior: "deny", message: "rm is not allowed" }
        }
      })
      assert.strictEqual(
        (yield* bridge(request("Edit", { file_path: "a" }))).stdout,
        "{}\n",
        "an Ask with no matching approver hook: the user decides"
      )
      assert.strictEqual((yield* bridge(request("Glob", {}))).stdout, "{}\n")
      assert.deepInclude(denied.rows[0], { event: "PermissionRequest", claudeDecision: "deny", rule: "no-rm" })
      const rewritten = yield* bridge(request("Bash", { command: "sudo ls" }))
      assert.deepStrictEqual(rewritten.json.hookSpecificOutput.decision, {
        behavior: "allow",
        updatedInput: { command: "ls" }
      })
    }))
})

describe("PermissionRequest hooks answer the policy's Ask", () => {
  const request = (file_path: string) => ({
    ...session,
    hook_event_name: "PermissionRequest",
    tool_name: "Write",
    tool_input: { file_path }
  })

  it.effect("the hook approves or refuses; the audit row says so", () =>
    Effect.gen(function*() {
      const approved = yield* bridge(request("docs/a.md"))
      assert.deepStrictEqual(approved.json, {
        hookSpecificOutput: {
          hookEventName: "PermissionRequest",
          decision: { behavior: "allow", updatedInput: { file_path: "docs/a.md" } }
        }
      })
      assert.deepInclude(approved.rows[0], {
        claudeDecision: "allow",
        rule: "ask-write",
        error: "approved by a PermissionRequest hook"
      })
      const refused = yield* bridge(request("src/a.ts"))
      assert.deepStrictEqual(refused.json, {
        hookSpecificOutput: {
          hookEventName: "PermissionRequest",
          decision: { behavior: "deny", message: "only docs may be written" }
        }
      })
    }))

  it.effect("a PreToolUse Ask is never answered by them: the rule's ask goes to Claude Code", () =>
    Effect.gen(function*() {
      const r = yield* bridge(pre("Write", { file_path: "docs/a.md" }))
      assert.strictEqual(r.json.hookSpecificOutput.permissionDecision, "ask")
    }))
})

describe("PostToolUse", () => {
  const post = (tool_name: string, tool_response: unknown) => ({
    ...session,
    hook_event_name: "PostToolUse",
    tool_name,
    tool_input: { q: 1 },
    tool_response,
    tool_use_id: "toolu_2"
  })

  it.effect("an MCP tool's output is redacted through updatedMCPToolOutput, in the shape it came", () =>
    Effect.gen(function*() {
      const blocks = yield* bridge(post("mcp__vault__get", [{ type: "text", text: `key=${SECRET}` }]))
      assert.deepStrictEqual(blocks.json, {
        hookSpecificOutput: {
          hookEventName: "PostToolUse",
          updatedMCPToolOutput: [{ type: "text", text: "key=[REDACTED]" }]
        }
      })
      assert.deepInclude(blocks.rows[0], {
        event: "PostToolUse",
        claudeDecision: "replace",
        server: "vault",
        tool: "get"
      })
      assert.notInclude(JSON.stringify(blocks.rows), SECRET)
      const object = yield* bridge(
        post("mcp__vault__get", { content: [{ type: "text", text: SECRET }], isError: false })
      )
      assert.deepStrictEqual(object.json.hookSpecificOutput.updatedMCPToolOutput, {
        content: [{ type: "text", text: "[REDACTED]" }]
      })
      const text = yield* bridge(post("mcp__vault__get", `key=${SECRET}`))
      assert.deepStrictEqual(
        text.json.hookSpecificOutput.updatedMCPToolOutput,
        "key=[REDACTED]",
        "a text response is replaced by text"
      )
      assert.notInclude(text.stdout, SECRET)
    }))

  it.effect("a built-in's output cannot be replaced: it is blocked, with the redacted output as context", () =>
    Effect.gen(function*() {
      const r = yield* bridge(post("Read", { type: "text", file: { content: `token ${SECRET}` } }))
      assert.strictEqual(r.json.decision, "block")
      assert.strictEqual(r.json.reason, "Interlock replaced this tool's output")
      assert.include(r.json.hookSpecificOutput.additionalContext, "[REDACTED]")
      assert.notInclude(r.stdout, SECRET)
    }))

  it.effect("a post-hook that fails withholds the output", () =>
    Effect.gen(function*() {
      const r = yield* bridge(post("mcp__fs__explode", [{ type: "text", text: SECRET }]))
      assert.deepStrictEqual(r.json.hookSpecificOutput.updatedMCPToolOutput, [{
        type: "text",
        text: "Result withheld: a post-call hook failed, so the tool's output was dropped."
      }])
      assert.deepInclude(r.rows[0], { claudeDecision: "withheld" })
      assert.notInclude(r.stdout, SECRET)
      const text = yield* bridge(post("mcp__fs__explode", SECRET))
      assert.strictEqual(
        text.json.hookSpecificOutput.updatedMCPToolOutput,
        "Result withheld: a post-call hook failed, so the tool's output was dropped."
      )
      assert.notInclude(text.stdout, SECRET)
    }))

  it.effect("additionalContext from a hook; nothing to say gives {}", () =>
    Effect.gen(function*() {
      const r = yield* bridge(post("mcp__notes__read", "hello"))
      assert.deepStrictEqual(r.json, {
        hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "notes are public" }
      })
      const none = yield* bridge(post("Bash", { stdout: "ok" }))
      assert.strictEqual(none.stdout, "{}\n")
      assert.deepInclude(none.rows[0], { claudeDecision: "continue" })
    }))
})

describe("PostToolUseFailure", () => {
  const failure = (tool_name: string) => ({
    ...session,
    hook_event_name: "PostToolUseFailure",
    tool_name,
    tool_input: {},
    error: "ECONNRESET",
    is_interrupt: false
  })

  it.effect("a failure hook's recovery becomes additionalContext; otherwise {}", () =>
    Effect.gen(function*() {
      const r = yield* bridge(failure("mcp__fs__flaky"))
      assert.deepStrictEqual(r.json, {
        hookSpecificOutput: {
          hookEventName: "PostToolUseFailure",
          additionalContext: "Interlock recovered this failure: use the cached copy"
        }
      })
      assert.deepInclude(r.rows[0], { claudeDecision: "recovered" })
      assert.strictEqual((yield* bridge(failure("Bash"))).stdout, "{}\n")
    }))
})

describe("agent-level events", () => {
  it.effect("UserPromptSubmit: block with the reason; context otherwise; a failing hook blocks", () =>
    Effect.gen(function*() {
      const blocked = yield* bridge({ ...session, hook_event_name: "UserPromptSubmit", prompt: "deploy to prod" })
      assert.deepStrictEqual(blocked.json, { decision: "block", reason: "no prod deploys on Fridays" })
      assert.deepInclude(blocked.rows[0], {
        event: "UserPromptSubmit",
        claudeDecision: "block",
        error: "no prod deploys on Fridays"
      })
      const ok = yield* bridge({ ...session, hook_event_name: "UserPromptSubmit", prompt: "fix the tests" })
      assert.deepStrictEqual(ok.json, {
        hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: "repo uses pnpm" }
      })
      const failed = yield* bridge({ ...session, hook_event_name: "UserPromptSubmit", prompt: "crash" })
      assert.deepStrictEqual(failed.json, { decision: "block", reason: "Interlock: hook no-prod failed (raise)" })
      assert.notInclude(failed.stdout, SECRET)
    }))

  it.effect("Stop: block keeps the agent going with the reason; once active, it may stop", () =>
    Effect.gen(function*() {
      const r = yield* bridge({ ...session, hook_event_name: "Stop", stop_hook_active: false })
      assert.deepStrictEqual(r.json, { decision: "block", reason: "run the tests first" })
      assert.deepInclude(r.rows[0], { event: "Stop", claudeDecision: "keep_going" })
      assert.strictEqual(
        (yield* bridge({ ...session, hook_event_name: "Stop", stop_hook_active: true })).stdout,
        "{}\n"
      )
    }))

  it.effect("SubagentStop: halt stops the run", () =>
    Effect.gen(function*() {
      const r = yield* bridge({
        ...session,
        hook_event_name: "SubagentStop",
        agent_id: "a",
        agent_type: "x",
        stop_hook_active: false
      })
      assert.deepStrictEqual(r.json, { continue: false, stopReason: "budget exhausted" })
      assert.deepInclude(r.rows[0], { claudeDecision: "halt" })
    }))

  it.effect("SubagentStart: context for the matching agent type only", () =>
    Effect.gen(function*() {
      const r = yield* bridge({
        ...session,
        hook_event_name: "SubagentStart",
        agent_id: "a",
        agent_type: "code-reviewer"
      })
      assert.deepStrictEqual(r.json, {
        hookSpecificOutput: { hookEventName: "SubagentStart", additionalContext: "be strict" }
      })
      assert.strictEqual(
        (yield* bridge({ ...session, hook_event_name: "SubagentStart", agent_id: "b", agent_type: "general-purpose" }))
          .stdout,
        "{}\n"
      )
    }))

  it.effect("PreCompact: custom instructions", () =>
    Effect.gen(function*() {
      const r = yield* bridge({ ...session, hook_event_name: "PreCompact", trigger: "auto", custom_instructions: null })
      assert.deepStrictEqual(r.json, {
        hookSpecificOutput: { hookEventName: "PreCompact", customInstructions: "keep the TODO list" }
      })
    }))

  it.effect("Notification: a failing observer gives {} (nothing to deny), and the failure is audited", () =>
    Effect.gen(function*() {
      const r = yield* bridge({
        ...session,
        hook_event_name: "Notification",
        message: "waiting",
        notification_type: "idle_prompt"
      })
      assert.strictEqual(r.stdout, "{}\n")
      assert.strictEqual(r.exitCode, 0)
      assert.deepInclude(r.rows[0], {
        event: "Notification",
        claudeDecision: "continue",
        rule: "notify",
        error: "Interlock: hook notify failed (raise)"
      })
    }))
})

describe("bad input", () => {
  it.effect("not JSON, not an object or an unknown event: exit 2 (Claude Code blocks), one line on stderr, nothing audited", () =>
    Effect.gen(function*() {
      const cases: Array<[string, string]> = [
        ["not json at all", "interlock claude-hook: stdin is not valid JSON\n"],
        ["", "interlock claude-hook: stdin is not valid JSON\n"],
        [`[1,2]`, "interlock claude-hook: the event must be a JSON object\n"],
        [`{"hook_event_name":"SessionEnd"}`, ""]
      ]
      for (const [stdin, expected] of cases) {
        const r = yield* bridge(stdin)
        assert.strictEqual(r.exitCode, 2, stdin)
        assert.strictEqual(r.stdout, "")
        assert.match(r.stderr, /^interlock claude-hook: [^\n]+\n$/)
        if (expected !== "") assert.strictEqual(r.stderr, expected)
        assert.strictEqual(r.rows.length, 0)
      }
    }))

  it.effect("a known event with a bad field answers closed in JSON (exit 0), naming the field, never its value", () =>
    Effect.gen(function*() {
      const denied = yield* bridge(`{"hook_event_name":"PreToolUse","tool_name":"Bash"}`)
      assert.strictEqual(denied.exitCode, 0)
      assert.strictEqual(JSON.parse(denied.stdout).hookSpecificOutput.permissionDecision, "deny")
      assert.include(JSON.parse(denied.stdout).hookSpecificOutput.permissionDecisionReason, "tool_input")
      const blocked = yield* bridge(`{"hook_event_name":"UserPromptSubmit","prompt":["${SECRET}"]}`)
      assert.strictEqual(blocked.exitCode, 0)
      assert.strictEqual(JSON.parse(blocked.stdout).decision, "block")
      assert.notInclude(blocked.stdout, SECRET)
    }))

  it("Bridge.failure: the closed answer when the config cannot load", () => {
    assert.deepStrictEqual(
      JSON.parse(Bridge.failure(JSON.stringify(pre("Bash", {})), "config not found").stdout),
      preOut({
        permissionDecision: "deny",
        permissionDecisionReason: "config not found"
      })
    )
    assert.deepStrictEqual(JSON.parse(Bridge.failure(JSON.stringify({ hook_event_name: "Stop" }), "x").stdout), {
      continue: false,
      stopReason: "x"
    })
    assert.deepStrictEqual(
      JSON.parse(Bridge.failure(JSON.stringify({ hook_event_name: "UserPromptSubmit", prompt: "p" }), "x").stdout),
      { decision: "block", reason: "x" }
    )
    const post = JSON.parse(
      Bridge.failure(
        JSON.stringify({
          hook_event_name: "PostToolUse",
          tool_name: "mcp__vault__get",
          tool_input: {},
          tool_response: SECRET
        }),
        "x"
      ).stdout
    )
    assert.deepStrictEqual(post.hookSpecificOutput.updatedMCPToolOutput, {
      content: [{ type: "text", text: "Result withheld: Interlock could not check this tool's output." }],
      isError: true
    })
    assert.strictEqual(post.decision, "block")
    assert.strictEqual(Bridge.failure("nope", "x").exitCode, 2)
  })
})
