/**
 * A 2026-07-28 server's own question, end to end: a 2026-07-28 host (SDK 2.4, pinned, with an
 * elicitation handler) calls through the gateway's real HTTP front a 2026-07-28 server whose tool
 * asks who confirms. The question reaches exactly that host as `input_required`, redacted; the
 * host's SDK answers and retries, and the gateway resumes the server's round. Another principal
 * cannot finish bob's round with his state.
 */
import { assert, describe, it } from "@effect/vitest"
import type { ElicitResult } from "@modelcontextprotocol/client"
import { Effect } from "effect"
import { startGateway } from "./e2e.ts"
import { inputServer, SECRET } from "./input-fixture.ts"
import { type CallParams, callText, modernClient, PRINCIPAL_TOKENS, principalsConfig } from "./modern-front.ts"

const setupWith = (policy: Record<string, unknown>, ...flags: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const { gateway, http } = yield* startGateway({
      servers: { desk: inputServer(...flags) },
      policy,
      redact: [{ detectors: "all" }],
      listen: principalsConfig.listen
    }, principalsConfig.env)
    const front = (id: string) => ({ url: http.mcpUrl, token: PRINCIPAL_TOKENS[id]! })
    return { gateway, bob: front("bob"), mallory: front("mallory") }
  })

const setup = setupWith({ default: "allow" })

describe("a 2026-07-28 server's question through the 2026-07-28 front", () => {
  it.live("reaches the calling host as input_required, redacted, and the host's answer finishes the call", () =>
    Effect.gen(function*() {
      const { gateway, bob } = yield* setup
      const shown: Array<string> = []
      const client = yield* modernClient(bob, {
        answer: (params) => (shown.push(params.message), { action: "accept", content: { name: "carol" } })
      })
      const result = yield* callText(client, "confirm", { text: "ship" })
      assert.deepStrictEqual(result, { isError: false, text: "ship confirmed by carol (state state-for-ship)" })
      assert.lengthOf(shown, 1)
      assert.include(shown[0], "Who confirms ship?")
      assert.notInclude(shown[0], SECRET)
      const rows = (yield* gateway.store.query()).filter((row) => row.tool === "confirm").map((
        row
      ) => [row.outcome, row.principal])
      assert.deepStrictEqual(rows, [["ok", "bob"], ["input_required", "bob"]])
    }))

  it.live("another principal cannot finish bob's round with his state: nothing reaches the server for her", () =>
    Effect.gen(function*() {
      const { gateway, bob, mallory } = yield* setup
      const stolen: Array<string> = []
      const bobs = yield* modernClient(bob, {
        answer: () => ({ action: "accept", content: { name: "carol" } }),
        retry: (
          params: CallParams
        ) => (stolen.push(params.requestState ?? ""), { ...params, requestState: "sabotaged" })
      })
      yield* callText(bobs, "confirm", { text: "ship" })
      assert.lengthOf(stolen, 1)
      const hers = yield* modernClient(mallory, {
        answer: () => ({ action: "accept", content: { name: "mallory" } }),
        retry: (params: CallParams) => ({ ...params, requestState: stolen[0]! })
      })
      const result = yield* callText(hers, "confirm", { text: "ship" })
      assert.notInclude(result.text, "confirmed by mallory")
      assert.isTrue(result.isError)
      const legs = yield* callText(bobs, "legs", {})
      // bob's first leg, bob's sabotaged retry (refused before the server), mallory's first leg: two legs ran, none
      // with an answer.
      assert.strictEqual(legs.text, "2")
      const finished = (yield* gateway.store.query()).filter((row) => row.tool === "confirm" && row.outcome === "ok")
      assert.lengthOf(finished, 0)
    }))

  it.live(
    "a call the policy asks about, whose server then asks too: the person approves once, answers the server, " +
      "and the call finishes",
    () =>
      Effect.gen(function*() {
        const { gateway, bob } = yield* setupWith({
          default: "allow",
          rules: [{ id: "confirming", match: "desk/confirm", decision: "ask", reason: "confirmations need a person" }]
        })
        const shown: Array<string> = []
        const client = yield* modernClient(bob, {
          answer: (params): ElicitResult => {
            shown.push(params.message)
            return {
              action: "accept",
              content: params.message.includes("Who confirms") ? { name: "carol" } : { approve: true }
            }
          }
        })
        const result = yield* callText(client, "confirm", { text: "ship" })
        assert.deepStrictEqual(result, { isError: false, text: "ship confirmed by carol (state state-for-ship)" })
        assert.strictEqual(
          shown.filter((message) => message.includes("confirmations need a person")).length,
          1,
          "approved once"
        )
        assert.strictEqual(shown.filter((message) => message.includes("Who confirms ship?")).length, 1)
        const rows = (yield* gateway.store.query()).filter((row) => row.tool === "confirm").map((row) => row.outcome)
        assert.deepStrictEqual(rows, ["ok", "input_required", "input_required"])
      })
  )
})
