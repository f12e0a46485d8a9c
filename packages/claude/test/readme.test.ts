/** The README's example, run as written: Claude-style hooks and a command hook in the pipeline. */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Interlock, NativeTool, Policy, ToolCalls, ToolTransport } from "@interlock/core"
import { Cause, Effect, Exit, Layer, Schema } from "effect"
import { ClaudeHooks, Hook } from "../src/index.ts"
import { scriptDir } from "./scripts.ts"

const dir = scriptDir()
afterAll(() => dir.remove())

describe("README example", () => {
  it.live("guards Bash with a function and a command hook, and allows what the policy allows", () =>
    Effect.gen(function*() {
      const guard = dir.script("guard.sh", `grep -q "curl" && { echo "no network" >&2; exit 2; }; exit 0`)
      const hooks = yield* ClaudeHooks.toInterlock({
        PreToolUse: [
          {
            matcher: "Bash",
            hooks: [
              (input) =>
                String((input as { tool_input: { command?: string } }).tool_input.command).includes("rm -rf /")
                  ? ["deny", { permissionDecisionReason: "Dangerous command blocked" }]
                  : "ok"
            ]
          },
          { matcher: "Bash|mcp__fs__.*", hooks: [Hook.command({ command: guard, timeout: "10 seconds" })] }
        ]
      })
      const bash = NativeTool.make({
        name: "Bash",
        parameters: Schema.Struct({ command: Schema.String }),
        run: ({ command }) => `ran: ${command}`
      })
      const layer = Interlock.layer({
        hooks,
        policy: Policy.rules({ rules: [{ match: "claude/*", decision: "allow" }] })
      })
        .pipe(Layer.provide(ToolTransport.fromTools([bash], { serverId: "claude" })))
      const outcome = (command: string) =>
        Effect.flatMap(
          ToolCalls,
          (calls) => Effect.exit(calls.callTool({ serverId: "claude", name: "Bash", args: { command } }))
        )
      yield* Effect.gen(function*() {
        const ok = yield* outcome("ls")
        assert.strictEqual(Exit.isSuccess(ok) ? ok.value.text : "", "ran: ls")
        for (
          const [command, message] of [["rm -rf /", "Dangerous command blocked"], [
            "curl http://127.0.0.1",
            "no network"
          ]]
        ) {
          const exit = yield* outcome(command)
          const error = Exit.isFailure(exit) ? Cause.findErrorOption(exit.cause) : undefined
          assert.include(error?._tag === "Some" ? error.value.message : "", message)
        }
      }).pipe(Effect.provide(layer))
    }))
})
