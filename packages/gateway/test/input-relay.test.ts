/**
 * A 2026-07-28 server's input requests for a host with no server-to-client channel (a 2026-07-28
 * host): the call fails with InputRequired (the requests redacted, the state sealed), and the
 * host's retry with the answers resumes it downstream, once, only for the same call and principal.
 */
import { assert, describe, it } from "@effect/vitest"
import { type CallOptions, type JsonObject, Principal } from "@interlock/core"
import { Cause, Effect, Exit } from "effect"
import { CurrentHostInput, type HostInput, InputRequired } from "../src/calls/InputRound.ts"
import type { GatewayShape } from "../src/runtime/Gateway.ts"
import { startGateway } from "./e2e.ts"
import { inputServer, inputServerOverHttp, SECRET } from "./input-fixture.ts"
const config = { policy: { default: "allow" }, redact: [{ pattern: "sk-[a-z0-9]{20,}" }] }
const alice = { principal: new Principal({ id: "alice" }) }
const bob = { principal: new Principal({ id: "bob" }) }
const accept = (name: string) => ({ who: { action: "accept", content: { name } } })

/** How a call ended: its text, the InputRequired it asked with, another error's message, or a defect. */
type Outcome = { readonly ok: string } | { readonly input: InputRequired } | { readonly error: string } | {
  readonly other: string
}

/** A call's options, and the host input its request carries (a retry's answers and state). */
type Asked = CallOptions & { readonly input?: HostInput }

/** Runs a call through GatewayCalls and tells what it ended with. */
const call = (gateway: GatewayShape, name: string, args: JsonObject, asked: Asked, serverId = "modern") => {
  const { input, ...options } = asked
  const called = gateway.deps.calls.callTool({ serverId, name, args }, options)
  return Effect.map(Effect.exit(Effect.provideService(called, CurrentHostInput, input)), (exit): Outcome => {
    if (Exit.isSuccess(exit)) {
      return { ok: exit.value.content.map((block) => (block as { text?: string }).text ?? "").join("") }
    }
    const error = Cause.findErrorOption(exit.cause)
    if (error._tag === "None") return { other: Cause.pretty(exit.cause) }
    return error.value instanceof InputRequired ? { input: error.value } : { error: error.value.message }
  })
}

const retry = (options: CallOptions, requestState: string, inputResponses: Record<string, unknown>): Asked => ({
  ...options,
  input: { inputResponses, requestState }
})

const legs = (gateway: GatewayShape, serverId = "modern") =>
  Effect.map(call(gateway, "legs", {}, alice, serverId), (r) => ("ok" in r ? r.ok : "?"))

describe("relayed input rounds (a host without a channel)", () => {
  it.live(
    "InputRequired carries the redacted requests and an opaque state; the retry completes the call downstream " +
      "(stdio and HTTP)",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const web = yield* inputServerOverHttp
        const { gateway } = yield* startGateway({
          ...config,
          servers: { modern: inputServer(), web: { url: web.url } }
        })
        for (const serverId of ["modern", "web"]) {
          const first = yield* call(gateway, "confirm", { text: "ship" }, alice, serverId)
          assert.isTrue("input" in first, JSON.stringify(first))
          if (!("input" in first)) return
          const who = first.input.inputRequests.who as { method: string; params: { message: string } }
          assert.strictEqual(who.method, "elicitation/create")
          assert.include(who.params.message, "Who confirms ship?")
          assert.notInclude(JSON.stringify(first.input), SECRET)
          // The server's own state travels sealed: the host cannot read it.
          assert.notInclude(first.input.requestState, "state-for-ship")
          const done = yield* call(
            gateway,
            "confirm",
            { text: "ship" },
            retry(alice, first.input.requestState, accept("carol")),
            serverId
          )
          assert.deepStrictEqual(done, { ok: "ship confirmed by carol (state state-for-ship)" })
        }
        // The audit says what each leg ended in: the round left for the host, then the completed call.
        const rows = (yield* gateway.store.query()).filter((row) => row.tool === "confirm").map((row) => row.outcome)
        assert.deepStrictEqual([...rows].sort(), ["input_required", "input_required", "ok", "ok"])
      })),
    60_000
  )

  it.live(
    "a replayed, tampered, other principal's or other call's state is refused and never reaches the server",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const { gateway } = yield* startGateway({ ...config, servers: { modern: inputServer() } })
        const first = yield* call(gateway, "confirm", { text: "pay" }, alice)
        if (!("input" in first)) return assert.fail(JSON.stringify(first))
        const state = first.input.requestState
        const before = yield* legs(gateway)
        const flipped = state.slice(0, 40) + (state[40] === "A" ? "B" : "A") + state.slice(41)
        const attempts = [
          ["tampered", yield* call(gateway, "confirm", { text: "pay" }, retry(alice, flipped, accept("mallory")))],
          ["another principal", yield* call(gateway, "confirm", { text: "pay" }, retry(bob, state, accept("mallory")))],
          ["another call", yield* call(gateway, "confirm", { text: "steal" }, retry(alice, state, accept("mallory")))]
        ] as const
        for (const [what, outcome] of attempts) {
          assert.isTrue(
            "error" in outcome && outcome.error.includes("relayed request state was refused"),
            `${what}: ${JSON.stringify(outcome)}`
          )
        }
        assert.deepStrictEqual(
          attempts.map(([, outcome]) => ("error" in outcome ? /\((\w+)\)/.exec(outcome.error)?.[1] : undefined)),
          ["tampered", "principal", "call"]
        )
        assert.strictEqual(yield* legs(gateway), before, "no refused retry reached the server")
        const done = yield* call(gateway, "confirm", { text: "pay" }, retry(alice, state, accept("alice")))
        assert.deepStrictEqual(done, { ok: "pay confirmed by alice (state state-for-pay)" })
        const replayed = yield* call(gateway, "confirm", { text: "pay" }, retry(alice, state, accept("mallory")))
        assert.isTrue(
          "error" in replayed && replayed.error.includes("(replayed): it was used before"),
          JSON.stringify(replayed)
        )
        assert.strictEqual(yield* legs(gateway), String(Number(before) + 1))
        // Each refused retry is audited as a refusal that reached no server.
        const refused = (yield* gateway.store.query()).filter((row) =>
          row.tool === "confirm" && row.outcome === "refused"
        )
        assert.deepStrictEqual(refused.map((row) => row.sent), [false, false, false, false])
        assert.isTrue(refused.every((row) =>
          row.error?.startsWith("the relayed request state was refused (") === true &&
          !row.error.includes(state.slice(10, 40))
        ))
      })),
    60_000
  )

  it.live(
    "the rounds are counted across the host's retries: a server asking forever is refused after 8",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const { gateway } = yield* startGateway({ ...config, servers: { modern: inputServer() } })
        let outcome = yield* call(gateway, "forever", {}, alice)
        let rounds = 0
        while ("input" in outcome && rounds < 20) {
          rounds += 1
          outcome = yield* call(
            gateway,
            "forever",
            {},
            retry(alice, outcome.input.requestState, { more: { action: "accept", content: { name: "x" } } })
          )
        }
        assert.strictEqual(rounds, 8)
        assert.isTrue(
          "error" in outcome && outcome.error.includes("still asked for input after 8 rounds"),
          JSON.stringify(outcome)
        )
      })),
    60_000
  )
})
