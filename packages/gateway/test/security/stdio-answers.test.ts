/**
 * Every request over stdio gets an answer, over the real wire (the gateway CLI as a child process):
 * a request whose id cannot be echoed (over MAX_ID_LENGTH, an integer JSON cannot carry exactly)
 * gets an error with `id: null`, as JSON-RPC 2.0 says; a batch is refused, each of its requests
 * answered (one answer for an empty batch or one over MAX_BATCH, as the HTTP front does), and the
 * gateway serves on in both eras. A fuzz run: random malformed frames, each followed by a ping.
 */
import { assert, describe, it } from "@effect/vitest"
import { Arbitrary, Effect, Schema } from "effect"
import * as path from "node:path"
import { MAX_BATCH, MAX_ID_LENGTH } from "../../src/front/http/DoorLimits.ts"
import { cliIn } from "../cli-process.ts"
import { NODE } from "../e2e.ts"
import { envelope } from "../modern-wire.ts"
import { isJsonRpcLine, type RawGateway, rawStdioGateway } from "./stdio-wire.ts"

const toolsOnly = { command: NODE, args: [path.join(import.meta.dirname, "..", "fixtures", "tools-only-server.ts")] }
const { dir, writeConfig } = cliIn("interlock-stdio-answers-")
const config = () =>
  writeConfig("tools-only.json", {
    servers: { tools: toolsOnly },
    audit: { path: ":memory:" },
    policy: { default: "allow" }
  })

/** An id over the cap, recognisable in any output: `LONG` then its tag, padded past MAX_ID_LENGTH. */
const longId = (tag: string | number, length = MAX_ID_LENGTH + 1) => `LONG${tag}-`.padEnd(length, "x")

/** One frame to send, and the ids of the answers it is owed (null: an answer with `id: null`). */
interface Frame {
  readonly line: string
  readonly owed: ReadonlyArray<string | number | null>
}

const request = (id: unknown, method: string, params?: unknown) =>
  JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) })

/** The answers (not requests of the gateway's own) that carry `id`. */
const answersTo = (gateway: RawGateway, id: unknown) =>
  gateway.lines().map((line) => JSON.parse(line)).filter((message) => !("method" in message) && message.id === id)

/**
 * Sends the frames, then a ping (a listing in 2026-07-28), and waits until every owed answer and the ping's have
 * arrived; asserts each is there once.
 */
const sendAndCheck = (gateway: RawGateway, frames: ReadonlyArray<Frame>, meta: object, what: string) =>
  Effect.gen(function*() {
    const nullsBefore = answersTo(gateway, null).length
    for (const frame of frames) gateway.send(frame.line)
    const owed = frames.flatMap((frame) => frame.owed)
    const nulls = owed.filter((id) => id === null).length
    for (const id of owed) if (id !== null) yield* Effect.promise(() => gateway.reply(id))
    if (nulls > 0) yield* Effect.promise(() => gateway.reply(null, nullsBefore + nulls))
    // The gateway serves on; by the answer to this, any extra answer to the frames would be in. The
    // 2026-07-28 revision has no ping: a listing stands for it there.
    const modern = "_meta" in meta
    gateway.send(request(`after-${what}`, modern ? "tools/list" : "ping", meta))
    const after = yield* Effect.promise(() => gateway.reply(`after-${what}`))
    assert.isDefined(after.result, `${what}: ${JSON.stringify(after)}`)
    assert.strictEqual(answersTo(gateway, null).length - nullsBefore, nulls, `${what}: answers with id null`)
    for (const id of owed) {
      if (id !== null) assert.strictEqual(answersTo(gateway, id).length, 1, `${what}: answers to ${String(id)}`)
    }
    for (const line of gateway.lines()) {
      assert.isTrue(isJsonRpcLine(line), `${what}: not JSON-RPC: ${line.slice(0, 200)}`)
      assert.notInclude(line, "LONG", `${what}: an id over the cap was echoed`)
    }
  })

