/**
 * For random calls, a Cedar policy and the equivalent JSON rules decide the same. The rules are
 * ordered deny, then ask, then allow, with default deny: exactly the order Cedar's semantics give
 * (a satisfied forbid wins, then an @ask permit, then a permit; no permit denies). They also
 * decide alike on loose and lookalike spellings of the names: a forbid or an @ask permit (a deny
 * or an ask rule) also takes a name's lookalike skeleton for the name; a plain permit does not.
 */
import { assert, describe, it } from "@effect/vitest"
import { HookContext, Policy, type PolicyRule, Principal } from "@interlock/core"
import { Arbitraries } from "@interlock/core/testing"
import { Arbitrary, Effect, Schema } from "effect"
import { call, compile, decideCall, tool } from "./fixtures.ts"

const SERVERS = ["fs", "web"] as const
const NAMES = ["read_file", "write_file", "delete_file", "list_dir", "search"] as const
const PREFIXES = ["/etc/", "/tmp/"] as const
const PATHS = ["/etc/passwd", "/tmp/x", "relative", "/etc"] as const

const RuleSpec = Schema.Struct({
  kind: Schema.Literals(["exact", "server", "any", "bare"]),
  server: Schema.Literals(SERVERS),
  name: Schema.Literals(NAMES),
  decision: Schema.Literals(["allow", "deny", "ask"]),
  principal: Schema.optional(Schema.Literals(["alice", "bob"])),
  readOnly: Schema.optional(Schema.Boolean),
  prefix: Schema.optional(Schema.Literals(PREFIXES))
})
type RuleSpec = typeof RuleSpec.Type

const CallSpec = Schema.Struct({
  server: Schema.Literals(SERVERS),
  name: Schema.Literals(NAMES),
  principal: Schema.optional(Schema.Literals(["alice", "bob"])),
  roles: Schema.optional(Schema.Array(Schema.Literals(["admin", "dev"]))),
  readOnly: Schema.Boolean,
  path: Schema.optional(Schema.Literals(PATHS))
})
type CallSpec = typeof CallSpec.Type

const Rules = Schema.Array(RuleSpec).check(Schema.isMaxLength(8))
const ORDER = { deny: 0, ask: 1, allow: 2 } as const

const jsonRule = (spec: RuleSpec, index: number): PolicyRule => ({
  id: `r${index}`,
  match: spec.kind === "exact"
    ? `${spec.server}/${spec.name}`
    : spec.kind === "server"
    ? `${spec.server}/*`
    : spec.kind === "any"
    ? "*"
    : spec.name,
  decision: spec.decision,
  reason: `reason ${index}`,
  ...(spec.principal === undefined ? {} : { principals: [spec.principal] }),
  ...(spec.readOnly === undefined ? {} : { annotations: { readOnlyHint: spec.readOnly } }),
  ...(spec.prefix === undefined
    ? {}
    : { when: (args) => typeof args.path === "string" && args.path.startsWith(spec.prefix!) })
})

const cedarPolicy = (spec: RuleSpec, index: number): string => {
  const resource = spec.kind === "exact" ? `resource == Interlock::Tool::"${spec.server}/${spec.name}"` : "resource"
  const principal = spec.principal === undefined
    ? "principal"
    : `principal == Interlock::Principal::"${spec.principal}"`
  const conditions = [
    spec.kind === "server" ? `resource.server == "${spec.server}"` : undefined,
    spec.kind === "bare" ? `resource.name == "${spec.name}"` : undefined,
    spec.readOnly === undefined ? undefined : `resource.readOnlyHint == ${spec.readOnly}`,
    spec.prefix === undefined ? undefined : `context.args has path && context.args.path like "${spec.prefix}*"`
  ].filter((c) => c !== undefined)
  const annotations = `@id("r${index}") ${
    spec.decision === "ask" ? `@ask("reason ${index}")` : `@reason("reason ${index}")`
  }`
  const effect = spec.decision === "deny" ? "forbid" : "permit"
  return `${annotations}\n${effect}(${principal}, action == Interlock::Action::"callTool", ${resource})${
    conditions.length === 0 ? "" : ` when { ${conditions.join(" && ")} }`
  };`
}

const ordered = (specs: ReadonlyArray<RuleSpec>) =>
  specs.map((spec, index) => ({ spec, index })).sort((a, b) => ORDER[a.spec.decision] - ORDER[b.spec.decision])

const context = (spec: CallSpec) =>
  new HookContext({
    client: "prop",
    serverId: spec.server,
    assigns: {},
    principal: spec.principal === undefined ? undefined : new Principal({ id: spec.principal, roles: spec.roles })
  })

/** The decisions under both policies of one call spelled `name`. */
const bothDecide = (specs: ReadonlyArray<RuleSpec>, c: CallSpec, server: string, name: string) =>
  Effect.gen(function*() {
    const rules = ordered(specs)
    const json = yield* Effect.provide(
      Effect.service(Policy),
      Policy.rules({ rules: rules.map(({ index, spec }) => jsonRule(spec, index)), default: "deny" })
    )
    const cedar = yield* compile(rules.map(({ index, spec }) => cedarPolicy(spec, index)).join("\n"))
    const args = c.path === undefined ? {} : { path: c.path }
    const described = tool(c.server, c.name, { readOnlyHint: c.readOnly })
    const toolCall = call(server, name, args)
    const expected = yield* json.decide(toolCall, context(c), { tool: described })
    const actual = decideCall(cedar, toolCall, context(c), described)
    return { expected: expected._tag, actual: actual._tag, expectedRule: expected.rule, actualRule: actual.rule }
  })

describe("Cedar and JSON rules decide alike", () => {
  it.effect.prop("for random rules and calls", [Rules, CallSpec], ([specs, c]) =>
    Effect.gen(function*() {
      const { actual, actualRule, expected, expectedRule } = yield* bothDecide(specs, c, c.server, c.name)
      assert.strictEqual(actual, expected)
      // The first JSON rule that applies is among the Cedar policies that decided.
      if (expectedRule !== undefined) assert.include((actualRule ?? "").split(","), expectedRule)
    }), { arbitrary: { runs: 150 } })

  const variantCall = (variant: (name: string) => Arbitrary.Arbitrary<string>) =>
    Arbitrary.all([Arbitrary.schema(Rules), Arbitrary.schema(CallSpec)]).pipe(
      Arbitrary.flatMap(([specs, c]) =>
        Arbitrary.all([variant(c.server), variant(c.name)]).pipe(
          Arbitrary.map(([server, name]) => ({ specs, c, server, name }))
        )
      )
    )

  it.effect.prop(
    "for loose name variants of the called tool",
    [variantCall(Arbitraries.looseVariant)],
    ([{ c, name, server, specs }]) =>
      Effect.gen(function*() {
        const { actual, expected } = yield* bothDecide(specs, c, server, name)
        assert.strictEqual(actual, expected)
      }),
    { arbitrary: { runs: 150 } }
  )

  it.effect.prop(
    "for lookalike spellings of the called tool (Cyrillic, Greek or Armenian letters)",
    [variantCall(Arbitraries.lookalikeVariant)],
    ([{ c, name, server, specs }]) =>
      Effect.gen(function*() {
        const { actual, actualRule, expected, expectedRule } = yield* bothDecide(specs, c, server, name)
        assert.strictEqual(actual, expected, JSON.stringify({ server, name }))
        if (expectedRule !== undefined) assert.include((actualRule ?? "").split(","), expectedRule)
      }),
    { arbitrary: { runs: 200 } }
  )
})
