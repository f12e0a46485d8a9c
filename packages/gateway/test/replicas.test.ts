/**
 * Several replicas behave as one: real `interlock serve` processes on one real Postgres server
 * (test/postgres.ts), each with its own echo server, and real SDK clients that take turns between
 * them. A rate limit holds across all of them together; an approval pending on one is answered
 * through another's console API (and not by a caller, nor for another digest); a tool definition
 * pinned on one is enforced on the others; a replica killed with kill -9 in the middle leaves the
 * others serving, and its pending approval cannot be answered.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Client } from "@modelcontextprotocol/client"
import { Effect, Fiber, Schedule } from "effect"
import { cliIn, serveHttp, toolText } from "./cli-process.ts"
import { echoServer, httpClient } from "./e2e.ts"
import { usePostgres } from "./postgres.ts"

const server = usePostgres()

const TOKENS = { ALICE: "alice-token-0123456789", BOB: "bob-token-0123456789", MALLORY: "mallory-token-0123456789" }

/**
 * Every replica's config: one echo server (its echo's definition changed, for `changed`), state on the audit's
 * Postgres.
 */
const config = (changed = false) => ({
  servers: {
    echo: changed ? { ...echoServer, env: { ECHO_DESCRIPTION: "Echoes its text, and mails it elsewhere" } } : echoServer
  },
  audit: { postgres: "env:DATABASE_URL" },
  listen: {
    principals: { alice: { token: "env:ALICE" }, bob: { token: "env:BOB" }, mallory: { token: "env:MALLORY" } }
  },
  approvals: { approvers: ["bob"], timeoutSeconds: 60 },
  policy: {
    default: "allow",
    rules: [{ id: "writes", match: "echo/write_file", decision: "ask", reason: "writes need a person" }]
  },
  rateLimits: [{ match: "echo/pid", perMinute: 5 }],
  pinTools: true
})

/**
 * Starts `count` replicas on a fresh database, the first before the others (it pins the tools); the last one's echo
 * changed when `changedLast`.
 */
const replicas = (count: number, changedLast = false) =>
  Effect.gen(function*() {
    const database = yield* server.freshDatabase()
    const { dir } = cliIn("interlock-replicas-")
    const env = { ...TOKENS, DATABASE_URL: server.url(database) }
    const serve = (i: number) => serveHttp(dir, config(changedLast && i === count - 1), env, `replica-${i}.json`)
    const first = yield* serve(0)
    const others = yield* Effect.forEach(Array.from({ length: count - 1 }, (_, i) => i + 1), serve, {
      concurrency: "unbounded"
    })
    return [first, ...others]
  })

/** A pending approval as the console's state lists it. */
interface Pending {
  readonly id: string
  readonly digest: string
  readonly tool: string
  readonly principal: string
}

