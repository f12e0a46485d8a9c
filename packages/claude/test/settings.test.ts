/** Claude Code settings.json `hooks` sections loaded into Interlock hooks, run with real scripts. */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Denied, type ToolResult } from "@interlock/core"
import { Cause, Effect, Exit, type Layer } from "effect"
import { compileSettings, fromSettings, settingsHooks } from "../src/index.ts"
import { callTool, pipeline } from "./fixtures.ts"
import { scriptDir } from "./scripts.ts"

const dir = scriptDir()
afterAll(() => dir.remove())

const guard = dir.script(
  "guard.sh",
  `input=$(cat)
case "$input" in
  *'rm -rf'*) echo "refusing rm -rf" >&2; exit 2 ;;
esac
exit 0`
)
const redact = dir.script(
  "redact.sh",
  `cat >/dev/null
echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedMCPToolOutput":{"content":[{"type":"text","text":"[REDACTED]"}]}}}'`
)

const settings = {
  permissions: { allow: ["Bash(ls:*)"] },
  hooks: {
    PreToolUse: [{ matcher: "Bash|mcp__fs__.*", hooks: [{ type: "command", command: guard, timeout: 60 }] }],
    PostToolUse: [{ matcher: "mcp__vault__.*", hooks: [{ type: "command", command: redact }] }]
  }
}

const run = (body: Effect.Effect<void, unknown, any>) =>
  Effect.gen(function*() {
    const hooks = yield* settingsHooks(settings)
    yield* Effect.provide(body, pipeline(hooks).layer as Layer.Layer<any>)
  })

describe("settings.json hooks", () => {
  it.live("a PreToolUse command hook guards both Claude's Bash and an MCP tool", () =>
    run(Effect.gen(function*() {
      for (const [server, tool] of [["claude", "Bash"], ["fs", "write_file"]]) {
        const exit = yield* callTool(server, tool, { command: "rm -rf /" })
        const error = Exit.isFailure(exit) ? Cause.findErrorOption(exit.cause) : undefined
        assert.instanceOf(error?._tag === "Some" ? error.value : undefined, Denied, `${server}/${tool}`)
        assert.include(error?._tag === "Some" ? String(error.value.message) : "", "refusing rm -rf")
      }
      assert.isTrue(Exit.isSuccess(yield* callTool("claude", "Bash", { command: "ls" })))
      assert.isTrue(
        Exit.isSuccess(yield* callTool("git", "status", { command: "rm -rf /" })),
        "the matcher does not select git"
      )
    })))

  it.live("a PostToolUse command hook redacts an MCP tool's output", () =>
    run(Effect.gen(function*() {
      const exit = yield* callTool("vault", "get_secret", { name: "db" })
      assert.strictEqual(Exit.isSuccess(exit) ? (exit.value as ToolResult).text : "", "[REDACTED]")
    })))

  it.effect("timeouts are seconds, as in Claude Code; the default is 60 s", () =>
    Effect.gen(function*() {
      const hooks = yield* compileSettings(settings)
      assert.strictEqual(hooks.PreToolUse[0].timeoutMs, 60_000)
      assert.strictEqual(hooks.PostToolUse[0].timeoutMs, 60_000)
      const short = yield* compileSettings({
        hooks: { Stop: [{ hooks: [{ type: "command", command: "true", timeout: 1.5, async: true }] }] }
      })
      assert.strictEqual(short.Stop[0].timeoutMs, 1_500)
      assert.isTrue(short.Stop[0].async)
      assert.strictEqual(short.Stop[0].matcher, "*")
    }))

  it.effect("rejects what it cannot run, naming the place", () =>
    Effect.gen(function*() {
      const cases: Array<[unknown, string]> = [
        [
          { hooks: { PreToolUse: [{ hooks: [{ type: "prompt", prompt: "is this safe?" }] }] } },
          "hooks.PreToolUse[0].hooks[0].type"
        ],
        [{ hooks: { SessionStart: [] } }, "hooks.SessionStart"],
        [
          { hooks: { PreToolUse: [{ hooks: [{ type: "command", command: "" }] }] } },
          "hooks.PreToolUse[0].hooks[0].command"
        ],
        [
          { hooks: { PreToolUse: [{ hooks: [{ type: "command", command: "x", timeout: 0 }] }] } },
          "hooks.PreToolUse[0].hooks[0].timeout"
        ],
        [
          { hooks: { PreToolUse: [{ hooks: [{ type: "command", command: "x", shell: "zsh" }] }] } },
          "hooks.PreToolUse[0].hooks[0]"
        ],
        [{ hooks: { PreToolUse: [{ matcher: 3, hooks: [] }] } }, "hooks.PreToolUse[0].matcher"],
        [{ hooks: { PreToolUse: [{ matcher: "([", hooks: [] }] } }, "hooks.PreToolUse[0].matcher"],
        [{ hooks: { PreToolUse: {} } }, "hooks.PreToolUse"],
        [{ hooks: [] }, "hooks"],
        ["nope", "settings"]
      ]
      for (const [input, path] of cases) {
        const error = yield* Effect.flip(compileSettings(input))
        assert.strictEqual(error.path, path, JSON.stringify(input))
      }
    }))

  it.effect("ignoreUnknown skips events and hook types Interlock cannot run", () =>
    Effect.gen(function*() {
      const config = yield* fromSettings(
        {
          hooks: {
            SessionStart: [{ hooks: [] }],
            PreToolUse: [{ hooks: [{ type: "prompt", prompt: "?" }, { type: "command", command: "true" }] }]
          }
        },
        { ignoreUnknown: true }
      )
      assert.deepStrictEqual(Object.keys(config), ["PreToolUse"])
      assert.strictEqual(config.PreToolUse?.[0].hooks.length, 1)
    }))
})
