/**
 * The hub's multi-round-trip driver (2026-07-28 input_required): the round's requests are checked,
 * answered by the request's Caller (or the hub's services without one), and resent with the
 * answers and the server's state; a caller's relay suspends the round instead.
 */
import { assert, describe, it } from "@effect/vitest"
import { Interlock, ProtocolError, ToolCalls, TransportError } from "@interlock/core"
import { McpServer } from "@modelcontextprotocol/server"
import { Effect, Layer, Schema } from "effect"
import { type Caller, CurrentCaller, Elicitation, McpHub, McpTransport } from "../src/index.ts"
import { readRound } from "../src/RoundTrip.ts"
import { registerWho } from "./fixtures/asker.ts"
import { serveHttp } from "./fixtures/serve-http.ts"
import { allowAll } from "./helpers.ts"

const asker = () => {
  const server = new McpServer({ name: "asker", version: "1.0.0" }, { capabilities: { tools: {} } })
  registerWho(server)
  return server
}

/** The asker over Streamable HTTP on 127.0.0.1 (an in-memory SDK server speaks only the 2025 revisions). */
const askerOverHttp = serveHttp(asker)

const hub = Layer.unwrap(
  Effect.map(
    askerOverHttp,
    (server) => McpTransport.http("asker", { url: server.url }, { protocol: { pin: "2026-07-28" } })
  )
)
const calls = Interlock.layer({ policy: allowAll }).pipe(Layer.provideMerge(hub))
const textOf = (result: { readonly content: ReadonlyArray<unknown> }) =>
  result.content.map((block) => (block as { text?: string }).text).join("")

describe("input_required rounds", () => {
  it.effect.prop(
    "any input requests are a round of known requests or a ProtocolError, never a throw",
    [Schema.Unknown],
    ([junk]) =>
      Effect.sync(() => {
        const round = readRound("s", { resultType: "input_required", inputRequests: junk as never })
        if (round instanceof ProtocolError) return
        for (const request of Object.values(round.inputRequests)) {
          assert.include(["elicitation/create", "sampling/createMessage", "roots/list"], request.method)
        }
      })
  )

  it.effect("without a caller, the hub's Elicitation answers and the call completes", () =>
    Effect.gen(function*() {
      const result = yield* (yield* ToolCalls).callTool({ serverId: "asker", name: "who", args: {} })
      assert.strictEqual(textOf(result), "hello service")
      assert.strictEqual((yield* McpHub).status("asker")?.era, "modern/2026-07-28")
    }).pipe(Effect.provide(calls.pipe(Layer.provide(Elicitation.layer(() =>
      Effect.succeed({ action: "accept", content: { name: "service" } })
    ))))))

  it.effect("a caller in context is asked instead of the hub's services, with exactly the server's request", () =>
    Effect.gen(function*() {
      const asked: Array<unknown> = []
      const caller: Caller = {
        key: {},
        ask: (_serverId, request) =>
          Effect.sync(() => asked.push(request)).pipe(Effect.as({ action: "accept", content: { name: "caller" } }))
      }
      const result = yield* Effect.provideService(
        (yield* ToolCalls).callTool({ serverId: "asker", name: "who", args: {} }),
        CurrentCaller,
        caller
      )
      assert.strictEqual(textOf(result), "hello caller")
      assert.strictEqual(asked.length, 1)
      assert.strictEqual((asked[0] as { method: string }).method, "elicitation/create")
    }).pipe(Effect.provide(calls.pipe(Layer.provide(Elicitation.declineAll)))))

  it.effect("a relay suspends the round with the server's state, and resumes it with the answers", () =>
    Effect.gen(function*() {
      const suspended: Array<{ state: string | undefined; rounds: number; digest: string }> = []
      const relay = (
        resume: { inputResponses: Record<string, unknown>; requestState: string | undefined } | undefined
      ): Caller => ({
        key: undefined,
        ask: () => Effect.die("not asked"),
        relay: {
          resume: () => Effect.succeed(resume === undefined ? undefined : { ...resume, rounds: 1 }),
          suspend: (op, round, rounds) =>
            Effect.sync(() => suspended.push({ state: round.requestState, rounds, digest: op.digest })).pipe(
              Effect.andThen(Effect.fail(new TransportError({ serverId: op.serverId, detail: "suspended" })))
            )
        }
      })
      const tools = yield* ToolCalls
      const first = yield* Effect.flip(
        Effect.provideService(
          tools.callTool({ serverId: "asker", name: "who", args: {} }),
          CurrentCaller,
          relay(undefined)
        )
      )
      assert.strictEqual(first._tag, "TransportError", first.message)
      assert.deepStrictEqual(suspended.map(({ state, rounds }) => ({ state, rounds })), [{ state: "s1", rounds: 1 }])
      assert.match(suspended[0].digest, /^[0-9a-f]{64}$/)
      const resumed = relay({
        inputResponses: { who: { action: "accept", content: { name: "later" } } },
        requestState: "s1"
      })
      const done = yield* Effect.provideService(
        tools.callTool({ serverId: "asker", name: "who", args: {} }),
        CurrentCaller,
        resumed
      )
      assert.strictEqual(textOf(done), "hello later")
    }).pipe(Effect.provide(calls.pipe(Layer.provide(Elicitation.declineAll)))))
})
