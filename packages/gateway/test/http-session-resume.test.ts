/** HttpSessionTransport's resumable streams: Last-Event-ID, the SDK host's reconnection, bad event ids and priming. */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { request } from "node:http"

import { call, connect, raw, rawSession, serveWith, stepsWithProgress } from "./http-session-server.ts"

/** One server-sent event: its fields (`data` joined), comments left out. */
type Sse = Readonly<Record<string, string>>

const parseEvents = (text: string): Array<Sse> =>
  text.split("\n\n").map((block) => block.split("\n").filter((line) => line.length > 0 && !line.startsWith(":")))
    .filter((lines) => lines.length > 0).map((lines) =>
      Object.fromEntries(lines.map((line) => {
        const at = line.indexOf(":")
        return [line.slice(0, at), line.slice(at + 1).replace(/^ /, "")]
      }))
    )

/** A POST whose event stream is read as it arrives: wait for the first `count` events, or drop the connection. */
const openStream = (url: string, headers: Record<string, string>, body: unknown) =>
  Effect.promise(() =>
    new Promise<
      { readonly status: number; readonly first: (count: number) => Promise<Array<Sse>>; readonly drop: () => void }
    >((resolve, reject) => {
      const req = request(url, { method: "POST", headers }, (res) => {
        let text = ""
        let wake: () => void = () => {}
        res.setEncoding("utf8")
        res.on("data", (chunk: string) => {
          text += chunk
          wake()
        })
        res.on("error", () => undefined)
        const first = async (count: number) => {
          while (parseEvents(text.slice(0, text.lastIndexOf("\n\n") + 2)).length < count) {
            await new Promise<void>((resolve) => (wake = resolve))
          }
          return parseEvents(text).slice(0, count)
        }
        resolve({ status: res.statusCode ?? 0, first, drop: () => req.destroy() })
      })
      req.on("error", () => undefined)
      req.once("error", reject)
      req.end(JSON.stringify(body))
    })
  )

const message = (event: Sse | undefined) => JSON.parse(event?.data ?? "null")

describe("HttpSessionTransport, resumable", () => {
  it.live(
    "a host that drops a call's stream mid-call resumes it with Last-Event-ID: the events it missed, then " +
      "the answer",
    () =>
      Effect.gen(function*() {
        const { url } = yield* serveWith({ resumable: true, retryMs: 50 })
        const headers = yield* rawSession(url, "2025-11-25")
        const post = yield* openStream(url, headers, call(7, "pause", { progressToken: "p" }))
        assert.strictEqual(post.status, 200)
        const [priming, progress] = yield* Effect.promise(() => post.first(2))
        assert.deepStrictEqual(Object.keys(priming).sort(), ["data", "id", "retry"])
        assert.deepInclude(priming, { retry: "50", data: "" })
        assert.deepInclude(message(progress), { method: "notifications/progress" })
        assert.isString(progress.id)
        post.drop()
        yield* Effect.sleep(50) // the retry the priming event asked for
        const get = { ...headers, accept: "text/event-stream" }
        const resumed = yield* raw(url, "GET", { ...get, "last-event-id": priming.id })
        assert.deepInclude(resumed, { status: 200, type: "text/event-stream" })
        const events = parseEvents(resumed.body)
        assert.deepStrictEqual(events.map((event) => event.id), [progress.id, events[1]?.id])
        assert.deepStrictEqual(message(events[1]), {
          jsonrpc: "2.0",
          id: 7,
          result: { content: [{ type: "text", text: "paused" }] }
        })
        // The call is over: a second resume from the progress event gets just the answer, and the stream ends.
        const again = yield* raw(url, "GET", { ...get, "last-event-id": progress.id })
        assert.deepStrictEqual(parseEvents(again.body).map(message), [message(events[1])])
      })
  )

  it.live(
    "an SDK host whose call stream the server closes mid-call reconnects after the retry, resumes, and gets " +
      "the answer",
    () =>
      Effect.gen(function*() {
        const { url, resumes } = yield* serveWith({ resumable: true, retryMs: 20 })
        const client = yield* connect(url)
        const seen: Array<number> = []
        const result = yield* Effect.promise(() =>
          client.callTool({ name: "cut", arguments: {} }, {
            onprogress: (progress) => void seen.push(progress.progress)
          })
        )
        assert.deepStrictEqual(result.content, [{ type: "text", text: "resumed" }])
        assert.deepStrictEqual(seen, [1], "the progress is not delivered twice")
        assert.lengthOf(resumes, 1)
      })
  )

  it.live(
    "an unknown or malformed event id is refused with 400; resuming a stream that is still connected is " +
      "a conflict",
    () =>
      Effect.gen(function*() {
        const { url, hanging } = yield* serveWith({ resumable: true, log: { maxEvents: 5 } })
        const headers = yield* rawSession(url, "2025-11-25")
        const get = { ...headers, accept: "text/event-stream" }
        for (const id of ["999", "abc", "-1"]) {
          const refused = yield* raw(url, "GET", { ...get, "last-event-id": id })
          assert.strictEqual(refused.status, 400, id)
          assert.include(refused.body, "Invalid event ID format")
        }
        const post = yield* openStream(url, headers, call(8, "hang"))
        const [priming] = yield* Effect.promise(() => post.first(1))
        yield* Effect.promise(() => hanging)
        const conflict = yield* raw(url, "GET", { ...get, "last-event-id": priming.id })
        assert.strictEqual(conflict.status, 409)
        assert.include(conflict.body, "Stream already has an active connection")
        // Past the log's cap the priming event is gone: resuming from it is refused like an unknown id.
        for (let i = 0; i < 5; i++) {
          assert.strictEqual((yield* raw(url, "POST", headers, call(20 + i, "echo"))).status, 200)
        }
        post.drop()
        yield* Effect.sleep(20)
        const evicted = yield* raw(url, "GET", { ...get, "last-event-id": priming.id })
        assert.strictEqual(evicted.status, 400)
      })
  )

  it.live(
    "priming follows the session's negotiated version, not a contradicting header; off, a call is answered as " +
      "plain JSON",
    () =>
      Effect.gen(function*() {
        const { url } = yield* serveWith({ resumable: true })
        const current = yield* rawSession(url, "2025-11-25")
        const answer = yield* raw(url, "POST", { ...current, "mcp-protocol-version": "2025-03-26" }, call(9, "echo"))
        assert.strictEqual(answer.type, "text/event-stream")
        const [priming, echoed] = parseEvents(answer.body)
        assert.deepInclude(priming, { retry: "1000", data: "" })
        assert.deepInclude(message(echoed), { id: 9 })
        assert.isString(echoed.id)

        const second = (yield* serveWith({ resumable: true })).url
        const older = parseEvents(
          (yield* raw(second, "POST", yield* rawSession(second, "2025-06-18"), call(10, "echo"))).body
        )
        assert.deepStrictEqual(
          older.map((event) => message(event).id),
          [10],
          "no priming event in a 2025-06-18 session"
        )
        assert.isString(older[0].id)

        const off = (yield* serveWith()).url
        const plain = yield* raw(off, "POST", yield* rawSession(off, "2025-11-25"), call(11, "echo"))
        assert.strictEqual(plain.type, "application/json")
        assert.deepInclude(JSON.parse(plain.body), { id: 11 })

        // The SDK's client takes the priming events in its stride.
        const client = yield* connect((yield* serveWith({ resumable: true })).url)
        const { result, seen } = yield* stepsWithProgress(client)
        assert.deepStrictEqual(result.content, [{ type: "text", text: "done" }])
        assert.deepStrictEqual(seen, [1, 2, 3])
      })
  )
})
