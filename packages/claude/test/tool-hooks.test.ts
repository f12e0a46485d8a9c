/** Claude-style hooks in the Interlock pipeline: deny and block deny, updatedInput rewrites, allow is not a verdict. */
import { assert, describe, it } from "@effect/vitest"
import { Denied, HookFailed, type ToolResult } from "@interlock/core"
import { Cause, Deferred, Effect, Exit, type Layer } from "effect"
import { ClaudeHooks, type ClaudeHooksConfig, type ClaudeInput, ClaudeMeta } from "../src/index.ts"
import { callTool, pipeline } from "./fixtures.ts"

const withHooks = (config: ClaudeHooksConfig) =>
  Effect.flatMap(ClaudeHooks.toInterlock(config), (hooks) => Effect.succeed(pipeline(hooks)))

const run = <A, E>(config: ClaudeHooksConfig, body: (calls: ReadonlyArray<unknown>) => Effect.Effect<A, E, any>) =>
  Effect.gen(function*() {
    const { calls, layer } = yield* withHooks(config)
    return yield* Effect.provide(body(calls), layer as Layer.Layer<any>)
  })

const errorOf = (exit: Exit.Exit<ToolResult, unknown>) => {
  assert.isTrue(Exit.isFailure(exit), "expected the call to fail")
  const error = Cause.findErrorOption((exit as Exit.Failure<ToolResult, unknown>).cause)
  assert.strictEqual(error._tag, "Some")
  return (error as { value: unknown }).value
}
const resultOf = (exit: Exit.Exit<ToolResult, unknown>): ToolResult => {
  assert.isTrue(Exit.isSuccess(exit), "expected the call to succeed")
  return (exit as Exit.Success<ToolResult, unknown>).value
}

