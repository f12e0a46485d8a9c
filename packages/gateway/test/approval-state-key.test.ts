/**
 * approvals.stateKey: read like every secret (`env:NAME`), refused when too short (naming the path,
 * never the value); a gateway without one seals with a generated key and says so once at start.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigError } from "@interlock/core"
import { Effect, Layer, Redacted } from "effect"
import { fromObject } from "../src/config/ConfigLoader.ts"
import { MIN_STATE_KEY_LENGTH } from "../src/config/Plan.ts"
import { Gateway } from "../src/runtime/Gateway.ts"
import { makePlan } from "../src/runtime/PlanBuilder.ts"
import { GENERATED_KEY_NOTICE } from "../src/state/ApprovalStates.ts"
import { echoServer } from "./e2e.ts"
import { recordingLogs } from "./leak-harness.ts"

const LONG = "k".repeat(MIN_STATE_KEY_LENGTH)

const planWith = (approvals: Record<string, unknown>, env: Record<string, string> = {}) =>
  Effect.map(
    fromObject({ servers: { echo: echoServer }, audit: { path: ":memory:" }, approvals }, process.cwd()),
    (loaded) => makePlan(loaded, { env })
  )

describe("approvals.stateKey", () => {
  it.effect("is read from the environment with env:NAME, as a Redacted", () =>
    Effect.gen(function*() {
      const plan = yield* planWith({ stateKey: "env:STATE_KEY" }, { STATE_KEY: LONG })
      assert.notInstanceOf(plan, ConfigError)
      if (plan instanceof ConfigError) return
      assert.strictEqual(Redacted.value(plan.approvals.stateKey!), LONG)
      assert.notInclude(String(plan.approvals.stateKey), LONG)
    }))

  it.effect("too short, unset or empty is a ConfigError naming approvals.stateKey and never quoting the key", () =>
    Effect.gen(function*() {
      const short = "s".repeat(MIN_STATE_KEY_LENGTH - 1)
      const tooShort = `must be at least ${MIN_STATE_KEY_LENGTH} characters`
      const cases = [
        [{ stateKey: "env:STATE_KEY" }, { STATE_KEY: short }, tooShort],
        [{ stateKey: short }, {}, tooShort],
        [{ stateKey: "env:STATE_KEY" }, {}, "environment variable STATE_KEY is not set"],
        [{ stateKey: "env:STATE_KEY" }, { STATE_KEY: "" }, "environment variable STATE_KEY is not set"]
      ] as const
      for (const [approvals, env, detail] of cases) {
        const plan = yield* planWith(approvals, env)
        assert.instanceOf(plan, ConfigError, JSON.stringify(approvals))
        if (!(plan instanceof ConfigError)) return
        assert.strictEqual(plan.path, "approvals.stateKey")
        assert.include(plan.detail, detail)
        assert.notInclude(plan.message, short)
      }
    }))

  it.effect(
    "a gateway without one says once, at start, that its key is generated; one with a key says " +
      "nothing of it",
    () =>
      Effect.gen(function*() {
        const started = (approvals: Record<string, unknown>) =>
          Effect.gen(function*() {
            const plan = yield* planWith(approvals)
            if (plan instanceof ConfigError) return assert.fail(plan.message)
            const lines: Array<string> = []
            yield* recordingLogs(lines, Effect.scoped(Effect.asVoid(Layer.build(Gateway.layer(plan)))))
            return lines.filter((line) => line.includes(GENERATED_KEY_NOTICE)).length
          })
        assert.strictEqual(yield* started({}), 1)
        assert.strictEqual(yield* started({ stateKey: LONG }), 0)
      })
  )
})