/** The concrete frames: ids that cannot be echoed, on every kind of request, and batches of every shape. */
const concreteFrames = (meta: object): ReadonlyArray<Frame> => {
  const call = { ...meta, name: "echo", arguments: { text: "hi" } }
  const init = { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "h", version: "1" } }
  return [
    ...["ping", "tools/list", "resources/list", "prompts/list", "no/such"].map((method, i) => ({
      line: request(longId(i), method, meta),
      owed: [null]
    })),
    { line: request(longId("call"), "tools/call", call), owed: [null] },
    { line: request(longId("init"), "initialize", init), owed: [null] },
    { line: request(longId("huge", 100_000), "ping", meta), owed: [null] },
    { line: `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, owed: [null] },
    { line: `{"jsonrpc":"2.0","id":1e400,"method":"ping"}`, owed: [null] },
    {
      line: `[${request("batch-a", "ping", meta)},${request("batch-b", "tools/list", meta)}]`,
      owed: ["batch-a", "batch-b"]
    },
    {
      // A request with an id, one whose id cannot be echoed, junk, a notification and a response.
      line: `[${request("mixed", "ping", meta)},${request(longId("member"), "ping", meta)},7,${
        JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })
      },${JSON.stringify({ jsonrpc: "2.0", id: "answer", result: {} })}]`,
      owed: ["mixed", null, null]
    },
    { line: `[${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}]`, owed: [null] },
    { line: "[]", owed: [null] },
    {
      line: JSON.stringify(Array.from({ length: MAX_BATCH + 1 }, (_, i) => JSON.parse(request(`big-${i}`, "ping")))),
      owed: [null]
    }
  ]
}

describe("stdio front: every request is answered", () => {
  for (const era of ["2025-11-25", "2026-07-28"] as const) {
    it.live(
      `${era}: ids that cannot be echoed get id null, batches are refused member by member, and the gateway serves on`,
      () =>
        Effect.gen(function*() {
          const modern = era === "2026-07-28"
          const meta = modern ? { _meta: envelope() } : {}
          const gateway = yield* rawStdioGateway(config(), dir, [], !modern)
          if (modern) {
            gateway.send(request("discover", "server/discover", meta))
            assert.isDefined((yield* Effect.promise(() => gateway.reply("discover"))).result)
          }
          yield* sendAndCheck(gateway, concreteFrames(meta), meta, era)
          const nulls = answersTo(gateway, null)
          assert.isTrue(nulls.every((answer) => answer.error.code === -32600), JSON.stringify(nulls.slice(0, 3)))
          assert.isTrue(nulls.some((answer) => answer.error.message.includes("MAX_ID_LENGTH")))
          assert.isTrue(nulls.some((answer) => answer.error.message.includes("the batch is empty")))
          assert.isTrue(nulls.some((answer) => answer.error.message.includes(`must not exceed ${MAX_BATCH}`)))
          assert.strictEqual(answersTo(gateway, "batch-a")[0].error.code, -32600)
          // A real call still goes through.
          gateway.send(request("call", "tools/call", { ...meta, name: "echo", arguments: { text: "still here" } }))
          const answer = yield* Effect.promise(() => gateway.reply("call"))
          assert.include(JSON.stringify(answer.result), "still here")
        }),
      60_000
    )
  }
})

/** The kinds of malformed frame the fuzz run draws. */
const KINDS = [
  "long-id",
  "unsafe-id",
  "object-id",
  "bool-id",
  "null-id",
  "extra-member",
  "old-version",
  "array-params",
  "batch",
  "junk",
  "text",
  "bad-notification"
] as const
const MEMBERS = ["request", "long-id", "junk", "notification", "response"] as const
const METHODS = ["ping", "tools/list", "tools/call", "resources/read", "prompts/get", "initialize", "no/such"] as const

const Seed = Schema.Struct({
  kind: Schema.Literals(KINDS),
  method: Schema.Literals(METHODS),
  length: Schema.Int.check(Schema.isBetween({ minimum: MAX_ID_LENGTH + 1, maximum: 4 * MAX_ID_LENGTH })),
  members: Schema.Array(Schema.Literals(MEMBERS)).check(Schema.isMaxLength(6)),
  junk: Schema.Json,
  text: Schema.String
})

/** The frame a seed becomes (its index makes ids unique) and the answers it is owed. */
const frameOf = (seed: typeof Seed.Type, index: number): Frame => {
  const id = `f${index}`
  const json = (value: unknown, owed: Frame["owed"]): Frame => ({ line: JSON.stringify(value), owed })
  const message = { jsonrpc: "2.0", id, method: seed.method }
  switch (seed.kind) {
    case "long-id":
      return json({ ...message, id: longId(index, seed.length) }, [null])
    case "unsafe-id":
      return { line: `{"jsonrpc":"2.0","id":${2 ** 53 + 2 * index + 1},"method":"ping"}`, owed: [null] }
    case "object-id":
      return json({ ...message, id: { index } }, [null])
    case "bool-id":
      return json({ ...message, id: index % 2 === 0 }, [null])
    case "null-id":
      return json({ ...message, id: null }, [null])
    case "extra-member":
      return json({ ...message, extra: seed.junk }, [id])
    case "old-version":
      return json({ ...message, jsonrpc: "1.0" }, [id])
    case "array-params":
      return json({ ...message, params: [seed.junk] }, [id])
    case "batch": {
      const owed: Array<string | null> = []
      const members = seed.members.map((member, j) => {
        if (member === "request") owed.push(`${id}-${j}`)
        if (member === "long-id" || member === "junk") owed.push(null)
        return member === "request"
          ? { ...message, id: `${id}-${j}` }
          : member === "long-id"
          ? { ...message, id: longId(`${index}-${j}`, seed.length) }
          : member === "junk"
          ? j
          : member === "notification"
          ? { jsonrpc: "2.0", method: "notifications/initialized" }
          : { jsonrpc: "2.0", id: `r${index}-${j}`, result: {} }
      })
      return json(members, owed.length === 0 ? [null] : owed)
    }
    case "junk":
      // JSON with no id of its own (objects are wrapped, so they cannot carry one).
      return json(typeof seed.junk === "object" && seed.junk !== null ? { junk: seed.junk } : seed.junk, [null])
    case "text":
      return { line: `\u0001${seed.text.replace(/[\r\n]/g, " ")}`, owed: [null] }
    case "bad-notification":
      return json({ jsonrpc: "2.0", method: "notifications/cancelled", params: [seed.junk] }, [null])
  }
}

describe("stdio front under fuzzing, over the real wire", () => {
  it.live(
    "random malformed frames, each followed by a ping: every ping and every owed answer arrives",
    () =>
      Effect.gen(function*() {
        const seed = Date.now()
        const seeds = yield* Effect.orDie(Arbitrary.sampleEffect(Arbitrary.schema(Seed), { count: 150, seed }))
        const gateway = yield* rawStdioGateway(config(), dir)
        const frames = seeds.flatMap((
          s,
          i
        ) => [frameOf(s, i), { line: request(`ping-${i}`, "ping"), owed: [`ping-${i}`] }])
        yield* sendAndCheck(gateway, frames, {}, `fuzz seed ${seed}`)
      }),
    120_000
  )
})
