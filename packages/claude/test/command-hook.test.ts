/** Command hooks with real shell scripts: Claude Code's protocol, failing closed on everything else. */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Denied, HookFailed, Interlock, NativeTool, Policy, ToolCalls, ToolTransport } from "@interlock/core"
import { Effect, Fiber, Layer, Result, Schema } from "effect"
import {
  type ClaudeHookFailed,
  ClaudeHooks,
  type ClaudeHookSpec,
  type ClaudeInput,
  Hook,
  toWire
} from "../src/index.ts"
import { alive, goneSoon, scriptDir, waitForPid } from "./scripts.ts"

const dir = scriptDir()
afterAll(() => dir.remove())

const PRE: ClaudeInput = {
  hook_event_name: "PreToolUse",
  session_id: "s-1",
  cwd: "/work",
  permission_mode: "default",
  tool_name: "Bash",
  tool_input: { command: "rm -rf /" },
  tool_use_id: "toolu_1",
  future_field: { kept: true }
}
const STOP: ClaudeInput = { hook_event_name: "Stop", session_id: "s-1", stop_hook_active: false }

const runHook = (spec: ClaudeHookSpec, input: ClaudeInput = PRE) =>
  Effect.gen(function*() {
    const hooks = yield* ClaudeHooks.compile({ [input.hook_event_name]: [{ hooks: [spec] }] })
    return yield* Effect.result(ClaudeHooks.invoke(hooks[input.hook_event_name][0], input, 60_000))
  })

const failureOf = <A>(result: Result.Result<A, ClaudeHookFailed>): ClaudeHookFailed => {
  assert.isTrue(Result.isFailure(result), "expected the hook to fail")
  return (result as Result.Failure<A, ClaudeHookFailed>).failure
}

const wireOf = (result: Result.Result<{ output: never }, ClaudeHookFailed> | Result.Result<any, ClaudeHookFailed>) => {
  assert.isTrue(Result.isSuccess(result), "expected the hook to answer")
  return toWire((result as Result.Success<any, ClaudeHookFailed>).success.output)
}

