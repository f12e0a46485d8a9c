import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { AuditRecord } from "../src/audit/GatewayAuditRecord.ts"
import { ConsoleInputError, OUTCOMES, parseAnswer, parseStateQuery, passes } from "../src/console/ConsoleInput.ts"
import { percentile, seriesOf } from "../src/console/ConsoleSeries.ts"

const MINUTE = 60_000
const NOW = 1_700_000_000_000 + 12_345

const row = (time: number, outcome: string, durationMs: number, fields: Partial<AuditRecord> = {}) =>
  new AuditRecord({ time, callId: "c", server: "files", tool: "read", outcome, durationMs, ...fields })

const Row = Schema.Struct({
  ago: Schema.Int.check(Schema.isBetween({ minimum: -MINUTE, maximum: 40 * MINUTE })),
  outcome: Schema.Literals(OUTCOMES),
  durationMs: Schema.Number.check(Schema.isBetween({ minimum: 0, maximum: 1e6 }))
})

const paramOf = (query: string) => {
  const parsed = parseStateQuery(new URLSearchParams(query))
  return parsed instanceof ConsoleInputError ? parsed.param : undefined
}

describe("console query parameters", () => {
  it("decodes the window and the filters, and names a bad, unknown or repeated parameter", () => {
    assert.deepStrictEqual(
      parseStateQuery(new URLSearchParams("minutes=60&principal=alice&server=files&tool=read&outcome=denied")),
      {
        minutes: 60,
        principal: "alice",
        server: "files",
        tool: "read",
        outcome: "denied"
      }
    )
    assert.deepStrictEqual(parseStateQuery(new URLSearchParams("")), {})
    // Number literals JavaScript would read are not whole minutes written in digits.
    for (const minutes of ["0x10", "1e2", "+5", " 5", "1.0", "0b11", "\ufeff5"]) {
      assert.strictEqual(paramOf(new URLSearchParams({ minutes }).toString()), "minutes", minutes)
    }
    for (
      const [query, param] of [
        ["minutes=0", "minutes"],
        ["minutes=1441", "minutes"],
        ["minutes=1.5", "minutes"],
        ["minutes=", "minutes"],
        ["outcome=allow", "outcome"],
        ["tool=", "tool"],
        ["token=x", "token"],
        ["server=a&server=a", "server"]
      ]
    ) {
      assert.strictEqual(paramOf(query!), param, query)
    }
    const error = parseStateQuery(new URLSearchParams(`principal=${"p".repeat(300)}`))
    assert.instanceOf(error, ConsoleInputError)
    assert.notInclude((error as ConsoleInputError).message, "ppp")
  })

  it.effect.prop(
    "any minutes that is not a whole number from 1 to 1440 is refused, naming minutes",
    [Schema.String],
    ([minutes]) =>
      Effect.sync(() => {
        const valid = /^\d+$/.test(minutes.trim()) && Number(minutes) >= 1 && Number(minutes) <= 1440
        if (!valid) assert.strictEqual(paramOf(new URLSearchParams({ minutes }).toString()), "minutes")
      })
  )

  it.effect.prop(
    "any unknown parameter is refused by its name",
    [Schema.String.check(Schema.isMinLength(1))],
    ([name]) =>
      Effect.sync(() => {
        // A URL carries a lone surrogate as U+FFFD: the name the gateway gets is the decoded one.
        const query = new URLSearchParams({ [name]: "x" }).toString()
        const sent = [...new URLSearchParams(query).keys()][0]!
        if (["minutes", "principal", "server", "tool", "outcome"].includes(sent)) return
        assert.strictEqual(paramOf(query), sent)
      })
  )

  it("an approval answer's body is { decision, digest }; a bad one names its field", () => {
    assert.deepStrictEqual(parseAnswer({ decision: "allow", digest: "d" }), { decision: "allow", digest: "d" })
    const fieldOf = (body: unknown) => {
      const parsed = parseAnswer(body)
      return parsed instanceof ConsoleInputError ? parsed.message : undefined
    }
    assert.strictEqual(fieldOf({ digest: "d" }), "body field decision is required")
    assert.match(fieldOf({ decision: "maybe", digest: "d" }) ?? "", /^body field decision /)
    assert.strictEqual(fieldOf({ decision: "deny" }), "body field digest is required")
    assert.match(fieldOf({ decision: "deny", digest: 1 }) ?? "", /^body field digest /)
    for (const junk of [undefined, null, "allow", [], 1]) {
      assert.match(fieldOf(junk) ?? "", /^body field \(root\) must be a JSON object/)
    }
  })

  it("a filter passes only rows whose field equals it", () => {
    const alice = row(NOW, "ok", 1, { principal: "alice" })
    assert.isTrue(passes({}, alice))
    assert.isTrue(passes({ principal: "alice", server: "files", tool: "read", outcome: "ok" }, alice))
    assert.isFalse(passes({ principal: "bob" }, alice))
    assert.isFalse(passes({ principal: "alice" }, row(NOW, "ok", 1)))
    assert.isFalse(passes({ tool: "write" }, alice))
    assert.isFalse(passes({ outcome: "denied" }, alice))
  })
})

