/**
 * The 2026-07-28 front when the call path asks the host first (InputRequired): a 2026-07-28 host gets input_required,
 * answers it and the retry reaches the call path with its answers, state and client info; a 2025 host is refused and
 * never asked, whatever its request carries.
 */
import { assert, describe, it } from "@effect/vitest"
import { Client, InMemoryTransport } from "@modelcontextprotocol/client"
import { inputRequired } from "@modelcontextprotocol/server"
import { Effect } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { CurrentHostClient, type HostClient } from "../src/calls/HostClient.ts"
import { CurrentHostInput, type HostInput, InputRequired } from "../src/calls/InputRound.ts"
import type { FrontDeps } from "../src/front/FrontServer.ts"
import { makeFrontServer } from "../src/front/FrontServer.ts"
import { makeModernFront } from "../src/front/http/mcp/ModernRoute.ts"
import { readBody } from "../src/front/http/RequestBody.ts"
import { NEEDS_MODERN } from "../src/front/RequestEra.ts"
import { toolText } from "./cli-process.ts"
import { echoServer, startGateway } from "./e2e.ts"
import { envelope, modernHttpClient, modernPost } from "./modern-wire.ts"

/** What a call's request handed the call path: the host's input and client. */
interface Handed {
  readonly input: HostInput | undefined
  readonly client: HostClient | undefined
}

/**
 * A gateway's front deps whose echo call asks the host first (InputRequired) unless the request carried its answers;
 * records what each call was handed.
 */
const askingDeps = (deps: FrontDeps, handed: Array<Handed>): FrontDeps => ({
  ...deps,
  calls: {
    ...deps.calls,
    callTool: (input, options) =>
      Effect.gen(function*() {
        const answered = yield* CurrentHostInput
        handed.push({ input: answered, client: yield* CurrentHostClient })
        // The approval's state is its own, not a relayed round's: the call goes on without it, as ApprovalRound's does.
        if (answered?.requestState === "sealed-1") {
          return yield* Effect.provideService(deps.calls.callTool(input, options), CurrentHostInput, undefined)
        }
        // The approvals helper adds InputRequired to the calls' failures; this stands in for it.
        return yield* new InputRequired({
          inputRequests: {
            approve: inputRequired.elicit({
              message: "Approve the echo?",
              requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } }
            })
          },
          requestState: "sealed-1"
        })
      })
  }
})

describe("InputRequired from the call path", () => {
  it.live(
    "a 2026-07-28 host gets input_required, answers it, and the retry's answers and state reach the call path with " +
      "the client info",
    () =>
      Effect.gen(function*() {
        const { gateway } = yield* startGateway({ servers: { echo: echoServer }, policy: { default: "allow" } })
        const handed: Array<Handed> = []
        const front = makeModernFront(askingDeps(gateway.deps, handed))
        const server = createServer((req, res) => {
          void readBody(req, 1_000_000).then((body) => front.serve(req, res, JSON.parse(String(body)), undefined))
        })
        yield* Effect.acquireRelease(
          Effect.callback<void>((resume) => void server.listen(0, "127.0.0.1", () => resume(Effect.void))),
          () => Effect.promise(() => front.close().then(() => new Promise((resolve) => server.close(resolve))))
        )
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`
        const host = yield* modernHttpClient(url, { name: "asking-host", capabilities: { elicitation: { form: {} } } })
        const asked: Array<unknown> = []
        host.setRequestHandler("elicitation/create", (request) => {
          asked.push(request.params)
          return { action: "accept", content: { ok: true } }
        })
        const result = yield* Effect.promise(() => host.callTool({ name: "echo", arguments: { text: "approved" } }))
        assert.strictEqual(toolText(result), "approved")
        assert.lengthOf(asked, 1)
        assert.lengthOf(handed, 2)
        // Every modern request says so (InputRound.ts's signal); the first one carries no answers.
        assert.deepStrictEqual(handed[0].input, {
          inputResponses: {},
          requestState: undefined,
          elicitation: true
        }, "the first request carried no answers")
        assert.deepStrictEqual(handed[1].input, {
          inputResponses: { approve: { action: "accept", content: { ok: true } } },
          requestState: "sealed-1",
          elicitation: true
        })
        for (const seen of handed) assert.deepStrictEqual(seen.client, { name: "asking-host", version: "2.0.0" })
        // Without answers, the raw wire shows the input_required result itself.
        const raw = yield* modernPost(url, {
          id: 9,
          method: "tools/call",
          params: { name: "echo", arguments: { text: "x" }, _meta: envelope("raw-host", { elicitation: { form: {} } }) }
        })
        assert.strictEqual(raw.json.result.resultType, "input_required")
        assert.strictEqual(raw.json.result.requestState, "sealed-1")
        assert.deepStrictEqual(Object.keys(raw.json.result.inputRequests), ["approve"])
      }),
    60_000
  )

  it.live(
    "a 2025 host never gets it as a success: the call is refused, and nothing is asked of the host",
    () =>
      Effect.gen(function*() {
        const { gateway } = yield* startGateway({ servers: { echo: echoServer }, policy: { default: "allow" } })
        const handed: Array<Handed> = []
        const server = makeFrontServer(askingDeps(gateway.deps, handed), undefined, "legacy")
        const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
        const host = new Client({ name: "legacy-host", version: "1.0.0" }, {
          capabilities: { elicitation: { form: {} } }
        })
        const asked: Array<unknown> = []
        host.setRequestHandler("elicitation/create", (request) => {
          asked.push(request)
          return { action: "accept", content: { ok: true } }
        })
        yield* Effect.acquireRelease(
          Effect.promise(() => server.connect(serverSide).then(() => host.connect(clientSide))),
          () => Effect.promise(() => host.close())
        )
        const result = yield* Effect.promise(() => host.callTool({ name: "echo", arguments: { text: "never" } }))
        assert.isTrue(result.isError)
        assert.strictEqual(toolText(result), NEEDS_MODERN)
        assert.notInclude(JSON.stringify(result), "never")
        assert.lengthOf(asked, 0, "the SDK's 2025 shim did not ask the host in the call's stead")
        // A 2025 request that carries a retry's fields itself gets no host input: still refused.
        const smuggled = {
          name: "echo",
          arguments: { text: "smuggled" },
          inputResponses: { approve: { action: "accept", content: { ok: true } } },
          requestState: "sealed-1"
        }
        const again = yield* Effect.promise(() => host.callTool(smuggled as Parameters<Client["callTool"]>[0]))
        assert.strictEqual(toolText(again), NEEDS_MODERN)
        assert.lengthOf(handed, 2)
        for (const seen of handed) assert.isUndefined(seen.input)
        assert.deepStrictEqual(handed[0].client, { name: "legacy-host", version: "1.0.0" })
      }),
    60_000
  )
})