/** One request to a replica's console API with `token`: the status and the JSON body. */
const api = (consoleUrl: string, path: string, token: string | undefined, body?: unknown) =>
  Effect.promise(async () => {
    const res = await fetch(new URL(path, consoleUrl), {
      method: body === undefined ? "GET" : "POST",
      headers: {
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        "content-type": "application/json"
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    return {
      status: res.status,
      body: await res.json() as {
        readonly approvals?: ReadonlyArray<Pending>
        readonly error?: string
        readonly ok?: boolean
      }
    }
  })

/** The pending approvals bob sees through a replica's console. */
const pendingVia = (consoleUrl: string) =>
  Effect.map(api(consoleUrl, "/api/state", TOKENS.BOB), (answer) => answer.body.approvals ?? [])

/** Waits until a replica's console lists `count` pending approvals; them. */
const awaitPending = (consoleUrl: string, count: number) =>
  Effect.repeat(pendingVia(consoleUrl), {
    until: (pending) => pending.length === count,
    schedule: Schedule.spaced("50 millis")
  })

const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  Effect.promise(() =>
    client.callTool({ name, arguments: args }).then((result) => ({
      isError: result.isError === true,
      text: toolText(result)
    }))
  )

const answerWith = (
  consoleUrl: string,
  token: string | undefined,
  pending: Pending,
  decision: "allow" | "deny",
  digest = pending.digest
) => api(consoleUrl, `/api/approvals/${pending.id}`, token, { decision, digest })

describe("replicas on one Postgres", () => {
  it.live(
    "a limit of 5 per minute allows 5 calls across three replicas together, the client taking turns",
    () =>
      Effect.gen(function*() {
        const gateways = yield* replicas(3)
        const clients = yield* Effect.forEach(gateways, (gateway) => httpClient(gateway.url, { token: TOKENS.ALICE }))
        const results = []
        for (let i = 0; i < 9; i++) results.push(yield* call(clients[i % 3], "pid"))
        assert.deepStrictEqual(results.map((result) => result.isError), [
          false,
          false,
          false,
          false,
          false,
          true,
          true,
          true,
          true
        ])
        for (const denied of results.slice(5)) {
          assert.include(denied.text, "rate limit exceeded: at most 5 calls per minute")
        }
        // The turns went to three gateways, each with its own server process.
        assert.strictEqual(
          new Set(results.slice(0, 3).map((result) => result.text)).size,
          3
        )
        // Another principal has its own budget, on any replica.
        const bob = yield* httpClient(gateways[1].url, { token: TOKENS.BOB })
        assert.isFalse((yield* call(bob, "pid")).isError)
      }),
    120_000
  )

  it.live(
    "an approval pending on A is answered through B's console and the call on A completes; a caller, another digest " +
      "and no token answer nothing",
    () =>
      Effect.gen(function*() {
        const [a, b, c] = yield* replicas(3)
        const alice = yield* httpClient(a.url, { token: TOKENS.ALICE })
        const waiting = yield* Effect.forkChild(call(alice, "write_file", { path: "a.txt", content: "hello" }))
        const [pending] = yield* awaitPending(b.consoleUrl, 1)
        assert.deepStrictEqual([pending.tool, pending.principal], ["write_file", "alice"])
        assert.deepStrictEqual(
          (yield* pendingVia(c.consoleUrl)).map((entry) => entry.id),
          [pending.id],
          "every replica lists it"
        )

        // Attacks through other replicas: each is refused, and the call stays pending.
        const mallory = yield* answerWith(b.consoleUrl, TOKENS.MALLORY, pending, "allow")
        assert.strictEqual(mallory.status, 404, "a caller does not even see another's pending approval")
        const own = yield* answerWith(b.consoleUrl, TOKENS.ALICE, pending, "allow")
        assert.strictEqual(own.status, 403)
        assert.include(own.body.error, "only an approver may answer")
        const otherDigest = yield* answerWith(c.consoleUrl, TOKENS.BOB, pending, "allow", "0".repeat(64))
        assert.include(otherDigest.body.error, "digest differs")
        const anonymous = yield* answerWith(b.consoleUrl, undefined, pending, "allow")
        assert.strictEqual(anonymous.status, 401)
        assert.isUndefined(waiting.pollUnsafe(), "nothing was approved")
        assert.deepStrictEqual((yield* pendingVia(a.consoleUrl)).map((entry) => entry.id), [pending.id])

        const approved = yield* answerWith(b.consoleUrl, TOKENS.BOB, pending, "allow")
        assert.deepStrictEqual([approved.status, approved.body], [200, { ok: true }])
        assert.deepStrictEqual(yield* Fiber.join(waiting), { isError: false, text: "wrote a.txt" })
        // Answered once: a replay through the third replica finds nothing.
        assert.strictEqual((yield* answerWith(c.consoleUrl, TOKENS.BOB, pending, "allow")).status, 404)
        assert.deepStrictEqual(yield* pendingVia(c.consoleUrl), [])
      }),
    120_000
  )

  it.live(
    "a tool definition pinned on A is enforced on C, whose server changed it; unchanged tools and replicas " +
      "keep working",
    () =>
      Effect.gen(function*() {
        const [a, c] = yield* replicas(2, true)
        const [onA, onC] = yield* Effect.forEach([a, c], (gateway) => httpClient(gateway.url, { token: TOKENS.ALICE }))
        assert.deepStrictEqual(yield* call(onA, "echo", { text: "hi" }), { isError: false, text: "hi" })
        const listed = yield* Effect.promise(() => onC.listTools())
        assert.include(listed.tools.find((tool) => tool.name === "echo")?.description, "mails it elsewhere")
        const refused = yield* call(onC, "echo", { text: "hi" })
        assert.isTrue(refused.isError)
        assert.include(refused.text, "the tool's definition changed since it was pinned")
        assert.notInclude(refused.text, "hi")
        assert.isFalse((yield* call(onC, "pid")).isError, "an unchanged tool is not refused")
        assert.deepStrictEqual(yield* call(onA, "echo", { text: "again" }), { isError: false, text: "again" })
      }),
    120_000
  )

  it.live(
    "kill -9 of a replica in the middle: the others keep serving and sharing, and its pending approval cannot " +
      "be answered",
    () =>
      Effect.gen(function*() {
        const [a, b, c] = yield* replicas(3)
        const clients = yield* Effect.forEach([a, b, c], (gateway) => httpClient(gateway.url, { token: TOKENS.ALICE }))
        for (let i = 0; i < 3; i++) assert.isFalse((yield* call(clients[i], "pid")).isError)
        // A call waits for approval on C, and one on A.
        yield* Effect.forkChild(Effect.exit(call(clients[2], "write_file", { path: "on-c.txt", content: "x" })))
        const [onC] = yield* awaitPending(b.consoleUrl, 1)
        const onA = yield* Effect.forkChild(call(clients[0], "write_file", { path: "on-a.txt", content: "x" }))
        const both = yield* awaitPending(b.consoleUrl, 2)
        const pendingOnA = both.find((entry) => entry.id !== onC.id)!

        yield* Effect.promise(c.kill)
        // Postgres ends the killed process's connections: its approval leaves every listing, and answering it does
        // nothing.
        yield* awaitPending(b.consoleUrl, 1)
        assert.deepStrictEqual((yield* pendingVia(a.consoleUrl)).map((entry) => entry.id), [pendingOnA.id])
        const ghost = yield* answerWith(a.consoleUrl, TOKENS.BOB, onC, "allow")
        assert.strictEqual(ghost.status, 404)

        // The survivors go on: taking turns, the shared limit counts on (3 before, 2 left), and A's approval is
        // answered via B.
        const after = []
        for (let i = 0; i < 4; i++) after.push(yield* call(clients[i % 2], "pid"))
        assert.deepStrictEqual(after.map((result) => result.isError), [false, false, true, true])
        assert.strictEqual((yield* answerWith(b.consoleUrl, TOKENS.BOB, pendingOnA, "allow")).status, 200)
        assert.deepStrictEqual(yield* Fiber.join(onA), { isError: false, text: "wrote on-a.txt" })
      }),
    120_000
  )
})
