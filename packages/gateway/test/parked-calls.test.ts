/**
 * A 2026-07-28 host's call to a server the gateway speaks 2025 to (the input fixture with
 * `--legacy`, whose SDK sends its questions as server-to-client requests): the request is parked
 * in the hub (mcp's ParkedCall.ts), the server's question reaches exactly that host as an
 * `input_required` round, redacted, and the host's retry answers it on the same downstream request.
 * The attacks: another principal with the host's state, a 2025 host calling while a request is
 * parked, a host that did not declare the capability, and a host that never comes back.
 */
import { assert, describe, it } from "@effect/vitest"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Effect } from "effect"
import { httpClient, startGateway } from "./e2e.ts"
import { inputServer, SECRET } from "./input-fixture.ts"
import { callText, modernClient, PRINCIPAL_TOKENS, principalsConfig } from "./modern-front.ts"

const setup = (sessions: "shared" | "per-host" = "shared") =>
  Effect.gen(function*() {
    const { gateway, http } = yield* startGateway({
      servers: { old: { ...inputServer("--legacy"), sessions } },
      policy: { default: "allow" },
      redact: [{ detectors: "all" }],
      listen: principalsConfig.listen
    }, principalsConfig.env)
    const front = (id: string) => ({ url: http.mcpUrl, token: PRINCIPAL_TOKENS[id]! })
    return { gateway, bob: front("bob"), mallory: front("mallory") }
  })

interface Round {
  readonly resultType?: string
  readonly inputRequests?: Record<string, { readonly method: string; readonly params: { readonly message?: string } }>
  readonly requestState?: string
  readonly content?: ReadonlyArray<{ readonly text?: string }>
  readonly isError?: boolean
}

/** A 2026-07-28 host that takes each round itself (no auto-fulfil), so a test decides when and how it answers. */
const rawHost = (
  front: { readonly url: string; readonly token: string },
  capabilities: Record<string, unknown> = { elicitation: {} }
) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name: "raw-host", version: "1.0.0" }, {
        capabilities,
        versionNegotiation: { mode: { pin: "2026-07-28" } },
        inputRequired: { autoFulfill: false }
      })
      await client.connect(
        new StreamableHTTPClientTransport(new URL(front.url), {
          requestInit: { headers: { authorization: `Bearer ${front.token}` } }
        })
      )
      return client
    }),
    (client) => Effect.promise(() => client.close().catch(() => undefined))
  )

/** One tools/call leg: the round or the result as the host's SDK hands it over, or the JSON-RPC error's code. */
const leg = (client: Client, params: Record<string, unknown>) =>
  Effect.promise(() =>
    client.callTool(params as never, { allowInputRequired: true } as never).then(
      (result) => result as Round,
      (error: { readonly code?: number; readonly message?: string }) =>
        ({ error: error.code ?? -1, message: error.message }) as Round & { readonly error: number }
    )
  )

const textOf = (round: Round): string => (round.content ?? []).map((block) => block.text ?? "").join("")
const accept = (name: string) => ({ action: "accept" as const, content: { name } })

