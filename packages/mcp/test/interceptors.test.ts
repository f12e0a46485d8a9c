import { assert, describe, it } from "@effect/vitest"
import {
  Approvals,
  type HooksConfig,
  Interlock,
  type JsonObject,
  NativeTool,
  Policy,
  ToolCalls,
  ToolTransport,
  Verdict
} from "@interlock/core"
import { Effect, Layer, Schema, Tracer } from "effect"
import { Interceptors } from "../src/index.ts"
import type { Spec } from "./fixtures/interceptor-server.ts"
import { httpInterceptors, recorded, recordFile, stdioInterceptors } from "./interceptor-fixture.ts"

type InterceptorServer = Interceptors.InterceptorServer
type VerdictRecord = Interceptors.VerdictRecord

const tools = (calls: Array<JsonObject>) => [
  NativeTool.make({
    name: "note",
    parameters: Schema.Record(Schema.String, Schema.Json),
    run: (args) => {
      calls.push(args)
      return `noted ${String(args.note)}`
    }
  })
]

/** ToolCalls over a native `note` tool (which records its calls), with the interceptors' hooks. */
const withInterceptors = <A, E>(
  servers: Record<string, InterceptorServer>,
  use: (calls: Array<JsonObject>) => Effect.Effect<A, E, ToolCalls>,
  options: { readonly hooks?: HooksConfig; readonly onVerdict?: (record: VerdictRecord) => void } = {}
) => {
  const calls: Array<JsonObject> = []
  const layer = Interlock.layerFromServices().pipe(
    Layer.provide(Layer.mergeAll(
      Interceptors.layer({ servers, timeout: 2_000, ...options }),
      Policy.allowAll,
      Approvals.none,
      ToolTransport.fromTools(tools(calls))
    ))
  )
  return Effect.provide(use(calls), layer)
}

const stdio = (specs: ReadonlyArray<Spec>, extra: Partial<InterceptorServer> = {}, record?: string) => ({
  one: { server: { stdio: stdioInterceptors(specs, record) }, ...extra }
})

const call = (args: JsonObject) =>
  Effect.gen(function*() {
    const calls = yield* ToolCalls
    return yield* Effect.result(calls.callTool({ serverId: "local", name: "note", args }))
  })

