import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { EventLog } from "../src/front/http/mcp/EventLog.ts"

const between = (minimum: number, maximum: number) => Schema.Int.check(Schema.isBetween({ minimum, maximum }))

/** Appends on up to four streams; no data is a priming event. */
const Appends = Schema.Array(
  Schema.Struct({ stream: between(0, 3), data: Schema.optional(Schema.String.check(Schema.isMaxLength(30))) })
).check(
  Schema.isMaxLength(60)
)

interface Sent {
  readonly id: string
  readonly stream: number
  readonly data: string | undefined
  readonly bytes: number
}

/** The model: the longest run of the latest events that stays within both caps. */
const kept = (sent: ReadonlyArray<Sent>, maxEvents: number, maxBytes: number): ReadonlyArray<Sent> => {
  let bytes = 0
  let from = sent.length
  while (from > 0 && sent.length - from < maxEvents && bytes + sent[from - 1].bytes <= maxBytes) {
    bytes += sent[--from].bytes
  }
  return sent.slice(from)
}

describe("EventLog", () => {
  it.effect.prop(
    "replay after any id it holds gives exactly that stream's later events in order; ids it dropped or never gave " +
      "are unknown; caps hold",
    [Appends, between(1, 25), between(0, 300)],
    ([appends, maxEvents, maxBytes]) =>
      Effect.sync(() => {
        const log = new EventLog({ maxEvents, maxBytes })
        const sent: Array<Sent> = []
        for (const { stream, data } of appends) {
          const id = log.append(stream, data)
          assert.notInclude(sent.map((event) => event.id), id, "ids are never reused")
          sent.push({ id, stream, data, bytes: data === undefined ? 0 : Buffer.byteLength(data) })
          assert.isAtMost(log.size.events, maxEvents)
          assert.isAtMost(log.size.bytes, maxBytes)
        }
        const held = kept(sent, maxEvents, maxBytes)
        assert.deepStrictEqual(log.size, {
          events: held.length,
          bytes: held.reduce((sum, event) => sum + event.bytes, 0)
        })
        for (const [i, event] of sent.entries()) {
          const replay = log.after(event.id)
          if (!held.includes(event)) {
            assert.isUndefined(replay, `event ${event.id} was dropped`)
            continue
          }
          const later = sent.slice(i + 1).filter((next) => next.stream === event.stream && next.data !== undefined)
          assert.strictEqual(replay?.stream, event.stream)
          assert.deepStrictEqual(
            replay?.events.map((next) => [next.id, next.data]),
            later.map((next) => [next.id, next.data])
          )
        }
        for (const unknown of [String(sent.length), "-1", "", "01", "x", "1e3", " 0"]) {
          assert.isUndefined(log.after(unknown), `id ${JSON.stringify(unknown)}`)
        }
      }),
    { arbitrary: { runs: 200 } }
  )

  it("keeps the newest events: past the count cap or the byte cap, the oldest go first", () => {
    const log = new EventLog({ maxEvents: 3, maxBytes: 10 })
    const ids = ["aaaa", "bbbb", "cc", "d"].map((data) => log.append(1, data))
    assert.deepStrictEqual(log.size, { events: 3, bytes: 7 })
    assert.isUndefined(log.find(ids[0]))
    assert.deepStrictEqual(log.after(ids[1])?.events.map((event) => event.data), ["cc", "d"])
    log.append(2, "eeeeeeee")
    assert.deepStrictEqual(log.size, { events: 2, bytes: 9 })
    assert.isUndefined(log.after(ids[2]), "dropped for bytes")
    assert.deepStrictEqual(log.after(ids[3])?.events, [], "another stream's events are not replayed")
    const huge = log.append(3, "x".repeat(11))
    assert.isUndefined(log.find(huge), "an event larger than the byte cap is not kept")
    assert.deepStrictEqual(log.size, { events: 0, bytes: 0 })
  })
})