describe("PreToolUse hooks as preToolCall hooks", () => {
  it.effect("deny denies with the hook's reason, and nothing is sent", () =>
    run({
      PreToolUse: [{
        matcher: "Bash",
        hooks: [() => ["deny", { permissionDecisionReason: "Dangerous command blocked" }]]
      }]
    }, (calls) =>
      Effect.gen(function*() {
        const error = errorOf(yield* callTool("claude", "Bash", { command: "rm -rf /" }))
        assert.instanceOf(error, Denied)
        assert.deepStrictEqual((error as Denied).reason, {
          _tag: "HookDenied",
          hookId: "PreToolUse[0].0",
          message: "Dangerous command blocked"
        })
        assert.strictEqual(calls.length, 0)
      })))

  it.effect("block denies too", () =>
    run({ PreToolUse: [{ hooks: [() => ["block", { reason: "Rate limited" }]] }] }, () =>
      Effect.gen(function*() {
        const error = errorOf(yield* callTool("fs", "read_file", {}))
        assert.strictEqual((error as Denied).message, "denied by hook PreToolUse[0].0: Rate limited")
      })))

  it.effect("updatedInput rewrites the call that is sent", () =>
    run(
      { PreToolUse: [{ matcher: "Bash", hooks: [() => ["ok", { updatedInput: { command: "ls" } }]] }] },
      (calls) =>
        Effect.gen(function*() {
          const result = resultOf(yield* callTool("claude", "Bash", { command: "rm -rf /" }))
          assert.strictEqual(result.text, `{"command":"ls"}`)
          assert.deepStrictEqual((calls[0] as { args: unknown }).args, { command: "ls" })
          assert.strictEqual(result.receipt?.hooks[0].status, "rewrite")
        })
    ))

  it.effect("allow and ask are not hook verdicts: bad_return, the call fails closed", () =>
    Effect.gen(function*() {
      for (const answer of ["allow", ["allow", {}], ["ask", { permissionDecisionReason: "?" }]] as const) {
        yield* run({ PreToolUse: [{ hooks: [() => answer] }] }, (calls) =>
          Effect.gen(function*() {
            const error = errorOf(yield* callTool("claude", "Bash", {}))
            assert.instanceOf(error, HookFailed)
            assert.strictEqual((error as HookFailed).kind, "bad_return")
            assert.strictEqual(calls.length, 0)
          }))
      }
    }))

  it.effect("a return outside the table (a warning in Claude Code) is a bad_return here", () =>
    run({ PreToolUse: [{ hooks: [() => "sure" as never] }] }, () =>
      Effect.gen(function*() {
        assert.deepInclude(errorOf(yield* callTool("claude", "Bash", {})), { kind: "bad_return" })
      })))

  it.effect("a hook that throws, or whose Effect fails, fails the call (raise)", () =>
    Effect.gen(function*() {
      const throws = () => {
        throw new Error("sk-secret")
      }
      for (const hook of [throws, () => Effect.fail("nope"), () => Promise.reject(new Error("x"))]) {
        yield* run({ PreToolUse: [{ hooks: [hook as never] }] }, () =>
          Effect.gen(function*() {
            const error = errorOf(yield* callTool("claude", "Bash", {}))
            assert.deepInclude(error, { _tag: "HookFailed", kind: "raise" })
            assert.notInclude(String((error as HookFailed).message), "sk-secret")
          }))
      }
    }))

  it.effect("\"ok\" and no opinion let the call through to the policy", () =>
    run({ PreToolUse: [{ hooks: [() => "ok", () => ["ok", {}]] }] }, (calls) =>
      Effect.gen(function*() {
        resultOf(yield* callTool("claude", "Bash", { command: "ls" }))
        assert.strictEqual(calls.length, 1)
      })))

  it.effect("halt answers with an error result recording the stop, without sending", () =>
    run(
      { PreToolUse: [{ hooks: [() => ["halt", { stopReason: "Budget exhausted" }]] }] },
      (calls) =>
        Effect.gen(function*() {
          const result = resultOf(yield* callTool("claude", "Bash", {}))
          assert.strictEqual(result.isError, true)
          assert.strictEqual(ClaudeMeta.haltOf(result.meta), "Budget exhausted")
          assert.strictEqual(result.receipt?.outcome, "halted")
          assert.strictEqual(calls.length, 0)
        })
    ))

  it.effect("additionalContext travels in the call's _meta", () =>
    run(
      { PreToolUse: [{ hooks: [() => ["ok", { additionalContext: "prod database" }]] }] },
      (calls) =>
        Effect.gen(function*() {
          resultOf(yield* callTool("claude", "Bash", {}))
          assert.deepStrictEqual(ClaudeMeta.contextOf((calls[0] as { meta: never }).meta), ["prod database"])
        })
    ))

  it.effect("the hook gets Claude's input: names, args, call id, session fields and unknown keys as they came", () =>
    Effect.gen(function*() {
      const seen: Array<[ClaudeInput, string | undefined]> = []
      yield* run(
        { PreToolUse: [{ hooks: [(input, id) => (seen.push([input, id]), "ok")] }] },
        () =>
          callTool("fs", "read_file", { path: "/etc/hosts" }, {
            claude: { session_id: "s-9", cwd: "/w", permission_mode: "plan", x_future: [1] }
          })
      )
      assert.deepStrictEqual(seen[0][0], {
        session_id: "s-9",
        cwd: "/w",
        permission_mode: "plan",
        x_future: [1],
        hook_event_name: "PreToolUse",
        tool_name: "mcp__fs__read_file",
        tool_input: { path: "/etc/hosts" },
        tool_use_id: "toolu_42"
      } as never)
      assert.strictEqual(seen[0][1], "toolu_42")
    }))

  it.effect("matchers are anchored regexes on Claude tool names", () =>
    Effect.gen(function*() {
      const seen: Array<string> = []
      const config: ClaudeHooksConfig = {
        PreToolUse: [{
          matcher: "Bash|mcp__fs__.*",
          hooks: [(input) => (seen.push((input as { tool_name: string }).tool_name), "ok")]
        }]
      }
      yield* run(config, () =>
        Effect.gen(function*() {
          for (
            const [server, tool] of [["claude", "Bash"], ["claude", "BashOutput"], ["fs", "read_file"], [
              "git",
              "fs__x"
            ], ["claude", "Write"]]
          ) {
            yield* callTool(server, tool, {})
          }
        }))
      assert.deepStrictEqual(seen, ["Bash", "mcp__fs__read_file"])
    }))

  it.effect("an async hook runs detached as an observer: the call does not wait, the hook still runs", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const hook = {
        async: true,
        run: () =>
          Effect.andThen(
            Deferred.succeed(started, undefined),
            Effect.as(Deferred.await(release), ["deny", {}] as const)
          )
      }
      yield* run({ PreToolUse: [{ hooks: [hook] }] }, (calls) =>
        Effect.gen(function*() {
          resultOf(yield* callTool("claude", "Bash", {}))
          assert.strictEqual(calls.length, 1)
        }))
      yield* Deferred.await(started)
      yield* Deferred.succeed(release, undefined)
    }))
})

