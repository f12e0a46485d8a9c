/**
 * Core's rule Schemas are the rules: a policy rule or a hook entry that the exported Schema refuses
 * is refused by the compiler (a ConfigError naming the entry and the field), and one it accepts
 * compiles.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Schema, SchemaIssue } from "effect"
import { ConfigError, HookEntry, Hooks, type HooksConfig, MatcherInput, PolicyRule, Verdict } from "../src/index.ts"
import { compileRules } from "../src/policy/PolicyRules.ts"

// Values a Schema cannot generate (functions, RegExps), picked by name.
const VALUES: Record<string, unknown> = {
  "regexp": { server: "fs", regex: /^read/i },
  "regexp-flag": { server: "fs", regex: /read/v },
  "regexp-backref": { server: "fs", regex: /(a)\1/ },
  "regex-extra": { server: "fs", regex: "^r", other: 1 },
  "fn0": () => Verdict.continue,
  "fn3": (_a: unknown, _b: unknown, _c: unknown) => Verdict.continue,
  "predicate": () => true,
  "principals-ok": ["alice"],
  "principals-empty": [""],
  "hints-ok": { readOnlyHint: true },
  "hints-unknown": { readOnly: true },
  "hints-not-boolean": { openWorldHint: "no" }
}
const pick = (value: unknown): unknown => (typeof value === "string" && value in VALUES ? VALUES[value] : value)
const Matchers = Schema.Literals([
  "*",
  "any",
  "fs/read_file",
  "Read-File",
  "fs/*",
  "/x",
  "x/",
  "",
  " ",
  3,
  "regexp",
  "regexp-flag",
  "regexp-backref",
  "regex-extra"
])

const RuleRecord = Schema.Struct({
  id: Schema.optionalKey(Schema.Literals(["r", "", 1])),
  match: Schema.optionalKey(Matchers),
  decision: Schema.optionalKey(Schema.Literals(["allow", "deny", "ask", "never"])),
  reason: Schema.optionalKey(Schema.Literals(["why", 2])),
  when: Schema.optionalKey(Schema.Literals(["predicate", "yes"])),
  principals: Schema.optionalKey(Schema.Literals(["principals-ok", "principals-empty", "alice"])),
  annotations: Schema.optionalKey(Schema.Literals(["hints-ok", "hints-unknown", "hints-not-boolean", 4])),
  other: Schema.optionalKey(Schema.Literal(1))
})

const EntryRecord = Schema.Struct({
  match: Schema.optionalKey(Matchers),
  run: Schema.optionalKey(Schema.Literals(["fn0", "fn3", "not a function"])),
  id: Schema.optionalKey(Schema.Literals(["h", ""])),
  timeout: Schema.optionalKey(Schema.Literals([100, 0, "2 seconds", "soon"])),
  onError: Schema.optionalKey(Schema.Literals(["ignore", "sometimes"])),
  kind: Schema.optionalKey(Schema.Literals(["guard", "allow"])),
  required: Schema.optionalKey(Schema.Literals([true, "yes"])),
  retries: Schema.optionalKey(Schema.Literal(3))
})

// The compiler as a JavaScript caller meets it: with any value.
const compileAny = compileRules as (config: unknown) => ReturnType<typeof compileRules>

const withValues = (record: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(record).map(([key, value]) => [key, pick(value)]))

/** The first field a Schema decode blames, or undefined when it decodes. */
const firstField = <A>(exit: Exit.Exit<A, Schema.SchemaError>): string | undefined => {
  if (Exit.isSuccess(exit)) return undefined
  const failure = exit.cause.reasons.find((reason) => reason._tag === "Fail")
  const issues = failure?._tag === "Fail" ? SchemaIssue.makeFormatterStandardSchemaV1()(failure.error.issue).issues : []
  const key = issues[0]?.path?.[0]
  return String(typeof key === "object" ? key.key : key)
}

describe("core's rule Schemas", () => {
  it.effect.prop(
    "a policy rule compiles exactly when the PolicyRule Schema accepts it, and the error names the field it blames",
    [RuleRecord],
    ([record]) =>
      Effect.sync(() => {
        const rule = withValues(record)
        const field = firstField(Schema.decodeUnknownExit(PolicyRule, { onExcessProperty: "error" })(rule))
        const compiled = compileAny({ rules: [rule] })
        assert.strictEqual(compiled instanceof ConfigError, field !== undefined, JSON.stringify(record))
        if (compiled instanceof ConfigError && field !== undefined) {
          assert.strictEqual(compiled.path, "policy.rules[0]")
          assert.include(compiled.detail, field)
        }
      })
  )

  it.effect.prop("a postToolCall entry compiles exactly when the HookEntry Schema accepts it, object or tuple", [
    EntryRecord,
    Schema.Boolean
  ], ([record, asTuple]) =>
    Effect.gen(function*() {
      const { match, run, ...options } = withValues(record)
      const entry = asTuple ? [match, run, options] : { match, run, ...options }
      const field = firstField(Schema.decodeUnknownExit(HookEntry, { onExcessProperty: "error" })(entry))
      const exit = yield* Effect.exit(Hooks.compile({ postToolCall: [entry] } as HooksConfig))
      assert.strictEqual(Exit.isFailure(exit), field !== undefined, JSON.stringify([record, asTuple]))
      if (Exit.isFailure(exit)) {
        const reason = exit.cause.reasons[0]
        const error = reason._tag === "Fail" ? reason.error : undefined
        assert.instanceOf(error, ConfigError)
        assert.match(error.path, /^postToolCall\[0\]/)
      }
    }))

  it("MatcherInput refuses what parseMatcher refuses, in parseMatcher's words", () => {
    for (
      const [input, words] of [["/x", "empty server part"], [{ server: "fs", regex: /(?=a)/ }, "linear time"], [
        " ",
        "must not be empty"
      ]] as const
    ) {
      const exit = Schema.decodeUnknownExit(MatcherInput)(input)
      assert.isTrue(Exit.isFailure(exit))
      const failure = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
      const message = failure?._tag === "Fail"
        ? SchemaIssue.makeFormatterStandardSchemaV1()(failure.error.issue).issues[0].message
        : ""
      assert.include(message, words)
    }
    assert.isTrue(Exit.isSuccess(Schema.decodeUnknownExit(MatcherInput)({ server: "fs", regex: /^read/ })))
  })
})
