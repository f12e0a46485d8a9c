/**
 * A 2026-07-28 server's own questions within a prompts/get or resources/read, for a 2026-07-28
 * host (no server-to-client channel): relayed as a tool call's are. The host gets `input_required`
 * with the requests redacted and a state the gateway sealed (bound to the server, the method, the
 * request's digest and the principal); its retry with the answers is resumed downstream once. A
 * retry whose state is tampered, replayed, another principal's or another request's is answered
 * with a JSON-RPC error naming only the kind of refusal, and never reaches the server. Over the
 * HTTP front (SDK 2.4 clients, pinned) and the bin's stdio front.
 */
import { assert, describe, it } from "@effect/vitest"
import {
  Client,
  type InputRequiredResult,
  ProtocolError,
  StreamableHTTPClientTransport
} from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { Effect } from "effect"
import { BIN, cliIn, toolText } from "./cli-process.ts"
import { NODE, startGateway } from "./e2e.ts"
import { inputServer, SECRET } from "./input-fixture.ts"
import { MODERN } from "./modern-wire.ts"

const principals = { bob: { token: "env:BOB_TOKEN" }, mallory: { token: "env:MALLORY_TOKEN" } }
const ENV = { BOB_TOKEN: "bob-token-reads-1", MALLORY_TOKEN: "mallory-token-reads-1" }
const config = { policy: { default: "allow" }, redact: [{ pattern: "sk-[a-z0-9]{20,}" }] }
const accept = (name: string) => ({ who: { action: "accept", content: { name } } })

/**
 * A 2026-07-28 host that answers nothing itself: it sees each `input_required` and retries by hand, as a hostile host
 * could.
 */
const rawHost = (transport: StreamableHTTPClientTransport | StdioClientTransport) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name: "raw-host", version: "1.0.0" }, {
        capabilities: { elicitation: {} },
        versionNegotiation: { mode: { pin: MODERN } },
        inputRequired: { autoFulfill: false }
      })
      await client.connect(transport)
      return client
    }),
    (client) => Effect.promise(() => client.close().catch(() => undefined))
  )

const overHttp = (url: string, token: string) =>
  rawHost(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } })
  )

/** A retry's params: the answers and the state the host sends back. */
interface Retry {
  readonly inputResponses?: Record<string, unknown>
  readonly requestState?: string
}

/** What a get or read ended in: the round it asked (its requests and state), its text, or the JSON-RPC error. */
type Ended = { readonly round: InputRequiredResult } | { readonly text: string } | {
  readonly code: number
  readonly message: string
}

const settle = (run: () => Promise<unknown>) =>
  Effect.promise(() =>
    run().then(
      (result): Ended => {
        const answer = result as InputRequiredResult & {
          messages?: Array<{ content: { text?: string } }>
          contents?: Array<{ text?: string }>
        }
        if (answer.resultType === "input_required") return { round: answer }
        return {
          text: (answer.messages ?? []).map((m) => m.content.text ?? "").join("") +
            (answer.contents ?? []).map((c) => c.text ?? "").join("")
        }
      },
      (error: unknown): Ended => (error instanceof ProtocolError
        ? { code: error.code, message: error.message }
        : { code: 0, message: String(error) })
    )
  )

const getVault = (client: Client, box: string, retry: Retry = {}) =>
  settle(() => client.getPrompt({ name: "vault", arguments: { box }, ...retry }, { allowInputRequired: true }))
const readGreeting = (client: Client, retry: Retry = {}) =>
  settle(() =>
    client.readResource({ uri: "input://greeting", ...retry }, { allowInputRequired: true, cacheMode: "bypass" })
  )

/** The round a request ended in (fails the test otherwise). */
const roundOf = (
  ended: Ended
): InputRequiredResult => ("round" in ended
  ? ended.round
  : assert.fail(`expected input_required, got ${JSON.stringify(ended)}`))

/** How many times the fixture's prompts and resource ran. */
const gets = (client: Client) => Effect.promise(() => client.callTool({ name: "gets", arguments: {} }).then(toolText))

/** Asserts `ended` is the JSON-RPC refusal of a relayed state of `kind`, saying nothing of the state. */
const refusedAs = (ended: Ended, kind: string, state: string) => {
  assert.isTrue("code" in ended, `expected a JSON-RPC error, got ${JSON.stringify(ended)}`)
  if (!("code" in ended)) return
  assert.strictEqual(ended.code, -32602)
  assert.include(ended.message, `the relayed request state was refused (${kind})`)
  assert.notInclude(ended.message, state.slice(10, 40))
}

const flip = (state: string) => state.slice(0, 40) + (state[40] === "A" ? "B" : "A") + state.slice(41)

