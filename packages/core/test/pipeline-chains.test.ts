/**
 * The seed's rules (conduit_mcp hooks) through the whole pipeline on notes, recovery, listings, gates and
 * telemetry, then the rules beyond the seed.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import {
  type Denied,
  Interlock,
  Policy,
  Tool,
  type ToolCall,
  ToolCalls,
  ToolResult,
  ToolTransport,
  TransportError,
  Verdict,
  WITHHELD_TEXT
} from "../src/index.ts"
import { capturing, spansNamed } from "./capture.ts"
import { addTool, call, client, errorOf } from "./fixtures.ts"

const cont = () => Verdict.continue

describe("seed rules: notes, recovery, listings, gates, telemetry", () => {
  it.effect("a hook's note reaches its receipt run; a run that noted nothing has no note key", () =>
    Effect.gen(function*() {
      const noted = client({
        preToolCall: [
          { match: "*", id: "watch", kind: "observe", run: () => Verdict.note("audit: invalid:error") },
          { match: "*", id: "plain", run: () => Verdict.continue }
        ],
        postToolCall: [{ match: "*", id: "after", run: () => Verdict.note("seen") }]
      })
      const result = yield* Effect.provide(call("echo", { a: 1 }), noted.layer)
      const runs = result._tag === "Success" ? result.success.receipt?.hooks ?? [] : []
      assert.deepStrictEqual(runs.map((r) => [r.id, r.status, r.note]), [
        ["watch", "continue", "audit: invalid:error"],
        ["plain", "continue", undefined],
        ["after", "continue", "seen"]
      ])
      assert.isFalse("note" in runs[1])
    }))

  it.effect("recover: a failure hook's Recover ends the chain; a failing failure hook returns the original error", () =>
    Effect.gen(function*() {
      const later: Array<string> = []
      const recovering = client({
        toolCallFailed: [
          {
            match: "*",
            id: "outer",
            run: () => {
              later.push("outer")
              return Verdict.continue
            }
          },
          {
            match: "srv/fail",
            id: "fallback",
            run: (_call, error) =>
              Verdict.recover({ content: [{ type: "text", text: `fallback after ${error._tag}` }] })
          }
        ]
      })
      const result = yield* Effect.provide(call("fail"), recovering.layer)
      assert.strictEqual(result._tag === "Success" && result.success.text, "fallback after TransportError")
      assert.strictEqual(result._tag === "Success" && result.success.receipt?.outcome, "recovered")
      assert.deepStrictEqual(later, [])
      const failing = client({
        toolCallFailed: [{
          match: "*",
          id: "bad",
          run: () => {
            throw new Error("no")
          }
        }]
      })
      const error = errorOf(yield* Effect.provide(call("fail"), failing.layer))
      assert.instanceOf(error, TransportError)
      assert.deepStrictEqual(error.receipt?.hooks.map((h) => [h.id, h.failure]), [["bad", "raise"]])
    }))

  it.effect("failure hooks see denials, timeouts and hook failures too", () =>
    Effect.gen(function*() {
      const seen: Array<string> = []
      const onFail = {
        match: "*",
        id: "seen",
        run: (_c: unknown, e: { _tag: string }) => {
          seen.push(e._tag)
          return Verdict.continue
        }
      }
      yield* Effect.provide(call("echo"), client({ toolCallFailed: [onFail] }, { policy: Policy.denyAll }).layer)
      yield* Effect.provide(
        call("echo"),
        client({
          preToolCall: [{
            match: "*",
            run: () => 1 as never
          }],
          toolCallFailed: [onFail]
        }).layer
      )
      const fiber = yield* Effect.forkChild(
        Effect.provide(call("hang"), client({ toolCallFailed: [onFail] }, { settings: { callTimeout: 50 } }).layer)
      )
      yield* TestClock.adjust(50)
      const timedOut = errorOf(yield* Fiber.join(fiber))
      assert.strictEqual(timedOut._tag, "Timeout")
      assert.deepStrictEqual(seen, ["Denied", "HookFailed", "Timeout"])
    }))

  it.effect("listing: toolsListed hooks get the tools they select and may drop or annotate them, not invent any", () =>
    Effect.gen(function*() {
      const given: Array<Array<string>> = []
      const { layer } = client({
        toolsListed: [
          {
            match: "srv/e*",
            id: "shape",
            run: (tools) => {
              given.push(tools.map((t) => t.name))
              return Verdict.replaceTools(
                tools.filter((t) => t.name !== "error").map((t) => new Tool({ ...t, description: "annotated" }))
              )
            }
          }
        ]
      })
      const tools = yield* Effect.provide(Effect.flatMap(ToolCalls, (c) => c.listTools()), layer)
      assert.deepStrictEqual(given, [["echo", "error"]])
      assert.deepStrictEqual(tools.map((t) => [t.name, t.description]), [["echo", "annotated"], ["fail", undefined], [
        "secret",
        undefined
      ], ["hang", undefined]])
      const inventing = client({
        toolsListed: [{
          match: "*",
          id: "invent",
          run: () => Verdict.replaceTools([new Tool({ serverId: "srv", name: "new", inputSchema: {} })])
        }]
      })
      const error = yield* Effect.flip(Effect.provide(Effect.flatMap(ToolCalls, (c) => c.listTools()), inventing.layer))
      assert.deepInclude(error, { hookId: "invent", kind: "bad_return", event: "toolsListed" })
      // Nor by adding to the array it was given: the verdict is checked against the listing itself.
      const smuggling = client({
        toolsListed: [{
          match: "*",
          id: "smuggle",
          run: (tools) => {
            ;(tools as Array<Tool>).push(new Tool({ serverId: "srv", name: "new", inputSchema: {} }))
            return Verdict.replaceTools(tools)
          }
        }]
      })
      const smuggled = yield* Effect.flip(
        Effect.provide(Effect.flatMap(ToolCalls, (c) => c.listTools()), smuggling.layer)
      )
      assert.deepInclude(smuggled, { hookId: "smuggle", kind: "bad_return", event: "toolsListed" })
    }))

  it.effect("gates: resourceRead and promptGet hooks deny, rewrite prompt args, and fail closed", () =>
    Effect.gen(function*() {
      const { layer, log } = client({
        resourceRead: [{
          match: { server: "srv", regex: /^secret:/ },
          id: "no-secrets",
          run: () => Verdict.deny("private")
        }],
        promptGet: [
          { match: "srv/greet", id: "lang", run: (_name, args) => Verdict.rewrite({ args: { ...args, lang: "en" } }) },
          { match: "srv/admin", id: "admin", run: () => Verdict.deny("admins only") },
          { match: "srv/broken", id: "broken", run: () => Effect.die("x") }
        ]
      })
      yield* Effect.gen(function*() {
        const calls = yield* ToolCalls
        const denied = yield* Effect.flip(calls.readResource("srv", "secret://key"))
        assert.deepStrictEqual((denied as Denied).reason, {
          _tag: "HookDenied",
          hookId: "no-secrets",
          message: "private"
        })
        const ok = yield* calls.readResource("srv", "file:///public")
        assert.strictEqual(ok.contents[0].uri, "file:///public")
        assert.deepStrictEqual(log.reads, ["file:///public"])
        yield* calls.getPrompt("srv", "greet", { name: "Ada" })
        assert.deepStrictEqual(log.prompts, [{ name: "greet", args: { name: "Ada", lang: "en" } }])
        assert.strictEqual((yield* Effect.flip(calls.getPrompt("srv", "admin")))._tag, "Denied")
        assert.deepInclude(yield* Effect.flip(calls.getPrompt("srv", "broken")), { hookId: "broken", kind: "raise" })
        assert.strictEqual(log.prompts.length, 1)
      }).pipe(Effect.provide(layer))
    }))

  it.effect("telemetry statuses: one span per call and per hook, with the verdict or the failure kind", () =>
    capturing((captured) =>
      Effect.gen(function*() {
        const { layer } = client({
          preToolCall: [
            { match: "*", id: "pass", run: cont },
            { match: "srv/echo", id: "rw", run: () => Verdict.rewrite({ args: { x: 1 } }) },
            { match: "srv/error", id: "stop", run: () => Verdict.deny("no") },
            { match: "srv/secret", id: "halt", run: () => Verdict.halt({ content: [] }) }
          ],
          postToolCall: [{ match: "srv/echo", id: "rep", run: () => Verdict.replace({ content: [] }) }],
          toolCallFailed: [
            { match: "srv/error", id: "rec", run: () => Verdict.recover({ content: [] }) },
            {
              match: "srv/fail",
              id: "obs",
              kind: "observe",
              run: () => {
                throw new Error("x")
              }
            }
          ]
        })
        yield* Effect.provide(Effect.all([call("echo"), call("error"), call("secret"), call("fail")]), layer)
        const hooks = spansNamed(captured, "interlock.hook").map((a) =>
          `${a["interlock.hook_id"]}:${a["interlock.verdict"]}`
        )
        assert.deepStrictEqual(hooks, [
          "pass:continue",
          "rw:rewrite",
          "rep:replace",
          "pass:continue",
          "stop:deny",
          "rec:recover",
          "pass:continue",
          "halt:halt",
          "pass:continue",
          "obs:raise"
        ])
        const calls = spansNamed(captured, "interlock.callTool").map((a) =>
          `${a["interlock.tool"]}:${a["interlock.outcome"]}:${a["interlock.policy"]}:${a["interlock.sent"]}`
        )
        assert.deepStrictEqual(calls, [
          "echo:ok:allow:true",
          "error:recovered:undefined:false",
          "secret:halted:undefined:false",
          "fail:failed:allow:true"
        ])
      })
    ))
})

describe("beyond the seed", () => {
  it.effect("a tool hidden by the tools filter is Denied as not exposed and dropped from listings", () =>
    Effect.gen(function*() {
      const { layer, log } = client({}, { settings: { tools: { deny: ["srv/SECRET", "hang"] } } })
      yield* Effect.gen(function*() {
        const error = errorOf(yield* call("secret"))
        assert.deepStrictEqual((error as Denied).reason, { _tag: "NotExposed" })
        const tools = yield* Effect.flatMap(ToolCalls, (c) => c.listTools("srv"))
        assert.deepStrictEqual(tools.map((t) => t.name), ["echo", "fail", "error"])
        assert.strictEqual(log.calls.length, 0)
      }).pipe(Effect.provide(layer))
    }))

  it.effect("observe hooks: failures are ignored but reported; other verdicts from them are bad_return", () => {
    const { layer, log } = client({
      preToolCall: [
        { match: "*", id: "watch", kind: "observe", run: () => Effect.fail("x") },
        { match: "*", id: "meddle", kind: "observe", run: () => Verdict.deny("observers cannot deny") }
      ]
    })
    return Effect.gen(function*() {
      const result = yield* call("echo")
      assert.strictEqual(result._tag, "Success")
      assert.strictEqual(log.calls.length, 1)
      const runs = result._tag === "Success" ? result.success.receipt!.hooks : []
      assert.deepStrictEqual(runs.map((r) => [r.id, r.failure, r.ignored]), [["watch", "raise", true], [
        "meddle",
        "bad_return",
        true
      ]])
    }).pipe(Effect.provide(layer))
  })

  it.effect("required hooks fail closed even when their failure would be ignored", () =>
    Effect.gen(function*() {
      const observer = client({
        preToolCall: [{
          match: "*",
          id: "audit",
          kind: "observe",
          required: true,
          run: () => {
            throw new Error()
          }
        }]
      })
      assert.deepInclude(errorOf(yield* Effect.provide(call("echo"), observer.layer)), {
        hookId: "audit",
        kind: "raise"
      })
      assert.strictEqual(observer.log.calls.length, 0)
      const post = client({
        postToolCall: [{ match: "*", id: "scan", onError: "ignore", required: true, run: () => 7 as never }]
      })
      const result = yield* Effect.provide(call("secret"), post.layer)
      assert.strictEqual(result._tag === "Success" && result.success.text, WITHHELD_TEXT)
    }))

  it.effect("guards may only deny or halt; a guard's rewrite is a bad_return", () => {
    const { layer } = client({
      preToolCall: [{ match: "*", id: "g", kind: "guard", run: () => Verdict.rewrite({ args: {} }) }]
    })
    return Effect.map(call("echo"), (r) => assert.deepInclude(errorOf(r), { hookId: "g", kind: "bad_return" })).pipe(
      Effect.provide(layer)
    )
  })

  it.effect("an Effect hook's services become requirements of the Layer", () =>
    Effect.gen(function*() {
      class Blocklist extends Context.Service<Blocklist, ReadonlySet<string>>()("test/Blocklist") {}
      const layer = Interlock.layer({
        hooks: {
          preToolCall: [{
            match: "*",
            id: "blocklist",
            run: (call: ToolCall) =>
              Effect.map(Blocklist, (list) => (list.has(call.name) ? Verdict.deny("blocked") : Verdict.continue))
          }]
        },
        policy: Policy.allowAll
      }).pipe(Layer.provide([ToolTransport.fromTools([addTool]), Layer.succeed(Blocklist, new Set(["add"]))]))
      const error = yield* Effect.flip(Effect.provide(
        Effect.flatMap(ToolCalls, (c) => c.callTool({ serverId: "local", name: "add", args: { a: 1, b: 2 } })),
        layer
      ))
      assert.deepStrictEqual((error as Denied).reason, { _tag: "HookDenied", hookId: "blocklist", message: "blocked" })
    }))

  it.effect("interrupting a call interrupts its running hook and leaves no fiber behind", () =>
    Effect.gen(function*() {
      const events: Array<string> = []
      const { layer, log } = client({
        preToolCall: [{
          match: "*",
          id: "slow",
          run: () =>
            Effect.sleep(10_000).pipe(
              Effect.as(Verdict.continue),
              Effect.onInterrupt(() => Effect.sync(() => events.push("hook interrupted")))
            )
        }]
      })
      const fiber = yield* Effect.forkChild(Effect.provide(call("echo"), layer))
      yield* TestClock.adjust(10)
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual(events, ["hook interrupted"])
      assert.strictEqual(log.calls.length, 0)
    }))

  it.effect("every result and every error carries a receipt of each hook and the policy decision", () =>
    Effect.gen(function*() {
      const { layer } = client({ preToolCall: [{ match: "*", id: "a", run: cont }] }, {
        policy: Policy.rules({ rules: [{ id: "no-fail", match: "srv/fail", decision: "deny" }], default: "allow" })
      })
      const ok = yield* Effect.provide(call("echo"), layer)
      const receipt = ok._tag === "Success" ? ok.success.receipt : undefined
      assert.deepStrictEqual(receipt?.hooks.map((h) => h.id), ["a"])
      assert.deepStrictEqual(receipt?.policy, { decision: "allow", rule: undefined })
      assert.isTrue(receipt?.sent)
      const denied = errorOf(yield* Effect.provide(call("fail"), layer))
      assert.deepStrictEqual(denied.receipt?.policy, { decision: "deny", rule: "no-fail" })
      assert.strictEqual(denied.receipt?.sent, false)
      assert.instanceOf(ToolResult.text("x"), ToolResult)
    }))
})
