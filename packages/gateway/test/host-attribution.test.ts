/**
 * A server's own requests and log messages go to the host whose call they belong to, and nowhere
 * when that cannot be told: one host must never see what another host's call produced.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Client, CreateMessageRequest } from "@modelcontextprotocol/client"
import { Effect, Schema } from "effect"
import { attribute, type HostSession, type InFlightCall } from "../src/calls/HostSessions.ts"
import { everythingServer, httpClient, startGateway } from "./e2e.ts"

const HOSTS: ReadonlyArray<HostSession> = [{ server: {} as never }, { server: {} as never }, { server: {} as never }]

describe("attribution of a server's own messages", () => {
  it.effect.prop("a call's host when every call in flight is one host's, nobody when several hosts' are", [
    Schema.Array(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 2 })))
  ], ([owners]) =>
    Effect.sync(() => {
      const calls: Array<InFlightCall> = owners.map((at) => ({ session: HOSTS[at], notify: undefined }))
      const result = attribute(calls)
      if (calls.length === 0) return assert.strictEqual(result._tag, "Idle")
      if (new Set(owners).size > 1) return assert.strictEqual(result._tag, "Ambiguous")
      assert.strictEqual(result._tag, "Call")
      assert.strictEqual(result._tag === "Call" ? result.call : undefined, calls[calls.length - 1])
    }))

  const samplingHost = (url: string, seen: Array<string>, name: string) =>
    Effect.tap(
      httpClient(url, { capabilities: { sampling: {} } }),
      (client: Client) =>
        Effect.sync(() =>
          client.setRequestHandler("sampling/createMessage", async (request: CreateMessageRequest) => {
            seen.push(name)
            return {
              role: "assistant",
              content: { type: "text", text: `answer for ${name}: ${JSON.stringify(request.params.messages).length}` },
              model: "test"
            }
          })
        )
    )

  it.live(
    "a sampling request goes to the host whose call asked, and is refused while another host's call runs there",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const { http } = yield* startGateway({
          servers: { everything: everythingServer },
          policy: { default: "allow" }
        })
        const seen: Array<string> = []
        const alice = yield* samplingHost(http.mcpUrl, seen, "alice")
        const bob = yield* samplingHost(http.mcpUrl, seen, "bob")
        const sample = (client: Client) =>
          client.callTool({ name: "trigger-sampling-request", arguments: { prompt: "hello", maxTokens: 10 } })

        const alone = yield* Effect.promise(() => sample(bob))
        assert.notStrictEqual(alone.isError, true)
        assert.deepStrictEqual(seen, ["bob"])

        // Alice's long call is running on the same server: Bob's sampling request cannot be attributed.
        const long = alice.callTool({ name: "trigger-long-running-operation", arguments: { duration: 2, steps: 2 } })
        yield* Effect.sleep("300 millis")
        const refused = yield* Effect.promise(() =>
          sample(bob).then((result) => JSON.stringify(result), (error: Error) => error.message)
        )
        assert.include(refused, "several hosts have calls in flight")
        assert.deepStrictEqual(seen, ["bob"], "alice was never asked")
        yield* Effect.promise(() => long)

        yield* Effect.promise(() => sample(alice))
        assert.deepStrictEqual(seen, ["bob", "alice"])
      })),
    60_000
  )
})
