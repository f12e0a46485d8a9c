import { assert, describe, it } from "@effect/vitest"
import { Principal } from "@interlock/core"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { AuditStore } from "../src/audit/AuditStore.ts"
import { GatewayCalls } from "../src/calls/GatewayCalls.ts"
import { DETECTOR_NAMES } from "../src/governance/Detectors.ts"
import { compileRedactions, redactionsFor, redactText } from "../src/governance/Redactor.ts"
import { SAMPLES, secretPart } from "./detector-samples.ts"
import { withGateway } from "./fixtures.ts"

const call = (name: string, args: Record<string, string | number>, principal?: string) =>
  Effect.gen(function*() {
    const calls = yield* GatewayCalls
    return yield* calls.callTool(
      { serverId: "files", name, args },
      principal === undefined ? {} : { principal: new Principal({ id: principal }) }
    )
  })

describe("redaction", () => {
  it("every detector finds its sample and leaves ordinary text alone", () => {
    const redactions = compileRedactions([{ detectors: "all" }])
    if (!Array.isArray(redactions)) throw new Error("compile failed")
    for (const name of DETECTOR_NAMES) {
      const out = redactText(`before ${SAMPLES[name]} after`, redactions)
      assert.notInclude(out, secretPart(name), name)
      assert.include(out, "[REDACTED]", name)
      assert.include(out, "before", name)
    }
    assert.strictEqual(
      redactText("the quick brown fox, version 1.2.3", redactions),
      "the quick brown fox, version 1.2.3"
    )
  })

  it("a redaction's matcher selects a lookalike spelling of its tool, as a deny rule or a hook would", () => {
    const redactions = compileRedactions([{ match: "files/write_file", detectors: ["aws-access-key"] }])
    if (!Array.isArray(redactions)) throw new Error("compile failed")
    for (const name of ["write_file", "WRITE-FILE", "wr\u0456te_file", "wr\u0456te\u200B_file", "\u0461rite_file"]) {
      const expected = name.startsWith("\u0461") ? 0 : 1 // U+0461 is no lookalike of w: another name
      assert.strictEqual(redactionsFor(redactions, "files", name).length, expected, JSON.stringify(name))
    }
    assert.strictEqual(redactionsFor(redactions, "fil\u0435s", "write_file").length, 1)
  })

  it.effect("a result's secrets are replaced before the host sees them, and the receipt says which hook did it", () =>
    withGateway(
      {
        policy: { default: "allow" },
        redact: [{ match: "*", pattern: "sk-[A-Za-z0-9]{20,}", replacement: "[KEY]" }, {
          match: "files/leak",
          detectors: ["aws-access-key"]
        }]
      },
      Effect.gen(function*() {
        const result = yield* call("leak", { text: "key sk-abcdefghijklmnopqrstuvwxyz and AKIAIOSFODNN7EXAMPLE" })
        assert.strictEqual(result.text, "key [KEY] and [REDACTED]")
        const statuses = result.receipt?.hooks.map((run) => `${run.id}:${run.status}`)
        assert.deepStrictEqual(statuses?.sort(), ["redact[0]:replace", "redact[1]:replace"])
      })
    ))

  it.effect("capture full scrubs common secrets even with no redact config", () =>
    withGateway(
      { policy: { default: "allow" }, audit: { capture: "full" } },
      Effect.gen(function*() {
        yield* call("leak", { text: "key AKIAIOSFODNN7EXAMPLE" })
        const [row] = yield* (yield* AuditStore).query()
        assert.notInclude(JSON.stringify([row.args, row.result]), "AKIAIOSFODNN7EXAMPLE")
        assert.deepStrictEqual(row.args, { text: "key [REDACTED]" })
      })
    ))

  it.effect("capture full stores redacted args and results, never the secret", () =>
    withGateway(
      {
        policy: { default: "allow" },
        audit: { capture: "full" },
        redact: [{ detectors: "all" }]
      },
      Effect.gen(function*() {
        yield* call("leak", { text: "token ghp_abcdefghijklmnopqrstuvwxyz0123456789" })
        const [row] = yield* (yield* AuditStore).query()
        const stored = JSON.stringify([row.args, row.result])
        assert.notInclude(stored, "ghp_abcdef")
        assert.include(stored, "[REDACTED]")
        assert.deepStrictEqual((row.args as { text: string }).text, "token [REDACTED]")
      })
    ))
})

describe("rate limit", () => {
  it.effect("limits per principal and tool, and refills with time", () =>
    withGateway(
      {
        policy: { default: "allow" },
        rateLimits: [{ match: "files/read_file", perMinute: 2 }]
      },
      Effect.gen(function*() {
        yield* call("read_file", { path: "a" }, "alice")
        yield* call("read_file", { path: "a" }, "alice")
        const limited = yield* Effect.flip(call("read_file", { path: "a" }, "alice"))
        assert.strictEqual(limited._tag, "Denied")
        assert.include(limited.message, "rate limit")
        // another principal and another tool have their own budgets
        assert.strictEqual((yield* call("read_file", { path: "a" }, "bob")).receipt?.outcome, "ok")
        assert.strictEqual((yield* call("get-env", {}, "alice")).receipt?.outcome, "ok")
        yield* TestClock.adjust("30 seconds")
        assert.strictEqual((yield* call("read_file", { path: "a" }, "alice")).receipt?.outcome, "ok")
        assert.strictEqual((yield* Effect.flip(call("read_file", { path: "a" }, "alice")))._tag, "Denied")
      })
    ))
})

describe("maximum result size", () => {
  it.effect("a result over the limit is replaced by an error result that says so", () =>
    withGateway(
      { policy: { default: "allow" }, maxResultBytes: 1000 },
      Effect.gen(function*() {
        const small = yield* call("big", { size: 100 })
        assert.strictEqual(small.text.length, 100)
        const big = yield* call("big", { size: 5000 })
        assert.isTrue(big.isError)
        assert.include(big.text, "over the limit of 1000 bytes")
        assert.notInclude(big.text, "xxxx")
      })
    ))
})