describe("Hook.command: Claude Code's protocol", () => {
  it.live("exit 0 with JSON: the output is read, and the event went on stdin with Claude's field names", () =>
    Effect.gen(function*() {
      const script = dir.script(
        "deny-json.sh",
        `cat > "${dir.path("stdin.json")}"
echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no rm"}}'`
      )
      const result = yield* runHook(Hook.command({ command: script }))
      assert.deepStrictEqual(wireOf(result), {
        hookSpecificOutput: {
          hookEventName: "PreToolUse",
          permissionDecision: "deny",
          permissionDecisionReason: "no rm"
        }
      })
      const stdin = JSON.parse(dir.read("stdin.json"))
      assert.deepStrictEqual(stdin, PRE)
    }))

  it.live("exit 0 with nothing on stdout: no opinion", () =>
    Effect.gen(function*() {
      const result = yield* runHook(Hook.command({ command: dir.script("quiet.sh", "exit 0") }))
      assert.deepStrictEqual(wireOf(result), {})
    }))

  it.live("exit 0 with updatedInput: the rewrite is read", () =>
    Effect.gen(function*() {
      const script = dir.script(
        "rewrite.sh",
        `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"ls"}}}'`
      )
      const result = yield* runHook(Hook.command({ command: script }))
      assert.deepStrictEqual(wireOf(result), {
        hookSpecificOutput: { hookEventName: "PreToolUse", updatedInput: { command: "ls" } }
      })
    }))

  it.live("exit 0 with junk on stdout: bad_output", () =>
    Effect.gen(function*() {
      const failure = failureOf(
        yield* runHook(Hook.command({ command: dir.script("junk.sh", "echo 'sure, go ahead'") }))
      )
      assert.strictEqual(failure.kind, "bad_output")
    }))

  it.live("exit 0 with JSON that is not this event's output (another event, unknown key): bad_output", () =>
    Effect.gen(function*() {
      const other = dir.script(
        "other.sh",
        `echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"x"}}'`
      )
      assert.strictEqual(failureOf(yield* runHook(Hook.command({ command: other }))).kind, "bad_output")
      const unknown = dir.script("unknown.sh", `echo '{"allow": true}'`)
      assert.strictEqual(failureOf(yield* runHook(Hook.command({ command: unknown }))).kind, "bad_output")
    }))

  it.live("exit 2: deny on PreToolUse, with stderr as the reason", () =>
    Effect.gen(function*() {
      const script = dir.script("exit2.sh", `echo "dangerous command" >&2; exit 2`)
      const result = yield* runHook(Hook.command({ command: script }))
      assert.deepStrictEqual(wireOf(result), {
        hookSpecificOutput: {
          hookEventName: "PreToolUse",
          permissionDecision: "deny",
          permissionDecisionReason: "dangerous command"
        }
      })
    }))

  it.live("exit 2 on Stop: block with stderr as the reason", () =>
    Effect.gen(function*() {
      const script = dir.script("exit2-stop.sh", `echo "tests are failing" >&2; exit 2`)
      assert.deepStrictEqual(wireOf(yield* runHook(Hook.command({ command: script }), STOP)), {
        decision: "block",
        reason: "tests are failing"
      })
    }))

  it.live("exit 1: a failure (exit, code 1), where Claude Code would go on", () =>
    Effect.gen(function*() {
      const failure = failureOf(
        yield* runHook(Hook.command({ command: dir.script("exit1.sh", `echo "secret-token-123" >&2; exit 1`) }))
      )
      assert.strictEqual(failure.kind, "exit")
      assert.strictEqual(failure.exitCode, 1)
      assert.notInclude(failure.message, "secret-token-123")
    }))

  it.live("killed by a signal: a failure (exit, no code)", () =>
    Effect.gen(function*() {
      const failure = failureOf(yield* runHook(Hook.command({ command: "kill -9 $$" })))
      assert.strictEqual(failure.kind, "exit")
      assert.isUndefined(failure.exitCode)
    }))

  it.live("hanging: a timeout, and the whole process group is killed", () =>
    Effect.gen(function*() {
      const script = dir.script("hang.sh", `sleep 300 & echo $! > "${dir.path("hang.pid")}"; wait`)
      const started = Date.now()
      const failure = failureOf(yield* runHook(Hook.command({ command: script, timeout: 400 })))
      assert.strictEqual(failure.kind, "timeout")
      assert.isBelow(Date.now() - started, 10_000)
      const pid = yield* Effect.promise(() =>
        waitForPid(() => (dir.exists("hang.pid") ? dir.read("hang.pid") : undefined))
      )
      assert.isTrue(
        yield* Effect.promise(() => goneSoon(pid)),
        "the background child of the hook must be killed with its group"
      )
    }))

  it.live("a leftover child holding stdout open does not keep the hook waiting", () =>
    Effect.gen(function*() {
      const script = dir.script(
        "holder.sh",
        `sleep 300 & echo $! > "${dir.path("holder.pid")}"; echo '{"continue": true}'; exit 0`
      )
      const started = Date.now()
      assert.deepStrictEqual(wireOf(yield* runHook(Hook.command({ command: script, timeout: 20_000 }))), {
        continue: true
      })
      assert.isBelow(Date.now() - started, 10_000)
      assert.isTrue(yield* Effect.promise(() => goneSoon(Number(dir.read("holder.pid")))))
    }))

  it.live("interrupting a running command kills its process group", () =>
    Effect.gen(function*() {
      const script = dir.script("interrupt.sh", `sleep 300 & echo $! > "${dir.path("int.pid")}"; wait`)
      const fiber = yield* Effect.forkChild(runHook(Hook.command({ command: script })))
      const pid = yield* Effect.promise(() =>
        waitForPid(() => (dir.exists("int.pid") ? dir.read("int.pid") : undefined))
      )
      assert.isTrue(alive(pid))
      yield* Fiber.interrupt(fiber)
      assert.isTrue(yield* Effect.promise(() => goneSoon(pid)), "interruption kills the group")
    }))

  it.live("huge output: bad_output once past maxOutputBytes, and the producer is killed", () =>
    Effect.gen(function*() {
      const script = dir.script(
        "huge.sh",
        `echo $$ > "${dir.path("huge.pid")}"; yes aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa`
      )
      const failure = failureOf(
        yield* runHook(Hook.command({ command: script, maxOutputBytes: 64 * 1024, timeout: 20_000 }))
      )
      assert.strictEqual(failure.kind, "bad_output")
      assert.isTrue(yield* Effect.promise(() => goneSoon(Number(dir.read("huge.pid")))))
    }))

  it.live("a missing executable: spawn (the shell's 127), not a pass", () =>
    Effect.gen(function*() {
      const failure = failureOf(yield* runHook(Hook.command({ command: dir.path("no-such-hook") })))
      assert.strictEqual(failure.kind, "spawn")
      assert.strictEqual(failure.exitCode, 127)
    }))

  it.effect("an invalid timeout is rejected when the config is compiled", () =>
    Effect.gen(function*() {
      for (const timeout of [-5, 0, "soon"]) {
        const error = yield* Effect.flip(
          ClaudeHooks.compile({
            PreToolUse: [{ hooks: [Hook.command({ command: "true", timeout: timeout as never })] }]
          })
        )
        assert.deepInclude(error, { _tag: "SettingsError", path: "hooks.PreToolUse[0].hooks[0]" })
      }
    }))

  it.live("a working directory that does not exist: spawn", () =>
    Effect.gen(function*() {
      const failure = failureOf(yield* runHook(Hook.command({ command: "true", cwd: dir.path("missing-dir") })))
      assert.strictEqual(failure.kind, "spawn")
    }))

  it.live("a background child left behind by a finished hook is killed with its group", () =>
    Effect.gen(function*() {
      const script = dir.script("leak.sh", `sleep 300 >/dev/null 2>&1 & echo $! > "${dir.path("leak.pid")}"; exit 0`)
      assert.deepStrictEqual(wireOf(yield* runHook(Hook.command({ command: script }))), {})
      const pid = Number(dir.read("leak.pid"))
      assert.isTrue(yield* Effect.promise(() => goneSoon(pid)))
    }))
})

