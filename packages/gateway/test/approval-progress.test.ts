/**
 * A call waiting for a person keeps its host's request alive: with a progressToken (an SDK client
 * passes one when given `onprogress`), the gateway sends progress while the approval is pending,
 * in the web console or in the host's own elicitation, for 2025 and 2026-07-28 hosts alike.
 */
import { assert, describe, it } from "@effect/vitest"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Deferred, Effect, Fiber } from "effect"
import { WAITING_FOR_APPROVAL } from "../src/calls/ApprovalProgress.ts"
import { echoServer, startGateway } from "./e2e.ts"

const config = {
  servers: { echo: echoServer },
  policy: { default: "allow", rules: [{ match: "echo/echo", decision: "ask", reason: "echo needs a human" }] },
  approvals: { timeoutSeconds: 60 }
}

/**
 * An SDK client on `url`: 2025 by default, pinned to 2026-07-28 with `modern`; with the elicitation capability when
 * `elicit`.
 */
const host = (url: string, modern: boolean, elicit?: () => Promise<unknown>) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client(
        { name: "progress-host", version: "1.0.0" },
        {
          capabilities: elicit === undefined ? {} : { elicitation: { form: {} } },
          ...(modern ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } as const : {})
        }
      )
      if (elicit !== undefined) client.setRequestHandler("elicitation/create", () => elicit() as never)
      await client.connect(new StreamableHTTPClientTransport(new URL(url)))
      return client
    }),
    (client) => Effect.promise(() => client.close().catch(() => undefined))
  )

const text = (result: unknown) =>
  ((result as { content: Array<{ text?: string }> }).content ?? []).map((block) => block.text ?? "").join("")

/** Calls echo with `onprogress`; the progress messages seen, and a Deferred done at the first. */
const callWithProgress = (client: Client) =>
  Effect.gen(function*() {
    const first = yield* Deferred.make<void>()
    const messages: Array<string> = []
    const call = Effect.promise(() =>
      client.callTool({ name: "echo", arguments: { text: "hello" } }, {
        onprogress: (progress) => {
          messages.push(String(progress.message))
          Deferred.doneUnsafe(first, Effect.void)
        }
      })
    )
    return { call, first, messages }
  })

describe("progress while a call waits for approval", () => {
  for (const modern of [false, true]) {
    it.live(
      `${modern ? "2026-07-28" : "2025"} host, approval in the web console: progress arrives while it is pending`,
      () =>
        Effect.scoped(Effect.gen(function*() {
          const { gateway, http } = yield* startGateway(config)
          const client = yield* host(http.mcpUrl, modern)
          const { call, first, messages } = yield* callWithProgress(client)
          const fiber = yield* Effect.forkChild(call)
          yield* Deferred.await(first)
          // Progress came while the approval was pending, before anyone answered it.
          const [pending] = gateway.approvals.list()
          assert.isDefined(pending)
          assert.include(messages[0], WAITING_FOR_APPROVAL)
          assert.include(messages[0], "web console")
          assert.isTrue(yield* gateway.approvals.answer(pending.id, { decision: "allow" }))
          const result = yield* Fiber.join(fiber)
          assert.strictEqual(text(result), "hello")
        })),
      60_000
    )
  }

  it.live(
    "2025 host answering by elicitation: progress arrives while the host's prompt is open",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const { http } = yield* startGateway(config)
        const progressed = yield* Deferred.make<void>()
        // The person answers only after the host has heard progress on the waiting call.
        const client = yield* host(
          http.mcpUrl,
          false,
          () =>
            Effect.runPromise(Deferred.await(progressed)).then(() => ({ action: "accept", content: { approve: true } }))
        )
        const { call, first, messages } = yield* callWithProgress(client)
        const fiber = yield* Effect.forkChild(call)
        yield* Deferred.await(first)
        assert.include(messages[0], WAITING_FOR_APPROVAL)
        yield* Deferred.succeed(progressed, undefined)
        assert.strictEqual(text(yield* Fiber.join(fiber)), "hello")
      })),
    60_000
  )

  it.live("a call without a progressToken gets its answer and no progress", () =>
    Effect.scoped(Effect.gen(function*() {
      const { gateway, http } = yield* startGateway(config)
      const client = yield* host(http.mcpUrl, false)
      const seen: Array<unknown> = []
      client.setNotificationHandler("notifications/progress", (notification) => void seen.push(notification))
      const fiber = yield* Effect.forkChild(
        Effect.promise(() => client.callTool({ name: "echo", arguments: { text: "quiet" } }))
      )
      while (gateway.approvals.list().length === 0) yield* Effect.sleep("20 millis")
      yield* gateway.approvals.answer(gateway.approvals.list()[0].id, { decision: "allow" })
      assert.strictEqual(text(yield* Fiber.join(fiber)), "quiet")
      assert.deepStrictEqual(seen, [])
    })), 60_000)
})
