/**
 * Toward servers: the gateway speaks 2026-07-28 to a server that offers it and a 2025 revision to
 * the rest, and a server's own requests (elicitation, sampling) within a call reach exactly the
 * host whose call caused them: asked through that host's session (a 2025 host), or handed to the
 * host as InputRequired with a sealed state and resumed on its retry (a host without a channel).
 */
import { assert, describe, it } from "@effect/vitest"
import type { Client, ElicitRequest } from "@modelcontextprotocol/client"
import { Effect } from "effect"
import { httpClient, startGateway } from "./e2e.ts"
import { inputServer, inputServerOverHttp, SECRET } from "./input-fixture.ts"

const principals = { alice: { token: "alice-token" }, bob: { token: "bob-token" } }
const base = { policy: { default: "allow" }, redact: [{ pattern: "sk-[a-z0-9]{20,}" }], listen: { principals } }

/** A host with the elicitation capability whose answers name `name`; every message it was asked lands in `seen`. */
const elicitingHost = (
  url: string,
  token: string,
  name: string,
  seen: Array<string>,
  answer?: (request: ElicitRequest, signal: AbortSignal) => Promise<unknown>
) =>
  Effect.tap(
    httpClient(url, { token, capabilities: { elicitation: { form: {} }, sampling: {} } }),
    (client: Client) =>
      Effect.sync(() => {
        client.setRequestHandler("elicitation/create", async (request, ctx) => {
          seen.push(String(request.params.message))
          if (answer !== undefined) return (await answer(request, ctx.mcpReq.signal)) as never
          return { action: "accept", content: { name } }
        })
        client.setRequestHandler("sampling/createMessage", async () => {
          seen.push("sampling")
          return { role: "assistant", content: { type: "text", text: `${name}'s model` }, model: "test" }
        })
      })
  )

/** A gateway over the 2026-07-28 fixture, and alice's eliciting host on it with what she was asked. */
const aliceOnModern = Effect.gen(function*() {
  const { http } = yield* startGateway({ ...base, servers: { modern: inputServer() } })
  const seen: Array<string> = []
  const alice = yield* elicitingHost(http.mcpUrl, "alice-token", "alice", seen)
  return { alice, seen }
})

const textOf = (result: unknown): string =>
  ((result as { content: Array<{ text?: string }> }).content ?? []).map((block) => block.text ?? "").join("")