describe("Hook.command in the pipeline: a failing guard denies", () => {
  const echo = NativeTool.make({
    name: "Bash",
    parameters: Schema.Struct({ command: Schema.String }),
    run: ({ command }) => `ran ${command}`
  })
  const pipeline = (spec: ClaudeHookSpec) =>
    Layer.unwrap(
      Effect.map(ClaudeHooks.toInterlock({ PreToolUse: [{ matcher: "Bash", hooks: [spec] }] }), (hooks) =>
        Interlock.layer({ hooks, policy: Policy.allowAll }).pipe(
          Layer.provide(ToolTransport.fromTools([echo], { serverId: "claude" }))
        ))
    )
  const callBash = Effect.flatMap(
    ToolCalls,
    (calls) => Effect.flip(calls.callTool({ serverId: "claude", name: "Bash", args: { command: "rm -rf /" } }))
  )

  it.live("exit 2 denies the call with the script's reason", () =>
    Effect.gen(function*() {
      const error = yield* callBash.pipe(
        Effect.provide(pipeline(Hook.command({ command: dir.script("p-exit2.sh", `echo "no rm" >&2; exit 2`) })))
      )
      assert.instanceOf(error, Denied)
      assert.strictEqual((error as Denied).message, "denied by hook PreToolUse[0].0: no rm")
    }))

  for (
    const [name, body, kind] of [
      ["exit 1", "exit 1", "raise"],
      ["junk", "echo junk", "raise"],
      ["missing executable", "/no/such/binary", "raise"]
    ] as const
  ) {
    it.live(`${name} fails the call closed (HookFailed ${kind})`, () =>
      Effect.gen(function*() {
        const error = yield* callBash.pipe(
          Effect.provide(pipeline(Hook.command({ command: dir.script(`p-${kind}-${name.length}.sh`, body) })))
        )
        assert.instanceOf(error, HookFailed)
        assert.deepInclude(error, { hookId: "PreToolUse[0].0", kind })
        assert.isFalse((error as HookFailed).receipt?.sent)
      }))
  }

  it.live("a hanging command times out under the hook's deadline: HookFailed timeout, nothing sent", () =>
    Effect.gen(function*() {
      const error = yield* callBash.pipe(
        Effect.provide(pipeline(Hook.command({ command: dir.script("p-hang.sh", "exec sleep 300"), timeout: 300 })))
      )
      assert.instanceOf(error, HookFailed)
      assert.deepInclude(error, { kind: "timeout" })
      assert.isFalse((error as HookFailed).receipt?.sent)
    }))
})
