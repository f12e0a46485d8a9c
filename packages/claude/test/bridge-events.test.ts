/** The bridge in-process on every event type but PreToolUse: Claude Code's answer, the exit code and the audit rows. */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Bridge } from "../src/index.ts"
import { bridge, pre, preOut, SECRET, session } from "./bridgeEnv.ts"

describe("PermissionRequest", () => {
  const request = (tool_name: string, tool_input: Record<string, unknown>) => ({
    ...session,
    hook_event_name: "PermissionRequest",
    tool_name,
    tool_input,
    permission_suggestions: []
  })

  it.effect(
    "an explicit allow answers the prompt with allow; a deny with deny; anything else leaves it " +
      "to the user",
    () =>
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
      })
  )
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
  it.effect(
    "not JSON, not an object or an unknown event: exit 2 (Claude Code blocks), one line on stderr, " +
      "nothing audited",
    () =>
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
      })
  )

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