describe("a 2026-07-28 host's call to a server spoken to in 2025", () => {
  it.live(
    "the server's question reaches that host as input_required, redacted; its answer finishes the same " +
      "downstream request",
    () =>
      Effect.gen(function*() {
        const { gateway, bob, mallory } = yield* setup()
        const idle = yield* httpClient(mallory.url, { token: mallory.token, capabilities: { elicitation: {} } })
        const askedIdle: Array<unknown> = []
        idle.setRequestHandler(
          "elicitation/create",
          (request) => (askedIdle.push(request.params), Promise.resolve(accept("mallory")))
        )
        yield* Effect.promise(() => idle.listTools())
        const shown: Array<string> = []
        const client = yield* modernClient(bob, { answer: (params) => (shown.push(params.message), accept("carol")) })
        const result = yield* callText(client, "confirm", { text: "ship" })
        // The server's own state, which its SDK keeps across the 2025 request, is the one it set.
        assert.deepStrictEqual(result, { isError: false, text: "ship confirmed by carol (state state-for-ship)" })
        assert.lengthOf(shown, 1)
        assert.include(shown[0], "Who confirms ship?")
        assert.notInclude(shown[0], SECRET)
        assert.deepStrictEqual(askedIdle, [])
        const rows = (yield* gateway.store.query()).filter((row) => row.tool === "confirm").map((
          row
        ) => [row.outcome, row.principal])
        assert.deepStrictEqual(rows, [["ok", "bob"], ["input_required", "bob"]])
      })
  )

  it.live(
    "another principal with bob's state continues nothing: her answer never reaches the server, and bob still " +
      "finishes his call",
    () =>
      Effect.gen(function*() {
        const { bob, mallory } = yield* setup()
        const bobs = yield* rawHost(bob)
        const round = yield* leg(bobs, { name: "confirm", arguments: { text: "ship" } })
        assert.strictEqual(round.resultType, "input_required")
        const [key] = Object.keys(round.inputRequests ?? {})
        assert.isDefined(key)
        const hers = yield* rawHost(mallory)
        const stolen = yield* leg(hers, {
          name: "confirm",
          arguments: { text: "ship" },
          inputResponses: { [key!]: accept("mallory") },
          requestState: round.requestState
        })
        assert.notInclude(JSON.stringify(stolen), "confirmed by mallory")
        assert.notStrictEqual(stolen.resultType, "complete")
        const done = yield* leg(bobs, {
          name: "confirm",
          arguments: { text: "ship" },
          inputResponses: { [key!]: accept("carol") },
          requestState: round.requestState
        })
        assert.strictEqual(textOf(done), "ship confirmed by carol (state state-for-ship)")
        // A replay of bob's own state finds nothing left to continue.
        const replay = yield* leg(bobs, {
          name: "confirm",
          arguments: { text: "ship" },
          inputResponses: { [key!]: accept("eve") },
          requestState: round.requestState
        })
        assert.notInclude(JSON.stringify(replay), "confirmed by eve")
      })
  )

  it.live(
    "while bob's request is parked, a 2025 host's call that the server questions is refused, and is never " +
      "shown bob's question",
    () =>
      Effect.gen(function*() {
        const { bob, mallory } = yield* setup()
        const bobs = yield* rawHost(bob)
        const round = yield* leg(bobs, { name: "confirm", arguments: { text: "launch" } })
        assert.strictEqual(round.resultType, "input_required")
        const other = yield* httpClient(mallory.url, { token: mallory.token, capabilities: { elicitation: {} } })
        const shownToOther: Array<string> = []
        other.setRequestHandler(
          "elicitation/create",
          (request) => (shownToOther.push(String(request.params.message)), Promise.resolve(accept("mallory")))
        )
        const hers = yield* Effect.promise(() => other.callTool({ name: "confirm", arguments: { text: "hers" } }))
        assert.isTrue(hers.isError === true)
        assert.notInclude(JSON.stringify(hers), "confirmed by")
        assert.deepStrictEqual(shownToOther, [])
        const [key] = Object.keys(round.inputRequests ?? {})
        const done = yield* leg(bobs, {
          name: "confirm",
          arguments: { text: "launch" },
          inputResponses: { [key!]: accept("carol") },
          requestState: round.requestState
        })
        assert.strictEqual(textOf(done), "launch confirmed by carol (state state-for-launch)")
      })
  )

  it.live(
    "a 2025 host's call cancelled mid-question leaves nothing in flight: bob's later request is parked " +
      "and answered",
    () =>
      Effect.gen(function*() {
        const { bob, mallory } = yield* setup()
        const other = yield* httpClient(mallory.url, { token: mallory.token, capabilities: { elicitation: {} } })
        let asked: () => void = () => undefined
        const questioned = new Promise<void>((resolve) => (asked = resolve))
        // Her host is asked, and never answers: she gives up on the call instead.
        other.setRequestHandler("elicitation/create", () => (asked(), new Promise<never>(() => undefined)))
        const abort = new AbortController()
        const hers = other.callTool({ name: "confirm", arguments: { text: "hers" } }, { signal: abort.signal })
          .then(() => "answered", () => "cancelled")
        yield* Effect.promise(() => questioned)
        abort.abort()
        assert.strictEqual(yield* Effect.promise(() => hers), "cancelled")
        // Were her request still counted in flight, bob's question could not be attributed, and he would be refused.
        const bobs = yield* rawHost(bob)
        const round = yield* Effect.eventually(
          Effect.flatMap(
            leg(bobs, { name: "confirm", arguments: { text: "after" } }),
            (answer) => answer.resultType === "input_required" ? Effect.succeed(answer) : Effect.fail(answer)
          )
        ).pipe(Effect.timeout("10 seconds"))
        const [key] = Object.keys(round.inputRequests ?? {})
        const done = yield* leg(bobs, {
          name: "confirm",
          arguments: { text: "after" },
          inputResponses: { [key!]: accept("carol") },
          requestState: round.requestState
        })
        assert.strictEqual(textOf(done), "after confirmed by carol (state state-for-after)")
      })
  )

  it.live("a host that did not declare elicitation gets -32021 naming it, and is shown nothing", () =>
    Effect.gen(function*() {
      const { bob } = yield* setup()
      const bare = yield* rawHost(bob, {})
      const answer = yield* leg(bare, { name: "confirm", arguments: { text: "ship" } }) as Effect.Effect<
        Round & { readonly error?: number }
      >
      assert.strictEqual(answer.error, -32021)
      assert.notInclude(JSON.stringify(answer), SECRET)
    }))

  it.live("an unanswered key is asked again; the answer to a key never asked is not passed on", () =>
    Effect.gen(function*() {
      const { bob } = yield* setup()
      const bobs = yield* rawHost(bob)
      const round = yield* leg(bobs, { name: "confirm", arguments: { text: "ship" } })
      const [key] = Object.keys(round.inputRequests ?? {})
      const again = yield* leg(bobs, {
        name: "confirm",
        arguments: { text: "ship" },
        inputResponses: { "not-asked": accept("eve") },
        requestState: round.requestState
      })
      assert.strictEqual(again.resultType, "input_required")
      assert.deepStrictEqual(Object.keys(again.inputRequests ?? {}), [key])
      const done = yield* leg(bobs, {
        name: "confirm",
        arguments: { text: "ship" },
        inputResponses: { [key!]: accept("carol") },
        requestState: again.requestState
      })
      assert.strictEqual(textOf(done), "ship confirmed by carol (state state-for-ship)")
    }))

  it.live(
    "a server killed while a request is parked: the host's retry is told the request is gone, and " +
      "nothing finishes",
    () =>
      Effect.gen(function*() {
        const { gateway, bob } = yield* setup()
        const bobs = yield* rawHost(bob)
        const pid = Number(textOf(yield* leg(bobs, { name: "pid", arguments: {} })))
        const round = yield* leg(bobs, { name: "confirm", arguments: { text: "ship" } })
        const [key] = Object.keys(round.inputRequests ?? {})
        process.kill(pid, "SIGKILL")
        yield* Effect.sleep("300 millis")
        const retry = yield* leg(bobs, {
          name: "confirm",
          arguments: { text: "ship" },
          inputResponses: { [key!]: accept("carol") },
          requestState: round.requestState
        })
        assert.notInclude(JSON.stringify(retry), "confirmed by")
        assert.include(JSON.stringify(retry), "no longer running")
        const finished = (yield* gateway.store.query()).filter((row) => row.tool === "confirm" && row.outcome === "ok")
        assert.lengthOf(finished, 0)
      })
  )

  it.live(
    "on a per-host server each 2026-07-28 host's request gets its own session: two parked at once are each " +
      "answered by their own host",
    () =>
      Effect.gen(function*() {
        const { bob, mallory } = yield* setup("per-host")
        const bobs = yield* rawHost(bob)
        const hers = yield* rawHost(mallory)
        const [first, second] = yield* Effect.all([
          leg(bobs, { name: "confirm", arguments: { text: "bob-thing" } }),
          leg(hers, { name: "confirm", arguments: { text: "her-thing" } })
        ], { concurrency: 2 })
        assert.strictEqual(first.resultType, "input_required")
        assert.strictEqual(second.resultType, "input_required")
        assert.include(Object.values(first.inputRequests ?? {})[0]?.params.message, "bob-thing")
        assert.include(Object.values(second.inputRequests ?? {})[0]?.params.message, "her-thing")
        const [bobDone, herDone] = yield* Effect.all([
          leg(bobs, {
            name: "confirm",
            arguments: { text: "bob-thing" },
            inputResponses: { [Object.keys(first.inputRequests!)[0]!]: accept("bob") },
            requestState: first.requestState
          }),
          leg(hers, {
            name: "confirm",
            arguments: { text: "her-thing" },
            inputResponses: { [Object.keys(second.inputRequests!)[0]!]: accept("mallory") },
            requestState: second.requestState
          })
        ], { concurrency: 2 })
        assert.strictEqual(textOf(bobDone), "bob-thing confirmed by bob (state state-for-bob-thing)")
        assert.strictEqual(textOf(herDone), "her-thing confirmed by mallory (state state-for-her-thing)")
      })
  )
})