describe("Interceptors over stdio", () => {
  it.live("reads interceptors/list in the SEP's `hook` and the conformance suite's `hooks`", () =>
    Effect.gen(function*() {
      const shape = yield* Interceptors.make({
        servers: stdio([
          { name: "a", type: "validation", behavior: "allow-all" },
          { name: "b", type: "mutation", behavior: "rewrite-field", wire: "hooks", phase: "both" },
          { name: "c", type: "validation", behavior: "allow-all", events: ["sampling/createMessage"] }
        ])
      })
      assert.deepStrictEqual(shape.interceptors.map((i) => i.descriptor.name), ["a", "b", "c"])
      assert.deepStrictEqual(shape.hooks.preToolCall?.map((h) => (h as { id: string }).id), [
        "interceptor:b:preToolCall",
        "interceptor:a:preToolCall"
      ])
      assert.deepStrictEqual(shape.hooks.postToolCall?.map((h) => (h as { id: string }).id), [
        "interceptor:b:postToolCall"
      ])
      assert.deepStrictEqual(shape.unsupported, [
        { serverId: "one", interceptor: "c", event: "sampling/createMessage", phase: "request" }
      ])
    }))

  it.live("a deny-all validator denies, naming itself and the path, and the tool never runs", () =>
    withInterceptors(
      stdio([{ name: "deny", type: "validation", behavior: "deny-all" }]),
      (calls) =>
        Effect.gen(function*() {
          const result = yield* call({ note: "SECRET-PAYLOAD" })
          assert.strictEqual(result._tag, "Failure")
          const error = result._tag === "Failure" ? result.failure : undefined
          assert.strictEqual(error?._tag, "Denied")
          assert.include(error?.message ?? "", `interceptor "deny" found the request invalid (at arguments)`)
          assert.notInclude(error?.message ?? "", "SECRET-PAYLOAD")
          assert.notInclude(error?.message ?? "", "denied by policy")
          assert.deepStrictEqual(calls, [])
        })
    ))

  it.live("a validator requiring a field passes a call that has it and denies one that does not", () =>
    withInterceptors(
      stdio([{ name: "needs-ticket", type: "validation", behavior: "require-field", field: "ticket" }]),
      (calls) =>
        Effect.gen(function*() {
          const ok = yield* call({ note: "a", ticket: "T-1" })
          assert.strictEqual(ok._tag, "Success")
          const refused = yield* call({ note: "b" })
          assert.include(refused._tag === "Failure" ? refused.failure.message : "", "(at arguments.ticket)")
          assert.deepStrictEqual(calls, [{ note: "a", ticket: "T-1" }])
        })
    ))

  it.live("mutators run in priorityHint order before the validators, which see the mutated arguments", () => {
    const file = recordFile()
    return withInterceptors(
      stdio(
        [
          { name: "check", type: "validation", behavior: "require-field", field: "tag" },
          { name: "late", type: "mutation", behavior: "rewrite-field", field: "tag", value: "late", priorityHint: 10 },
          {
            name: "early",
            type: "mutation",
            behavior: "rewrite-field",
            field: "tag",
            value: "early",
            priorityHint: -10
          }
        ],
        {},
        file
      ),
      (calls) =>
        Effect.gen(function*() {
          const result = yield* call({ note: "x" })
          assert.strictEqual(result._tag, "Success")
          assert.deepStrictEqual(calls, [{ note: "x", tag: "late" }])
          assert.deepStrictEqual(recorded(file).map((r) => r.name), ["early", "late", "check"])
          assert.deepStrictEqual(recorded(file)[2].payload, { name: "note", arguments: { note: "x", tag: "late" } })
        })
    )
  })

  it.live("a mutator that renames the tool is refused", () =>
    withInterceptors(
      stdio([{ name: "renamer", type: "mutation", behavior: "rename" }]),
      (calls) =>
        Effect.gen(function*() {
          const result = yield* call({ note: "x" })
          const error = result._tag === "Failure" ? result.failure : undefined
          assert.strictEqual(error?._tag, "Denied")
          assert.include(error?.message ?? "", `interceptor "renamer" changed the tool's name`)
          assert.deepStrictEqual(calls, [])
        })
    ))

  const failing = { crash: "crashes", hang: "hangs past the deadline", junk: "answers junk" } as const
  for (const behavior of ["crash", "hang", "junk"] as const) {
    it.live(`an interceptor that ${failing[behavior]} fails the call closed, its declared failOpen refused`, () =>
      withInterceptors(
        stdio([{ name: behavior, type: "validation", behavior, failOpen: true }]),
        (calls) =>
          Effect.gen(function*() {
            const result = yield* call({ note: "x" })
            const error = result._tag === "Failure" ? result.failure : undefined
            assert.strictEqual(error?._tag, "HookFailed")
            assert.include(
              error?.message ?? "",
              `interceptor:${behavior}:preToolCall (preToolCall) failed: ${behavior === "hang" ? "timeout" : "raise"}`
            )
            assert.deepStrictEqual(calls, [])
          })
      ))
  }

  it.live("a declared failOpen is honoured only with failOpen: as-declared", () =>
    withInterceptors(
      stdio([{ name: "junk", type: "validation", behavior: "junk", failOpen: true }], { failOpen: "as-declared" }),
      (calls) =>
        Effect.gen(function*() {
          const result = yield* call({ note: "x" })
          assert.strictEqual(result._tag, "Success")
          assert.deepStrictEqual(calls, [{ note: "x" }])
          // The failure it did not fail closed on is on the receipt.
          const receipt = result._tag === "Success" ? result.success.receipt : undefined
          assert.deepStrictEqual(receipt?.hooks.map((h) => [h.id, h.status, h.note]), [
            ["interceptor:junk:preToolCall", "continue", "enforce failed:junk"]
          ])
        })
    ))

  it.live("audit mode records the verdict and never blocks or changes the call", () => {
    const seen: Array<VerdictRecord> = []
    return withInterceptors(
      stdio([
        { name: "deny", type: "validation", behavior: "deny-all", mode: "audit" },
        { name: "shadow", type: "mutation", behavior: "rewrite-field", field: "note", value: "changed", mode: "audit" }
      ]),
      (calls) =>
        Effect.gen(function*() {
          const result = yield* call({ note: "x" })
          assert.strictEqual(result._tag, "Success")
          assert.deepStrictEqual(calls, [{ note: "x" }])
          assert.deepStrictEqual(seen.map((r) => [r.interceptor, r.mode, r.verdict]), [
            ["shadow", "audit", "modified"],
            ["deny", "audit", "invalid:error"]
          ])
          assert.match(seen[0].shadowDigest ?? "", /^[0-9a-f]{64}$/)
          const receipt = result._tag === "Success" ? result.success.receipt : undefined
          assert.deepStrictEqual(receipt?.hooks.map((h) => [h.id, h.status, h.note]), [
            ["interceptor:shadow:preToolCall", "continue", `audit modified shadow sha256:${seen[0].shadowDigest}`],
            ["interceptor:deny:preToolCall", "continue", "audit invalid:error"]
          ])
          assert.notInclude(JSON.stringify(receipt), "changed")
        }),
      { onVerdict: (record) => seen.push(record) }
    )
  })

  it.live("each invocation is an interlock.interceptor span with its verdict, never its payload", () => {
    const spans: Array<Tracer.Span> = []
    const tracer = Tracer.make({
      span: (options) => {
        const span = Tracer.nativeTracer.span(options)
        spans.push(span)
        return span
      }
    })
    return withInterceptors(
      stdio([{ name: "watch", type: "validation", behavior: "deny-all", mode: "audit" }]),
      () =>
        Effect.gen(function*() {
          assert.strictEqual((yield* call({ note: "SPAN-MARK" }))._tag, "Success")
          const found = spans.filter((span) => span.name === "interlock.interceptor")
          assert.deepStrictEqual(found.map((span) => Object.fromEntries(span.attributes)), [{
            "interlock.interceptor": "watch",
            "interlock.interceptor.server": "one",
            "interlock.interceptor.event": "tools/call",
            "interlock.interceptor.phase": "request",
            "interlock.interceptor.mode": "audit",
            "interlock.interceptor.verdict": "invalid:error"
          }])
          assert.notInclude(JSON.stringify(found.map((span) => Object.fromEntries(span.attributes))), "SPAN-MARK")
        })
    ).pipe(Effect.withTracer(tracer))
  })

  it.live("response phase: a mutator's result reaches the caller; a blocking validator withholds it", () =>
    Effect.gen(function*() {
      const rewritten = yield* withInterceptors(
        stdio([{
          name: "r",
          type: "mutation",
          behavior: "rewrite-field",
          value: "from interceptor",
          phase: "response"
        }]),
        () => Effect.map(call({ note: "x" }), (r) => (r._tag === "Success" ? r.success.text : "failed"))
      )
      assert.strictEqual(rewritten, "from interceptor")
      const withheld = yield* withInterceptors(
        stdio([{ name: "v", type: "validation", behavior: "deny-all", phase: "response" }]),
        () => Effect.map(call({ note: "x" }), (r) => (r._tag === "Success" ? [r.success.isError, r.success.text] : []))
      )
      assert.deepStrictEqual(withheld, [
        true,
        `Result withheld: interceptor "v" found the response invalid (at arguments).`
      ])
    }))

  it.live("response phase: a blocking validator keeps every mutator from the result", () => {
    const file = recordFile()
    return withInterceptors(
      stdio(
        [
          { name: "m", type: "mutation", behavior: "rewrite-field", value: "unblocked", phase: "response" },
          { name: "v", type: "validation", behavior: "deny-all", phase: "response" }
        ],
        {},
        file
      ),
      () =>
        Effect.gen(function*() {
          const result = yield* call({ note: "x" })
          assert.deepStrictEqual(result._tag === "Success" ? [result.success.isError, result.success.text] : [], [
            true,
            `Result withheld: interceptor "v" found the response invalid (at arguments).`
          ])
          assert.deepStrictEqual(recorded(file).map((r) => r.name), ["v"])
        })
    )
  })

  it.live("interceptor hooks run after the app's own pre-hooks", () =>
    withInterceptors(
      stdio([{ name: "needs-ticket", type: "validation", behavior: "require-field", field: "ticket" }]),
      (calls) =>
        Effect.gen(function*() {
          const result = yield* call({ note: "x" })
          assert.strictEqual(result._tag, "Success")
          assert.deepStrictEqual(calls, [{ note: "x", ticket: "added by the app" }])
        }),
      {
        hooks: {
          preToolCall: [{
            match: "*",
            run: (c) => Verdict.rewrite({ args: { ...c.args, ticket: "added by the app" } })
          }]
        }
      }
    ))
})

