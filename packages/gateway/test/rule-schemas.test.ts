/**
 * One set of rule Schemas: the gateway's config decodes policy rules with core's Schemas, so a rule
 * record is accepted or refused alike by core (its Schema and its Layer build) and by the config,
 * and both blame the same field.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigError, Policy, PolicyRule } from "@interlock/core"
import { Effect, Exit, Schema } from "effect"
import { GatewayConfig } from "../src/config/Config.ts"
import { decodeConfig } from "../src/config/ConfigLoader.ts"
import { configProblems } from "../src/config/IssueFormat.ts"

// Rule records with each field valid, wrong or missing: matchers that core's parser refuses
// (empty parts, blank, a lookahead or a backreference), bad decisions, empty ids and principals,
// and a key no rule has.
const RuleRecord = Schema.Struct({
  id: Schema.optionalKey(Schema.Literals(["r1", "", 7])),
  match: Schema.optionalKey(Schema.Union([
    Schema.Literals(["*", "all", "fs/read_file", "fs/*", "Read-File", "s*/t*", "/x", "a/", "", "  ", 5]),
    Schema.Struct({
      server: Schema.Literals(["fs", "", "*"]),
      regex: Schema.Literals(["^read", "(?=a)", "(a)\\1", ""])
    }),
    Schema.Struct({ server: Schema.Literal("fs") })
  ])),
  decision: Schema.optionalKey(Schema.Literals(["allow", "deny", "ask", "maybe", 1])),
  reason: Schema.optionalKey(Schema.Union([Schema.String, Schema.Literal(0)])),
  principals: Schema.optionalKey(Schema.Union([Schema.Array(Schema.Literals(["alice", ""])), Schema.Literal("alice")])),
  extra: Schema.optionalKey(Schema.Literal(true))
})

const decodeCore = Schema.decodeUnknownExit(PolicyRule, { onExcessProperty: "error", errors: "all" })
const decodeGateway = Schema.decodeUnknownExit(GatewayConfig, { onExcessProperty: "error", errors: "all" })

/** The fields a failed decode blames (the first key under `prefix` of each problem's path). */
const blamed = <A>(exit: Exit.Exit<A, Schema.SchemaError>, prefix: number): ReadonlyArray<string> => {
  if (Exit.isSuccess(exit)) return []
  const failure = exit.cause.reasons.find((reason) => reason._tag === "Fail")
  if (failure?._tag !== "Fail") return ["(no issue)"]
  return [...new Set(configProblems(failure.error.issue).map((problem) => String(problem.path[prefix])))].sort()
}

const built = Effect.gen(function*() {
  yield* Policy
})
const layerExit = (rule: unknown) => Effect.exit(Effect.provide(built, Policy.rules({ rules: [rule as PolicyRule] })))

describe("one set of rule Schemas", () => {
  it.effect.prop("core and the gateway config accept and refuse the same rules, and blame the same fields", [
    RuleRecord
  ], ([rule]) =>
    Effect.gen(function*() {
      const core = decodeCore(rule)
      const gateway = decodeGateway({ servers: {}, policy: { rules: [rule] } })
      const coreFields = blamed(core, 0)
      const gatewayFields = blamed(gateway, 3)
      assert.strictEqual(Exit.isSuccess(gateway), Exit.isSuccess(core), JSON.stringify(rule))
      assert.deepStrictEqual(gatewayFields, coreFields, JSON.stringify(rule))
      // The Layer build answers as the Schema does, naming the rule and one of the blamed fields.
      const layer = yield* layerExit(rule)
      assert.strictEqual(Exit.isSuccess(layer), Exit.isSuccess(core), JSON.stringify(rule))
      if (Exit.isFailure(layer)) {
        const error = layer.cause.reasons.find((reason) => reason._tag === "Fail")
        assert.instanceOf(error?._tag === "Fail" ? error.error : undefined, ConfigError)
        const configError = (error as { error: ConfigError }).error
        assert.strictEqual(configError.path, "policy.rules[0]")
        assert.isTrue(
          coreFields.some((field) => configError.detail.includes(field)),
          `${configError.detail} names none of ${coreFields.join(", ")}`
        )
      }
    }))

  it.effect("a matcher core refuses is refused when the config loads, at its path, in core's words", () =>
    Effect.gen(function*() {
      const cases: Array<[unknown, string, string]> = [
        [{ match: "/read", decision: "deny" }, "policy.rules[0].match", `matcher "/read" has an empty server part`],
        [{ match: { server: "fs", regex: "(?=a)" }, decision: "deny" }, "policy.rules[0].match", "linear time"],
        [{ match: "  ", decision: "deny" }, "policy.rules[0].match", "a matcher must not be empty"]
      ]
      for (const [rule, where, words] of cases) {
        const error = yield* Effect.flip(decodeConfig({ servers: {}, policy: { rules: [rule] } }))
        assert.strictEqual(error.path, where)
        assert.include(error.detail, words)
      }
      const redact = yield* Effect.flip(decodeConfig({ servers: {}, redact: [{ match: "fs/", detectors: "all" }] }))
      assert.deepStrictEqual([redact.path, redact.detail], ["redact[0].match", `matcher "fs/" has an empty tool part`])
    }))
})
