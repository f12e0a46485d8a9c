import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { StderrTail } from "../src/StderrTail.ts"

const chunk = Schema.String.check(Schema.isPattern(/^[a-z0-9]{0,40}$/))

describe("StderrTail", () => {
  it.effect.prop("keeps exactly the last `limit` bytes, whatever the chunking", [
    Schema.Array(chunk),
    Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 64 }))
  ], ([chunks, limit]) =>
    Effect.sync(() => {
      const tail = new StderrTail(limit)
      for (const text of chunks) tail.push(Buffer.from(text))
      const all = chunks.join("")
      const kept = limit === 0 ? "" : all.slice(Math.max(0, all.length - limit))
      assert.strictEqual(tail.text(), kept)
      assert.strictEqual(tail.dropped, all.length - kept.length)
    }))

  it("quotes at most `max` characters, marking the cut", () => {
    const tail = new StderrTail(1024)
    tail.push(Buffer.from("first line\n"))
    tail.push(Buffer.from("fatal: boom\n"))
    assert.strictEqual(tail.text(), "first line\nfatal: boom")
    assert.strictEqual(tail.text(11), "...fatal: boom")
  })
})