describe("console chart series", () => {
  it("nearest-rank percentiles", () => {
    const hundred = Array.from({ length: 100 }, (_, i) => i + 1)
    assert.strictEqual(percentile(hundred, 50), 50)
    assert.strictEqual(percentile(hundred, 95), 95)
    assert.strictEqual(percentile([7], 95), 7)
    assert.isNull(percentile([], 50))
  })

  it("one bucket per minute of the window, counts by outcome, latency of completed calls only", () => {
    const series = seriesOf(
      [
        row(NOW, "ok", 10),
        row(NOW - 1, "ok", 30),
        row(NOW, "denied", 2),
        row(NOW, "refused", 0),
        row(NOW, "pending", 0),
        row(NOW - 2 * MINUTE, "tool_error", 5),
        row(NOW - 30 * MINUTE, "ok", 1)
      ],
      NOW,
      30
    )
    assert.strictEqual(series.buckets.length, 30)
    const last = series.buckets[29]!
    assert.strictEqual(last.start, Math.floor(NOW / MINUTE) * MINUTE)
    assert.deepStrictEqual(last.counts, { ok: 2, denied: 1, refused: 1, pending: 1 })
    assert.deepStrictEqual([last.p50, last.p95], [10, 30])
    assert.deepStrictEqual(series.buckets[27]!.counts, { tool_error: 1 })
    assert.deepStrictEqual([series.buckets[28]!.p50, series.buckets[28]!.p95], [null, null])
    assert.deepStrictEqual(series.outcomes, ["denied", "ok", "pending", "refused", "tool_error"])
  })

  it.effect.prop("every row in the window is counted once, in its minute; p50 <= p95, both among its durations", [
    Schema.Array(Row),
    Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 60 }))
  ], ([specs, minutes]) =>
    Effect.sync(() => {
      const rows = specs.map((spec) => row(NOW - spec.ago, spec.outcome, spec.durationMs))
      const series = seriesOf(rows, NOW, minutes)
      assert.strictEqual(series.buckets.length, minutes)
      const first = series.buckets[0]!.start
      const inWindow = rows.filter((r) => r.time >= first && r.time < first + minutes * MINUTE)
      const counted = series.buckets.reduce((sum, b) => sum + Object.values(b.counts).reduce((a, n) => a + n, 0), 0)
      assert.strictEqual(counted, inWindow.length)
      assert.deepStrictEqual(series.outcomes, [...new Set(inWindow.map((r) => r.outcome))].sort())
      for (const [i, bucket] of series.buckets.entries()) {
        assert.strictEqual(bucket.start, first + i * MINUTE)
        const durations = inWindow.filter((r) =>
          r.time >= bucket.start && r.time < bucket.start + MINUTE && r.outcome !== "pending" && r.outcome !== "refused"
        ).map((r) => r.durationMs)
        if (durations.length === 0) assert.deepStrictEqual([bucket.p50, bucket.p95], [null, null])
        else {
          assert.include(durations, bucket.p50)
          assert.include(durations, bucket.p95)
          assert.isAtMost(bucket.p50!, bucket.p95!)
        }
      }
    }))
})
