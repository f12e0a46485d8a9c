import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Exit, Layer, Schema } from "effect"
import { ConfigError, Hooks, type HooksConfig, Verdict } from "../src/index.ts"

const cont = () => Verdict.continue

const configError = (config: unknown) =>
  Effect.gen(function*() {
    const exit = yield* Effect.exit(Hooks.compile(config as HooksConfig))
    assert.isTrue(Exit.isFailure(exit), "expected a ConfigError")
    const error = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
    assert.strictEqual(error?._tag, "Fail")
    const failure = (error as { error: ConfigError }).error
    assert.instanceOf(failure, ConfigError)
    return failure
  })

describe("Hooks.compile", () => {
  it.effect("names the event and the entry (index and id) of each kind of mistake", () =>
    Effect.gen(function*() {
      const cases: Array<[unknown, string, RegExp]> = [
        [{ preToolCal: [] }, "preToolCal", /unknown event/],
        [{ preToolCall: {} }, "preToolCall", /array/],
        [{ preToolCall: [{ match: "/tool", run: cont }] }, "preToolCall[0]", /match/],
        [
          { preToolCall: [{ match: "*", run: cont }, { match: 7, run: cont, id: "x" }] },
          `preToolCall[1] (id "x")`,
          /match/
        ],
        [{ postToolCall: [{ match: "*", run: "not a function" }] }, "postToolCall[0]", /run must be a function/],
        [
          { preToolCall: [{ match: "*", run: (_a: unknown, _b: unknown, _c: unknown) => Verdict.continue }] },
          "preToolCall[0]",
          /3 arguments/
        ],
        [
          { preToolCall: [{ match: "*", run: cont, id: "a" }], postToolCall: [{ match: "*", run: cont, id: "a" }] },
          `postToolCall[0] (id "a")`,
          /duplicate/
        ],
        [{ preToolCall: [{ match: "*", run: cont, onError: "ignore" }] }, "preToolCall[0]", /onError is not accepted/],
        [{ postToolCall: [{ match: "*", run: cont, onError: "maybe" }] }, "postToolCall[0]", /onError must be/],
        [{ preToolCall: [{ match: "*", run: cont, timeout: 0 }] }, "preToolCall[0]", /timeout/],
        [{ preToolCall: [{ match: "*", run: cont, timeout: -5 }] }, "preToolCall[0]", /timeout/],
        [{ preToolCall: [{ match: "*", run: cont, timeout: "Infinity" }] }, "preToolCall[0]", /timeout/],
        [{ preToolCall: [{ match: "*", run: cont, retries: 3 }] }, "preToolCall[0]", /unknown option "retries"/],
        [{ preToolCall: [["*", cont, { bogus: true }]] }, "preToolCall[0]", /unknown option "bogus"/],
        [{ preToolCall: [["*"]] }, "preToolCall[0]", /tuple/],
        [{ preToolCall: [{ match: "*", run: cont, kind: "allow" }] }, "preToolCall[0]", /kind/],
        [{ preToolCall: [{ match: "*", run: cont, required: "yes" }] }, "preToolCall[0]", /required/],
        [[], "hooks", /object/]
      ]
      for (const [config, path, detail] of cases) {
        const error = yield* configError(config)
        assert.strictEqual(error.path, path, JSON.stringify(error.message))
        assert.match(error.detail, detail)
      }
    }))

  it.effect("accepts object and tuple entries, and passes a compiled value through unchanged", () =>
    Effect.gen(function*() {
      const compiled = yield* Hooks.compile({
        preToolCall: [["*", cont], ["fs/*", cont, { id: "srv", timeout: "2 seconds" }], {
          match: "fs/read",
          run: cont,
          kind: "guard",
          required: true
        }],
        postToolCall: [{ match: "*", run: cont, onError: "ignore" }]
      })
      assert.deepStrictEqual(compiled.byEvent.preToolCall.map((h) => h.id), ["preToolCall[0]", "srv", "preToolCall[2]"])
      assert.strictEqual(compiled.byEvent.preToolCall[1].timeoutMs, 2000)
      assert.strictEqual(yield* Hooks.compile(compiled), compiled)
      assert.isFalse(Hooks.isEmpty(compiled))
      assert.isTrue(Hooks.isEmpty(yield* Hooks.compile({})))
      assert.isTrue(Hooks.isEmpty(yield* Hooks.compile({ preToolCall: [] })))
    }))

  it.effect("orders pre hooks global -> server -> tool, and post/failure hooks in reverse (HK-4)", () =>
    Effect.gen(function*() {
      const entries = [
        { match: "fs/read", run: cont, id: "tool-1" },
        { match: "fs/*", run: cont, id: "server-1" },
        { match: "*", run: cont, id: "global-1" },
        { match: "read", run: cont, id: "tool-2" },
        { match: "all", run: cont, id: "global-2" },
        { match: "web/*", run: cont, id: "server-2" }
      ]
      const compiled = yield* Hooks.compile({
        preToolCall: entries,
        postToolCall: entries.map((e) => ({ ...e, id: `post-${e.id}` })),
        toolCallFailed: entries.map((e) => ({ ...e, id: `failed-${e.id}` }))
      })
      const order = ["global-1", "global-2", "server-1", "server-2", "tool-1", "tool-2"]
      assert.deepStrictEqual(compiled.byEvent.preToolCall.map((h) => h.id), order)
      assert.deepStrictEqual(compiled.byEvent.postToolCall.map((h) => h.id), order.map((id) => `post-${id}`).reverse())
      assert.deepStrictEqual(
        compiled.byEvent.toolCallFailed.map((h) => h.id),
        order.map((id) => `failed-${id}`).reverse()
      )
    }))

  it.effect.prop(
    "any junk config gives a ConfigError, never a crash",
    [Schema.Unknown],
    ([junk]) =>
      Effect.gen(function*() {
        const exit = yield* Effect.exit(Hooks.compile({ preToolCall: [junk] } as HooksConfig))
        assert.isTrue(Exit.isFailure(exit))
        const whole = yield* Effect.exit(Hooks.compile(junk as HooksConfig))
        if (Exit.isFailure(whole)) {
          assert.strictEqual(whole.cause.reasons[0]._tag, "Fail")
        } else {
          // Only an object without events compiles: it has no hooks.
          assert.isTrue(Hooks.isEmpty(whole.value))
        }
      })
  )

  it.effect.prop(
    "valid entries with random option values are accepted or rejected, never thrown",
    [Schema.Struct({
      id: Schema.optional(Schema.Unknown),
      timeout: Schema.optional(Schema.Unknown),
      onError: Schema.optional(Schema.Unknown),
      kind: Schema.optional(Schema.Unknown)
    })],
    ([options]) =>
      Effect.gen(function*() {
        const exit = yield* Effect.exit(
          Hooks.compile({ postToolCall: [{ match: "*", run: cont, ...(options as object) }] })
        )
        if (Exit.isFailure(exit)) {
          const reason = exit.cause.reasons[0]
          assert.strictEqual(reason._tag, "Fail")
          assert.match((reason as { error: ConfigError }).error.path, /^postToolCall\[0\]/)
        } else {
          assert.strictEqual(exit.value.byEvent.postToolCall.length, 1)
        }
      })
  )

  it.effect("resolves a hook given as a service tag from the Layer's context", () =>
    Effect.gen(function*() {
      class Audit
        extends Context.Service<Audit, (call: unknown, ctx: unknown) => typeof Verdict.continue>()("test/Audit")
      {}
      const seen: Array<string> = []
      const hooks = yield* Effect.provide(
        Effect.gen(function*() {
          return yield* Hooks
        }),
        Hooks.layer({ preToolCall: [{ match: "*", run: Audit, id: "audit" }] }).pipe(
          Layer.provide(Layer.succeed(Audit, () => {
            seen.push("called")
            return Verdict.continue
          }))
        )
      )
      const hook = hooks.byEvent.preToolCall[0]
      assert.strictEqual(hook.id, "audit")
      assert.strictEqual(hook.run(undefined, undefined), Verdict.continue)
      assert.deepStrictEqual(seen, ["called"])
    }))
})
