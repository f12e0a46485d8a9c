/**
 * `servers.<id>.sessions: "per-host"` for a 2025-era server: one downstream session (here, one
 * process) per host connection, closed when the host goes, so the server's own requests reach
 * exactly that host; capped by `maxSessions`. "shared" keeps one session for every host.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Effect, Schedule } from "effect"
import { httpClient, startGateway } from "./e2e.ts"
import { inputServer } from "./input-fixture.ts"

const principals = { alice: { token: "alice-token" }, bob: { token: "bob-token" } }
const legacyServer = (sessions: Record<string, unknown>) => ({ ...inputServer("--legacy"), ...sessions })
const gatewayWith = (sessions: Record<string, unknown>) =>
  startGateway({ policy: { default: "allow" }, listen: { principals }, servers: { old: legacyServer(sessions) } })

const textOf = (result: unknown): string =>
  ((result as { content: Array<{ text?: string }> }).content ?? []).map((block) => block.text ?? "").join("")

/** A host that answers elicitations with `name` once `gate` resolves, recording each message. */
const host = (url: string, token: string, name: string, seen: Array<string>, gate: Promise<void> = Promise.resolve()) =>
  Effect.tap(
    httpClient(url, { token, capabilities: { elicitation: { form: {} } } }),
    (client: Client) =>
      Effect.sync(() =>
        client.setRequestHandler("elicitation/create", async (request) => {
          seen.push(String(request.params.message).slice(0, 19))
          await gate
          return { action: "accept", content: { name } }
        })
      )
  )

/**
 * Alice (whose answers wait until `release`) and Bob, each recording what they are asked; `aliceAsked` waits for her
 * first question.
 */
const twoHosts = (url: string) =>
  Effect.gen(function*() {
    let release: () => void = () => undefined
    const gate = new Promise<void>((resolve) => (release = resolve))
    const aliceSeen: Array<string> = []
    const bobSeen: Array<string> = []
    const alice = yield* host(url, "alice-token", "alice", aliceSeen, gate)
    const bob = yield* host(url, "bob-token", "bob", bobSeen)
    const aliceAsked = Effect.sync(() => aliceSeen.length).pipe(
      Effect.repeat({ schedule: Schedule.spaced("20 millis"), until: (n) => n > 0, times: 500 })
    )
    return { alice, bob, aliceSeen, bobSeen, release, aliceAsked }
  })

const pidOf = (client: Client) =>
  Effect.map(Effect.promise(() => client.callTool({ name: "pid", arguments: {} })), (r) => Number(textOf(r)))

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe("per-host sessions of a 2025-era server", () => {
  it.live(
    "each host gets its own process, its elicitations go to it alone while another host's call runs, and its " +
      "process ends with it",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const { http, gateway } = yield* gatewayWith({ sessions: "per-host" })
        yield* gateway.hub.connect("old")
        assert.match(gateway.hub.status("old")?.era ?? "", /^legacy\//)
        const { alice, bob, aliceSeen, bobSeen, release, aliceAsked } = yield* twoHosts(http.mcpUrl)
        const [alicePid, bobPid] = [yield* pidOf(alice), yield* pidOf(bob)]
        assert.notStrictEqual(alicePid, bobPid)
        // Alice's call waits on her answer while Bob's runs on the same server: each is asked its own.
        const aliceCall = alice.callTool({ name: "confirm", arguments: { text: "alpha" } })
        yield* aliceAsked
        const bobResult = yield* Effect.promise(() => bob.callTool({ name: "confirm", arguments: { text: "bravo" } }))
        release()
        assert.match(textOf(bobResult), /^bravo confirmed by bob/)
        assert.match(textOf(yield* Effect.promise(() => aliceCall)), /^alpha confirmed by alice/)
        assert.deepStrictEqual(aliceSeen, ["Who confirms alpha?"])
        assert.deepStrictEqual(bobSeen, ["Who confirms bravo?"])
        // Bob ends his session (DELETE): his process ends, Alice's stays.
        yield* Effect.promise(() => (bob.transport as StreamableHTTPClientTransport).terminateSession())
        yield* Effect.sync(() => alive(bobPid)).pipe(
          Effect.repeat({ schedule: Schedule.spaced("50 millis"), until: (up) => !up, times: 200 })
        )
        assert.isFalse(alive(bobPid))
        assert.isTrue(alive(alicePid))
      })),
    90_000
  )

  it.live(
    "shared (the default) serves every host from one process, and refuses a request it cannot attribute",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const { http } = yield* gatewayWith({})
        const { alice, bob, bobSeen, release, aliceAsked } = yield* twoHosts(http.mcpUrl)
        assert.strictEqual(yield* pidOf(alice), yield* pidOf(bob))
        const aliceCall = alice.callTool({ name: "confirm", arguments: { text: "alpha" } })
        yield* aliceAsked
        const bobOutcome = yield* Effect.promise(() =>
          bob.callTool({ name: "confirm", arguments: { text: "bravo" } }).then(
            (r) => textOf(r),
            (e: Error) => e.message
          )
        )
        release()
        assert.notInclude(bobOutcome, "confirmed by")
        assert.deepStrictEqual(bobSeen, [], "bob was never asked")
        assert.match(
          textOf(yield* Effect.promise(() => aliceCall)),
          /^alpha confirmed by alice/
        )
      })),
    90_000
  )

  it.live(
    "maxSessions bounds the per-host sessions: a host beyond it is refused",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const { http } = yield* gatewayWith({ sessions: "per-host", maxSessions: 1 })
        const alice = yield* host(http.mcpUrl, "alice-token", "alice", [])
        const bob = yield* host(http.mcpUrl, "bob-token", "bob", [])
        assert.isAbove(yield* pidOf(alice), 0)
        const refused = yield* Effect.promise(() =>
          bob.callTool({ name: "pid", arguments: {} }).then((r) => textOf(r), (e: Error) => e.message)
        )
        assert.include(refused, "per-host sessions open")
      })),
    90_000
  )
})