/**
 * A retry of the `confirm` round with its state tampered as the suite does it (a suffix); the SDK types no retry fields
 * on callTool.
 */
const tamperedRetry = (round: InputRequiredResult) =>
  ({
    name: "confirm",
    arguments: { text: "ship" },
    inputResponses: accept("mallory"),
    requestState: `${round.requestState}-TAMPERED`
  }) as Parameters<Client["callTool"]>[0]

/**
 * The round, retry and attacks every front must pass: `other` is another principal's host, when the front has
 * principals.
 */
const relayRounds = (host: Client, other: Client | undefined) =>
  Effect.gen(function*() {
    // prompts/get: the round reaches the host redacted, with the server's own state sealed.
    const round = roundOf(yield* getVault(host, "7"))
    const who = round.inputRequests?.who as { method: string; params: { message: string } }
    assert.strictEqual(who.method, "elicitation/create")
    assert.include(who.params.message, "Who opens box 7?")
    assert.notInclude(JSON.stringify(round), SECRET)
    const state = round.requestState!
    assert.notInclude(state, "vault-7")
    const before = yield* gets(host)
    // Attacks first: none of them reaches the server.
    refusedAs(
      yield* getVault(host, "7", { inputResponses: accept("mallory"), requestState: flip(state) }),
      "tampered",
      state
    )
    refusedAs(yield* getVault(host, "8", { inputResponses: accept("mallory"), requestState: state }), "call", state)
    refusedAs(yield* readGreeting(host, { inputResponses: accept("mallory"), requestState: state }), "call", state)
    if (other !== undefined) {
      refusedAs(
        yield* getVault(other, "7", { inputResponses: accept("mallory"), requestState: state }),
        "principal",
        state
      )
    }
    assert.strictEqual(yield* gets(host), before, "no refused retry reached the server")
    // The host's own retry finishes the get downstream, with the server's state given back to it.
    assert.deepStrictEqual(yield* getVault(host, "7", { inputResponses: accept("carol"), requestState: state }), {
      text: "box 7 opened by carol (state vault-7)"
    })
    refusedAs(yield* getVault(host, "7", { inputResponses: accept("mallory"), requestState: state }), "replayed", state)
    assert.strictEqual(yield* gets(host), String(Number(before) + 1))
    // A tool call's tampered retry is refused the same way (the suite's input-required-result-tampered-state).
    const tool = roundOf(
      yield* settle(() => host.callTool({ name: "confirm", arguments: { text: "ship" } }, { allowInputRequired: true }))
    )
    const legs = yield* Effect.promise(() => host.callTool({ name: "legs", arguments: {} }).then(toolText))
    refusedAs(
      yield* settle(() => host.callTool(tamperedRetry(tool), { allowInputRequired: true })),
      "tampered",
      tool.requestState!
    )
    assert.strictEqual(yield* Effect.promise(() => host.callTool({ name: "legs", arguments: {} }).then(toolText)), legs)
    // resources/read is relayed the same way.
    const read = roundOf(yield* readGreeting(host))
    assert.deepStrictEqual(
      yield* readGreeting(host, { inputResponses: accept("carol"), requestState: read.requestState! }),
      { text: "hello carol" }
    )
  })

describe("a server's questions within prompts/get and resources/read, relayed to a 2026-07-28 host", () => {
  it.live(
    "over HTTP: input_required, redacted and sealed; the retry finishes it; tampered, replayed, another call's or " +
      "principal's state is a JSON-RPC error that reaches no server",
    () =>
      Effect.gen(function*() {
        const { http } = yield* startGateway(
          { ...config, servers: { desk: inputServer() }, listen: { principals } },
          ENV
        )
        const bob = yield* overHttp(http.mcpUrl, ENV.BOB_TOKEN)
        const mallory = yield* overHttp(http.mcpUrl, ENV.MALLORY_TOKEN)
        yield* relayRounds(bob, mallory)
      }),
    60_000
  )

  it.live("over the bin's stdio front: the same rounds and refusals", () =>
    Effect.gen(function*() {
      const { dir, writeConfig } = cliIn("interlock-relay-reads-")
      const file = writeConfig("interlock.config.json", {
        ...config,
        servers: { desk: inputServer() },
        audit: { path: ":memory:" }
      })
      const host = yield* rawHost(
        new StdioClientTransport({
          command: NODE,
          args: ["--conditions=@interlock/source", BIN, "serve", "--stdio", "--config", file],
          cwd: dir,
          stderr: "pipe"
        })
      )
      yield* relayRounds(host, undefined)
    }), 60_000)
})