describe("a 2026-07-28 server's requests within a call", () => {
  it.live(
    "each server gets its era with no config: 2026-07-28 over stdio and HTTP, legacy for a 2025-only server",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const http = yield* inputServerOverHttp
        const { gateway } = yield* startGateway({
          ...base,
          servers: { modern: inputServer(), web: { url: http.url }, old: inputServer("--legacy") }
        })
        for (const id of ["modern", "web", "old"]) yield* gateway.hub.connect(id)
        assert.strictEqual(gateway.hub.status("modern")?.era, "modern/2026-07-28")
        assert.strictEqual(gateway.hub.status("web")?.era, "modern/2026-07-28")
        assert.match(gateway.hub.status("old")?.era ?? "", /^legacy\/2025-/)
      })),
    60_000
  )

  it.live(
    "a 2025 host is asked the server's elicitation within its call, redacted, and the call completes with its answer",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const { alice, seen } = yield* aliceOnModern
        const result = yield* Effect.promise(() => alice.callTool({ name: "confirm", arguments: { text: "deploy" } }))
        assert.strictEqual(textOf(result), "deploy confirmed by alice (state state-for-deploy)")
        assert.strictEqual(seen.length, 1)
        assert.notInclude(seen[0], SECRET)
        assert.include(seen[0], "Who confirms deploy?")
      })),
    60_000
  )

  it.live(
    "two principals at once: each elicitation reaches the host whose call caused it, and an idle host receives " +
      "nothing (stdio and HTTP)",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const web = yield* inputServerOverHttp
        const { http } = yield* startGateway({ ...base, servers: { modern: inputServer(), web: { url: web.url } } })
        for (const server of ["modern", "web"]) {
          const aliceSeen: Array<string> = []
          const bobSeen: Array<string> = []
          // Alice answers only once Bob's elicitation has arrived, so both calls are in flight together.
          let bobAsked: () => void = () => undefined
          const bobIsAsked = new Promise<void>((resolve) => (bobAsked = resolve))
          const alice = yield* elicitingHost(http.mcpUrl, "alice-token", "alice", aliceSeen, async () => {
            await bobIsAsked
            return { action: "accept", content: { name: "alice" } }
          })
          const bob = yield* elicitingHost(http.mcpUrl, "bob-token", "bob", bobSeen, async () => {
            bobAsked()
            return { action: "accept", content: { name: "bob" } }
          })
          const tool = server === "modern" ? "modern__confirm" : "web__confirm"
          const [a, b] = yield* Effect.promise(() =>
            Promise.all([
              alice.callTool({ name: tool, arguments: { text: "alpha" } }),
              bob.callTool({ name: tool, arguments: { text: "bravo" } })
            ])
          )
          assert.strictEqual(textOf(a), "alpha confirmed by alice (state state-for-alpha)")
          assert.strictEqual(textOf(b), "bravo confirmed by bob (state state-for-bravo)")
          assert.deepStrictEqual(aliceSeen.map((m) => m.slice(0, 19)), ["Who confirms alpha?"])
          assert.deepStrictEqual(bobSeen.map((m) => m.slice(0, 19)), ["Who confirms bravo?"])

          // The attack: Bob is connected and able to answer, Alice calls; Bob must see nothing at all.
          const idleSeen: Array<string> = []
          yield* elicitingHost(http.mcpUrl, "bob-token", "mallory", idleSeen)
          const again = yield* Effect.promise(() => alice.callTool({ name: tool, arguments: { text: "charlie" } }))
          assert.strictEqual(textOf(again), "charlie confirmed by alice (state state-for-charlie)")
          assert.deepStrictEqual(idleSeen, [])
        }
      })),
    90_000
  )

  it.live(
    "sampling, a resource read and a prompt get ask the calling host too",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const { alice, seen } = yield* aliceOnModern
        assert.strictEqual(
          textOf(yield* Effect.promise(() => alice.callTool({ name: "sample", arguments: { prompt: "hi" } }))),
          "model said: alice's model"
        )
        const read = yield* Effect.promise(() => alice.readResource({ uri: "input://greeting" }))
        assert.strictEqual((read.contents[0] as { text?: string }).text, "hello alice")
        const prompt = yield* Effect.promise(() => alice.getPrompt({ name: "greet" }))
        assert.deepStrictEqual(prompt.messages[0].content, { type: "text", text: "greet alice" })
        assert.deepStrictEqual(seen, ["sampling", "Whom to greet?", "Whom to greet?"])
      })),
    60_000
  )

  it.live("a server that asks for input forever is refused after 8 rounds", () =>
    Effect.scoped(Effect.gen(function*() {
      const { alice, seen } = yield* aliceOnModern
      const outcome = yield* Effect.promise(() =>
        alice.callTool({ name: "forever", arguments: {} }).then((r) => JSON.stringify(r), (e: Error) => e.message)
      )
      assert.include(outcome, "still asked for input after 8 rounds")
      assert.strictEqual(seen.length, 8)
    })), 60_000)

  it.live(
    "the host cancelling mid round trip cancels its elicitation, and the server is not asked again",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const { http } = yield* startGateway({ ...base, servers: { modern: inputServer() } })
        let entered: () => void = () => undefined
        const asked = new Promise<void>((resolve) => (entered = resolve))
        let cancelled: () => void = () => undefined
        const hostCancelled = new Promise<string>((resolve) => (cancelled = () => resolve("cancelled")))
        const alice = yield* elicitingHost(http.mcpUrl, "alice-token", "alice", [], (_request, signal) =>
          new Promise((_resolve, reject) => {
            signal.addEventListener("abort", () => {
              cancelled()
              reject(new Error("cancelled"))
            })
            entered()
          }))
        const controller = new AbortController()
        const call = alice.callTool({ name: "confirm", arguments: { text: "stop" } }, { signal: controller.signal })
          .then(() =>
            "done", () =>
            "aborted")
        yield* Effect.promise(() =>
          asked
        )
        controller.abort()
        assert.strictEqual(
          yield* Effect.promise(() =>
            call
          ),
          "aborted"
        )
        // The gateway's cancellation reaches the host's pending elicitation; no retry leg reaches the server.
        assert.strictEqual(
          yield* Effect.promise(() => hostCancelled).pipe(
            Effect.timeoutOption("20 seconds"),
            Effect.map((o) => o._tag === "Some" ? o.value : "never")
          ),
          "cancelled"
        )
        assert.strictEqual(textOf(yield* Effect.promise(() => alice.callTool({ name: "legs", arguments: {} }))), "1")
      })),
    60_000
  )
})
