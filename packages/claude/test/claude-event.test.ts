/** Reading events at the boundary, tool names both ways, and Claude Code matchers. */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import { CLAUDE_EVENTS, ClaudeHooks, fromClaudeName, parseEvent, toClaudeName } from "../src/index.ts"

const detailOf = (exit: Exit.Exit<unknown, { detail: string }>): string => {
  assert.isTrue(Exit.isFailure(exit), "expected a BadEvent")
  return Exit.isFailure(exit) && exit.cause.reasons[0]?._tag === "Fail"
    ? (exit.cause.reasons[0].error as { detail: string }).detail
    : ""
}

const EXAMPLES: Record<string, Record<string, unknown>> = {
  PreToolUse: { tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "t1" },
  PostToolUse: {
    tool_name: "mcp__fs__read_file",
    tool_input: { path: "a" },
    tool_response: [{ type: "text", text: "x" }]
  },
  PostToolUseFailure: { tool_name: "Bash", tool_input: {}, error: "exit 1", is_interrupt: false },
  PermissionRequest: { tool_name: "Write", tool_input: { file_path: "a" }, permission_suggestions: [] },
  UserPromptSubmit: { prompt: "hi" },
  Stop: { stop_hook_active: true, last_assistant_message: "done" },
  SubagentStart: { agent_id: "a1", agent_type: "code-reviewer" },
  SubagentStop: { agent_id: "a1", agent_transcript_path: "/t", stop_hook_active: false },
  PreCompact: { trigger: "auto", custom_instructions: null },
  Notification: { message: "waiting", notification_type: "idle_prompt", title: "Claude" }
}

describe("parseEvent", () => {
  it("reads every event, keeping unknown keys as they came", () => {
    for (const event of CLAUDE_EVENTS) {
      const value = {
        hook_event_name: event,
        session_id: "s",
        cwd: "/w",
        permission_mode: "default",
        future_key: { a: [1] },
        ...EXAMPLES[event]
      }
      const exit = parseEvent(JSON.stringify(value))
      assert.isTrue(Exit.isSuccess(exit), event)
      assert.deepStrictEqual(Exit.isSuccess(exit) ? exit.value : undefined, value as never)
    }
  })

  it("says what is wrong in one line, naming fields and never their values", () => {
    assert.strictEqual(detailOf(parseEvent("{not json")), "stdin is not valid JSON")
    assert.strictEqual(detailOf(parseEvent("[1]")), "the event must be a JSON object")
    assert.strictEqual(detailOf(parseEvent("{}")), "hook_event_name is missing")
    assert.match(
      detailOf(parseEvent(`{"hook_event_name":"SessionStart"}`)),
      /^unknown hook_event_name SessionStart; the events are PreToolUse/
    )
    const missing = detailOf(parseEvent(`{"hook_event_name":"PreToolUse","tool_input":{}}`))
    assert.include(missing, `"tool_name"`)
    const wrong = detailOf(parseEvent(`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":"sk-SECRET-1"}`))
    assert.include(wrong, `"tool_input"`)
    assert.notInclude(wrong, "sk-SECRET-1")
    assert.notInclude(detailOf(parseEvent(`{"hook_event_name":"sk-SECRET-2 x"}`)), "sk-SECRET-2")
    for (const text of [missing, wrong]) assert.notInclude(text, "\n")
  })

  it.effect.prop(
    "any name that is not an event is rejected as unknown",
    [Schema.String],
    ([name]) =>
      Effect.sync(() => {
        if ((CLAUDE_EVENTS as ReadonlyArray<string>).includes(name)) return
        assert.match(detailOf(parseEvent(JSON.stringify({ hook_event_name: name }))), /^unknown hook_event_name/)
      })
  )
})

describe("tool names", () => {
  it("mcp__<server>__<tool> is server/tool; anything else is a built-in of server claude", () => {
    assert.deepStrictEqual(fromClaudeName("mcp__fs__read_file"), { serverId: "fs", name: "read_file" })
    assert.deepStrictEqual(fromClaudeName("mcp__github__create__issue"), { serverId: "github", name: "create__issue" })
    assert.deepStrictEqual(fromClaudeName("Bash"), { serverId: "claude", name: "Bash" })
    assert.deepStrictEqual(fromClaudeName("mcp__fs"), { serverId: "claude", name: "mcp__fs" })
    assert.strictEqual(toClaudeName("fs", "read_file"), "mcp__fs__read_file")
    assert.strictEqual(toClaudeName("claude", "Write"), "Write")
  })

  const segment = Schema.String.check(Schema.isPattern(/^[a-z][a-z0-9-]{0,12}$/))
  it.effect.prop("server/tool survives the round trip through Claude's name", [
    segment,
    Schema.String.check(Schema.isMinLength(1))
  ], ([server, tool]) =>
    Effect.sync(() => {
      if (server === "claude") return
      assert.deepStrictEqual(fromClaudeName(toClaudeName(server, tool)), { serverId: server, name: tool })
    }))
})

describe("Claude Code matchers", () => {
  it("are anchored regexes; *, empty and absent match everything", () => {
    const test = (matcher: string | undefined, subject: string | undefined) => {
      const m = ClaudeHooks.compileMatcher(matcher)
      return typeof m === "function" && m(subject)
    }
    assert.isTrue(test("Bash", "Bash"))
    assert.isFalse(test("Bash", "BashOutput"))
    assert.isTrue(test("Edit|Write", "Write"))
    assert.isTrue(test("mcp__fs__.*", "mcp__fs__read_file"))
    assert.isFalse(test("mcp__fs__.*", "mcp__git__fs"))
    assert.isTrue(test("Notebook.*", "NotebookEdit"))
    for (const all of ["*", "", undefined]) assert.isTrue(test(all, "anything"))
    assert.isFalse(test("Bash", undefined))
    assert.strictEqual(ClaudeHooks.compileMatcher("(unclosed"), "matcher is not a valid regular expression")
  })

  it.effect.prop("a literal tool name matches itself and nothing longer", [
    Schema.String.check(Schema.isPattern(/^[A-Za-z]{1,20}$/))
  ], ([name]) =>
    Effect.sync(() => {
      const m = ClaudeHooks.compileMatcher(name)
      assert.isTrue(typeof m === "function" && m(name) && !m(`${name}x`) && !m(`x${name}`))
    }))
})