describe("Interceptors on listings", () => {
  const listing = (specs: ReadonlyArray<Spec>) =>
    withInterceptors(stdio(specs), () =>
      Effect.gen(function*() {
        const calls = yield* ToolCalls
        return yield* Effect.result(Effect.map(calls.listTools(), (tools) => tools.map((tool) => tool.name)))
      }))

  it.live("a tools/list response validator that passes keeps the listing; one that blocks lists nothing", () =>
    Effect.gen(function*() {
      const allowed = yield* listing([{
        name: "ok",
        type: "validation",
        behavior: "allow-all",
        events: ["tools/list"],
        phase: "response"
      }])
      assert.deepStrictEqual(allowed._tag === "Success" ? allowed.success : "failed", ["note"])
      const blocked = yield* listing([{
        name: "no",
        type: "validation",
        behavior: "deny-all",
        events: ["tools/list"],
        phase: "response"
      }])
      assert.deepStrictEqual(blocked._tag === "Success" ? blocked.success : "failed", [])
    }))

  it.live("a listing mutation that is not a listing fails the listing closed", () =>
    Effect.gen(function*() {
      const junk = yield* listing([{
        name: "bad",
        type: "mutation",
        behavior: "rewrite-field",
        events: ["tools/*"],
        phase: "response"
      }])
      assert.strictEqual(junk._tag === "Failure" ? junk.failure._tag : "listed", "HookFailed")
    }))
})

