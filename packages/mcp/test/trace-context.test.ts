import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import {
  formatTraceparent,
  isBaggage,
  isTracestate,
  MAX_BAGGAGE,
  MAX_TRACESTATE,
  parseTraceparent
} from "../src/TraceContext.ts"

const ID = "4bf92f3577b34da6a3ce929d0e0e4736"
const SPAN = "00f067aa0ba902b7"

describe("W3C trace context checks", () => {
  it("parses a version-00 traceparent, and formats one back", () => {
    assert.deepStrictEqual(parseTraceparent(`00-${ID}-${SPAN}-01`), { traceId: ID, spanId: SPAN, sampled: true })
    assert.deepStrictEqual(parseTraceparent(`00-${ID}-${SPAN}-00`), { traceId: ID, spanId: SPAN, sampled: false })
    assert.strictEqual(formatTraceparent({ traceId: ID, spanId: SPAN, sampled: true }), `00-${ID}-${SPAN}-01`)
    assert.isUndefined(formatTraceparent({ traceId: "short", spanId: SPAN, sampled: true }))
  })

  it("refuses every other shape", () => {
    for (
      const bad of [
        `00-${ID.toUpperCase()}-${SPAN}-01`,
        `01-${ID}-${SPAN}-01`,
        `ff-${ID}-${SPAN}-01`,
        `00-${"0".repeat(32)}-${SPAN}-01`,
        `00-${ID}-${"0".repeat(16)}-01`,
        `00-${ID}-${SPAN}-1`,
        `00-${ID}-${SPAN}-01-extra`,
        ` 00-${ID}-${SPAN}-01`,
        42,
        undefined,
        {}
      ]
    ) assert.isUndefined(parseTraceparent(bad), String(bad))
  })

  it("checks tracestate and baggage, bounded", () => {
    assert.isTrue(isTracestate("rojo=00f067aa0ba902b7,congo=t61rcWkgMzE"))
    assert.isTrue(isTracestate("tenant@vendor=v, other=x"))
    for (
      const bad of [
        "",
        "Upper=x",
        "k=",
        "k=a,b",
        "=v",
        "k=v=w",
        "x".repeat(MAX_TRACESTATE + 1),
        Array.from({ length: 33 }, (_, i) => `k${i}=v`).join(",")
      ]
    ) {
      assert.isFalse(isTracestate(bad), bad.slice(0, 40))
    }
    assert.isTrue(isBaggage("userId=alice,serverNode=DF%2028;prop,isProduction=false;a=b"))
    for (
      const bad of [
        "",
        "=v",
        "k v=1",
        "k=a b",
        "k=\"q\"",
        `k=${"x".repeat(MAX_BAGGAGE)}`,
        Array.from({ length: 65 }, (_, i) => `k${i}=v`).join(",")
      ]
    ) {
      assert.isFalse(isBaggage(bad), bad.slice(0, 40))
    }
  })

  it("answers at once on a megabyte of junk", () => {
    const junk = "a=".repeat(500_000)
    const start = performance.now()
    assert.isFalse(isTracestate(junk))
    assert.isFalse(isBaggage(junk))
    assert.isUndefined(parseTraceparent(junk))
    assert.isBelow(performance.now() - start, 50)
  })

  it.effect.prop(
    "whatever a string is, the checks answer without throwing, and a parsed traceparent formats to one that " +
      "parses the same",
    [Schema.String],
    ([value]) =>
      Effect.sync(() => {
        isTracestate(value)
        isBaggage(value)
        const parsed = parseTraceparent(value)
        const again = parsed === undefined ? undefined : parseTraceparent(formatTraceparent(parsed))
        return parsed === undefined ||
          (again?.traceId === parsed.traceId && again.spanId === parsed.spanId && again.sampled === parsed.sampled)
      })
  )
})