describe("PostToolUse and PostToolUseFailure hooks", () => {
  it.effect("updatedMCPToolOutput replaces the result (redaction)", () =>
    run({
      PostToolUse: [{
        matcher: "mcp__fs__.*",
        hooks: [() => ["ok", { updatedMCPToolOutput: { content: [{ type: "text", text: "[REDACTED]" }] } }]]
      }]
    }, () =>
      Effect.gen(function*() {
        const result = resultOf(yield* callTool("fs", "read_file", { path: "secrets" }))
        assert.strictEqual(result.text, "[REDACTED]")
        assert.strictEqual(result.receipt?.hooks[0].status, "replace")
      })))

  it.effect("the hook sees the response as a CallToolResult", () =>
    Effect.gen(function*() {
      const seen: Array<unknown> = []
      yield* run({
        PostToolUse: [{ hooks: [(input) => (seen.push((input as { tool_response: unknown }).tool_response), "ok")] }]
      }, () => callTool("fs", "read_file", { a: 1 }))
      assert.deepStrictEqual(seen, [{ content: [{ type: "text", text: `{"a":1}` }], isError: false }])
    }))

  it.effect("block after the call withholds the result behind an error with the reason", () =>
    run({ PostToolUse: [{ hooks: [() => ["block", { reason: "contains a key" }]] }] }, () =>
      Effect.gen(function*() {
        const result = resultOf(yield* callTool("fs", "read_file", {}))
        assert.strictEqual(result.isError, true)
        assert.strictEqual(result.text, "contains a key")
      })))

  it.effect("additionalContext is kept in the result's _meta, the content unchanged", () =>
    run(
      { PostToolUse: [{ hooks: [() => ["ok", { additionalContext: "looks fine" }]] }] },
      () =>
        Effect.gen(function*() {
          const result = resultOf(yield* callTool("fs", "read_file", { a: 1 }))
          assert.strictEqual(result.text, `{"a":1}`)
          assert.deepStrictEqual(ClaudeMeta.contextOf(result.meta), ["looks fine"])
        })
    ))

  it.effect("context from one hook survives another hook's redaction", () =>
    run({
      PostToolUse: [{
        hooks: [
          () => ["ok", { additionalContext: "from the outer hook" }],
          () => ["ok", {
            additionalContext: "from the inner hook",
            updatedMCPToolOutput: [{ type: "text", text: "[REDACTED]" }]
          }]
        ]
      }]
    }, () =>
      Effect.gen(function*() {
        const result = resultOf(yield* callTool("fs", "read_file", { a: 1 }))
        assert.strictEqual(result.text, "[REDACTED]")
        assert.sameMembers([...ClaudeMeta.contextOf(result.meta)], ["from the outer hook", "from the inner hook"])
      })))

  it.effect("allow on PostToolUse is a bad_return: the result is withheld", () =>
    run({ PostToolUse: [{ hooks: [() => "allow"] }] }, () =>
      Effect.gen(function*() {
        const result = resultOf(yield* callTool("fs", "read_file", { a: 1 }))
        assert.strictEqual(result.receipt?.outcome, "withheld")
      })))

  it.effect("PostToolUseFailure hooks observe the error; the error stands", () =>
    Effect.gen(function*() {
      const seen: Array<unknown> = []
      const config: ClaudeHooksConfig = {
        PreToolUse: [{ hooks: [() => ["deny", { permissionDecisionReason: "no" }]] }],
        PostToolUseFailure: [{
          hooks: [(input) => (seen.push((input as { error: string }).error), ["ok", { additionalContext: "x" }])]
        }]
      }
      yield* run(config, () =>
        Effect.gen(function*() {
          assert.instanceOf(errorOf(yield* callTool("claude", "Bash", {})), Denied)
        }))
      assert.deepStrictEqual(seen, ["denied by hook PreToolUse[0].0: no"])
    }))
})

describe("compiling a Claude hooks config", () => {
  it.effect("rejects bad configs with a SettingsError naming the place", () =>
    Effect.gen(function*() {
      const cases: Array<[unknown, string]> = [
        [{ PreToolUse: [{ matcher: "(", hooks: [() => "ok"] }] }, "hooks.PreToolUse[0].matcher"],
        [{ SessionStart: [] }, "hooks.SessionStart"],
        [{ PreToolUse: [{ hooks: ["echo"] }] }, "hooks.PreToolUse[0].hooks[0]"],
        [{ PreToolUse: [{ hooks: [{ run: () => "ok", timeout: -1 }] }] }, "hooks.PreToolUse[0].hooks[0]"],
        [
          { PreToolUse: [{ hooks: [{ run: () => "ok", id: "a" }, { run: () => "ok", id: "a" }] }] },
          "hooks.PreToolUse[0].hooks[1]"
        ],
        [{ PreToolUse: [{ matcher: "x", hooks: [], extra: 1 }] }, "hooks.PreToolUse[0]"],
        [{ Stop: {} }, "hooks.Stop"]
      ]
      for (const [config, path] of cases) {
        const error = yield* Effect.flip(ClaudeHooks.compile(config as never))
        assert.strictEqual(error._tag, "SettingsError")
        assert.strictEqual(error.path, path)
      }
    }))
})