describe("Interceptors over Streamable HTTP", () => {
  it.live("a deny-all validator denies and an allow-all one lets the call through", () =>
    Effect.gen(function*() {
      const denying = yield* httpInterceptors([{ name: "deny", type: "validation", behavior: "deny-all" }])
      const allowing = yield* httpInterceptors([{ name: "allow", type: "validation", behavior: "allow-all" }])
      const denied = yield* withInterceptors(
        { d: { server: { http: { url: denying.url } } } },
        (calls) => Effect.map(call({ note: "x" }), (r) => [r._tag, calls.length])
      )
      assert.deepStrictEqual(denied, ["Failure", 0])
      const allowed = yield* withInterceptors(
        { a: { server: { http: { url: allowing.url } } } },
        (calls) => Effect.map(call({ note: "x" }), (r) => [r._tag, calls.length])
      )
      assert.deepStrictEqual(allowed, ["Success", 1])
    }))

  it.live("a server that cannot be read at start fails the Layer with InterceptorsUnavailable", () =>
    Effect.gen(function*() {
      const result = yield* Effect.result(Interceptors.make({
        servers: { gone: { server: { http: { url: "http://127.0.0.1:9/mcp" }, reconnect: undefined } } }
      }))
      assert.strictEqual(result._tag === "Failure" ? result.failure._tag : "none", "InterceptorsUnavailable")
    }))
})
