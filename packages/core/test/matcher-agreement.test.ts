/**
 * One matcher, one selection: a deny rule, an ask rule and a hook written with the same matcher
 * select the same calls and listed tools, whatever the spelling of the name (case, width,
 * separators, invisible characters, lookalike letters). Allow rules stay narrower on purpose.
 */
import { assert, describe, it } from "@effect/vitest"
import { Arbitrary, Effect, Layer, Schema } from "effect"
import {
  canonicalName,
  type HooksConfig,
  Interlock,
  type MatcherInput,
  Policy,
  Tool,
  ToolCalls,
  ToolResult,
  ToolTransport,
  Verdict
} from "../src/index.ts"
import { Arbitraries } from "../src/testing/index.ts"

/** A transport listing `names` on srv; it records the names of the calls that reach it. */
const listing = (names: ReadonlyArray<string>) => {
  const reached: Array<string> = []
  const layer = Layer.succeed(ToolTransport, {
    callTool: (call) =>
      Effect.sync(() => {
        reached.push(call.name)
        return ToolResult.text("done")
      }),
    listTools: () => Effect.succeed(names.map((name) => new Tool({ serverId: "srv", name, inputSchema: {} }))),
    readResource: () => Effect.die("no resources"),
    getPrompt: () => Effect.die("no prompts"),
    era: () => "test"
  })
  return { reached, layer }
}

type Selector = "hook" | "deny" | "ask"

/** A client whose only restriction on `matcher` is a hook, a deny rule or an ask rule (the rest is allowed). */
const restricted = (by: Selector, matcher: MatcherInput, names: ReadonlyArray<string>) => {
  const transport = listing(names)
  const hooks: HooksConfig = by === "hook"
    ? {
      preToolCall: [{ id: "guard", match: matcher, run: () => Verdict.deny("hook") }],
      toolsListed: [{ id: "lister", match: matcher, run: () => Verdict.replaceTools([]) }]
    }
    : {}
  const rules = by === "hook" ? [] : [{ id: "rule", match: matcher, decision: by, reason: "r" }]
  const layer = Interlock.layer({
    hooks,
    hideDenied: true,
    // No approver: an ask rule's call is denied, so it is stopped as a deny rule's is.
    policy: Policy.rules({ rules: [...rules, { id: "rest", match: "*", decision: "allow" }] })
  }).pipe(Layer.provide(transport.layer))
  return { transport, layer }
}

/** Which of `names` the restriction selects: those whose call was stopped, and those a listing hides. */
const selection = (by: Selector, matcher: MatcherInput, names: ReadonlyArray<string>) => {
  const { layer, transport } = restricted(by, matcher, names)
  return Effect.gen(function*() {
    const calls = yield* ToolCalls
    const stopped: Array<boolean> = []
    for (const name of names) {
      const result = yield* Effect.result(calls.callTool({ serverId: "srv", name }))
      stopped.push(result._tag === "Failure")
    }
    const listed = (yield* calls.listTools()).map((tool) => tool.name)
    return {
      stopped,
      hidden: names.map((name) => !listed.includes(name)),
      reached: transport.reached.length
    }
  }).pipe(Effect.provide(layer))
}

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * The matchers a config may write for `name`: server and tool, tool alone, a glob, a regex (on the
 * canonical name: a regex reads the text, so `^a-b$` does not cover `a.b`; its canonical `a_b` does).
 */
const matchersFor = (name: string): ReadonlyArray<MatcherInput> => [
  `srv/${name}`,
  name,
  `srv/${name.slice(0, Math.max(1, Math.floor(name.length / 2)))}*`,
  { server: "srv", regex: `^${escapeRegex(canonicalName(name))}$` }
]

describe("matcher agreement: rules and hooks", () => {
  it.effect("wr\u0456te_file (Cyrillic \u0456) is caught by a hook and by a rule on write_file", () =>
    Effect.gen(function*() {
      const lookalike = "wr\u0456te_file"
      for (const matcher of ["write_file", "files/write_file", "files/write_*"]) {
        for (const by of ["hook", "deny"] as const) {
          const transport = listing([lookalike])
          const layer = Interlock.layer({
            hooks: by === "hook" ? { preToolCall: [{ match: matcher, run: () => Verdict.deny("hook") }] } : {},
            policy: Policy.rules({
              rules: [
                ...(by === "deny" ? [{ id: "no-write", match: matcher, decision: "deny" as const }] : []),
                { id: "rest", match: "*", decision: "allow" }
              ]
            })
          }).pipe(Layer.provide(transport.layer))
          const error = yield* Effect.flip(
            Effect.flatMap(ToolCalls, (calls) => calls.callTool({ serverId: "files", name: lookalike }))
          ).pipe(Effect.provide(layer))
          assert.strictEqual(error._tag, "Denied", `${by} ${matcher}`)
          assert.strictEqual(
            error._tag === "Denied" ? error.reason._tag : undefined,
            by === "hook" ? "HookDenied" : "PolicyDenied",
            `${by} ${matcher}`
          )
          assert.deepStrictEqual(transport.reached, [], `${by} ${matcher}: nothing reached the server`)
        }
      }
    }))

  it.effect.prop(
    "for any name and any loose or lookalike spelling of it, a hook, a deny rule and an ask rule select the same calls",
    [
      Arbitraries.lookalikeNamePair,
      Arbitraries.toolName,
      Arbitrary.schema(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 3 })))
    ],
    ([[name, variant], other, which]) =>
      Effect.gen(function*() {
        const matcher = matchersFor(name)[which]
        const names = [variant, other]
        const hook = yield* selection("hook", matcher, names)
        const deny = yield* selection("deny", matcher, names)
        const ask = yield* selection("ask", matcher, names)
        assert.deepStrictEqual(hook, deny, JSON.stringify({ matcher, names }))
        assert.deepStrictEqual(ask.stopped, deny.stopped, JSON.stringify({ matcher, names }))
        // Every spelling of the name is selected: stopped, hidden, and it never reached the server.
        assert.isTrue(hook.stopped[0] && hook.hidden[0], JSON.stringify({ matcher, variant }))
      }),
    { arbitrary: { runs: 80 } }
  )

  it.effect("an allow rule stays narrow: it does not allow a lookalike of its name", () =>
    Effect.gen(function*() {
      const transport = listing(["wr\u0456te_file"])
      const layer = Interlock.layer({
        policy: Policy.rules({ rules: [{ id: "ok", match: "srv/write_file", decision: "allow" }], default: "deny" })
      }).pipe(Layer.provide(transport.layer))
      const error = yield* Effect.flip(
        Effect.flatMap(ToolCalls, (calls) => calls.callTool({ serverId: "srv", name: "wr\u0456te_file" }))
      ).pipe(Effect.provide(layer))
      assert.strictEqual(
        error._tag === "Denied" && error.reason._tag === "PolicyDenied" ? error.reason.rule : "x",
        undefined
      )
      assert.deepStrictEqual(transport.reached, [])
    }))
})
