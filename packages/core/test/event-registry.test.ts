/**
 * The event registry: what used to be written by hand in five places (arity, run order, the
 * failure rule, accepted tags, receipt statuses, the README's table) is read from the rows, and
 * the decoder accepts exactly what a row's verdict Schemas (and its checks) accept.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import { readFileSync } from "node:fs"
import { BAD_RETURN, type DecodeInput, decodeVerdict } from "../src/hooks/VerdictDecoder.ts"
import {
  HOOK_EVENT_ROWS,
  HOOK_EVENTS,
  type HookEvent,
  Hooks,
  type HooksConfig,
  HookStatus,
  type HookVerdictTag,
  renderEventTable,
  rowAccepts,
  statusByTag,
  statusesOf,
  Tool,
  Verdict
} from "../src/index.ts"
import { makeToolCall } from "../src/model/ToolCall.ts"

const call = makeToolCall({ serverId: "s", name: "t", args: { a: 1 }, callId: "c" })
const tools = [
  new Tool({ serverId: "s", name: "read_file", inputSchema: {} }),
  new Tool({ serverId: "s", name: "write", inputSchema: {} })
]
const inputs: { readonly [E in HookEvent]: DecodeInput & { readonly event: E } } = {
  preToolCall: { event: "preToolCall", call },
  postToolCall: { event: "postToolCall" },
  toolCallFailed: { event: "toolCallFailed" },
  toolsListed: { event: "toolsListed", tools },
  resourceRead: { event: "resourceRead" },
  promptGet: { event: "promptGet", name: "p" }
}
/** What a row's check is given, per event (the decoder's input under the rows' names). */
const checkInputs: { readonly [E in HookEvent]: unknown } = {
  preToolCall: { call },
  postToolCall: {},
  toolCallFailed: {},
  toolsListed: { tools },
  resourceRead: {},
  promptGet: { name: "p" }
}

const ALL_TAGS = [...new Set(HOOK_EVENTS.flatMap((event) => Object.keys(HOOK_EVENT_ROWS[event].verdicts)))]

const compiles = (config: unknown) => Effect.exit(Hooks.compile(config as HooksConfig))

/** The Markdown table in the README that starts with the registry table's header. */
const readmeTable = (): string => {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8")
  const header = renderEventTable(HOOK_EVENT_ROWS).split("\n")[0]
  const lines = readme.split("\n")
  const start = lines.indexOf(header)
  assert.isAtLeast(start, 0, "the README has the event table")
  const end = lines.findIndex((line, i) => i > start && !line.startsWith("|"))
  return lines.slice(start, end).join("\n")
}

describe("event registry", () => {
  it("the README's event table is exactly the one rendered from the rows", () => {
    assert.strictEqual(readmeTable(), renderEventTable(HOOK_EVENT_ROWS))
  })

  it("Receipt's HookStatus is the rows' statuses and failed, no more", () => {
    const statuses = [...statusesOf(HOOK_EVENT_ROWS), "failed"]
    assert.deepStrictEqual(statuses, ["continue", "rewrite", "deny", "halt", "replace", "recover", "failed"])
    for (const status of statuses) assert.isTrue(Schema.is(HookStatus)(status), status)
    for (const other of ["allow", "ask", "block", "", "Continue"]) assert.isFalse(Schema.is(HookStatus)(other), other)
  })

  it("a verdict tag records one status in every row", () => {
    const byTag = statusByTag(HOOK_EVENT_ROWS)
    for (const event of HOOK_EVENTS) {
      for (const [tag, verdict] of Object.entries(HOOK_EVENT_ROWS[event].verdicts)) {
        assert.strictEqual(byTag[tag as keyof typeof byTag], verdict.status, `${event}.${tag}`)
      }
    }
  })

  it("each constructor's tag is a row's tag, and the listing's Replace has its own", () => {
    const made = [
      Verdict.continue,
      Verdict.rewrite({ args: {} }),
      Verdict.deny("x"),
      Verdict.halt({ content: [] }),
      Verdict.replace({ content: [] }),
      Verdict.replaceTools([]),
      Verdict.recover({ content: [] })
    ]
    assert.sameMembers(made.map((v) => v._tag), ALL_TAGS)
    assert.strictEqual(Verdict.replaceTools([])._tag, "ReplaceTools")
  })

  it("the verdict union types follow the rows", () => {
    const pre: Verdict.PreToolCallVerdict = Verdict.halt({ content: [] })
    // @ts-expect-error a listing's verdict is not a preToolCall verdict
    const wrong: Verdict.PreToolCallVerdict = Verdict.replaceTools([])
    const listing: Verdict.ToolsListedVerdict = Verdict.replaceTools([])
    // Every tag of the rows has a verdict type.
    const covered: [Exclude<HookVerdictTag, keyof Verdict.ByTag>] extends [never] ? true : false = true
    assert.deepStrictEqual([pre._tag, wrong._tag, listing._tag, covered], [
      "Halt",
      "ReplaceTools",
      "ReplaceTools",
      true
    ])
  })

  it("the old spelling of a listing's Replace, { _tag: \"Replace\", tools }, is a bad_return", () => {
    assert.strictEqual(decodeVerdict(inputs.toolsListed, undefined, { _tag: "Replace", tools: [tools[0]] }), BAD_RETURN)
    assert.strictEqual(
      decodeVerdict(inputs.postToolCall, undefined, { _tag: "ReplaceTools", tools: [tools[0]] }),
      BAD_RETURN
    )
  })

  it.effect("arity: a hook may take as many arguments as its row names, not one more", () =>
    Effect.gen(function*() {
      for (const event of HOOK_EVENTS) {
        const arity = HOOK_EVENT_ROWS[event].args.length
        const run = (n: number) => Object.defineProperty(() => Verdict.continue, "length", { value: n })
        assert.isTrue(Exit.isSuccess(yield* compiles({ [event]: [{ match: "*", run: run(arity) }] })), event)
        assert.isTrue(Exit.isFailure(yield* compiles({ [event]: [{ match: "*", run: run(arity + 1) }] })), event)
      }
    }))

  it.effect("failure rule: onError is accepted exactly on the onError rows", () =>
    Effect.gen(function*() {
      for (const event of HOOK_EVENTS) {
        const exit = yield* compiles({ [event]: [{ match: "*", run: () => Verdict.continue, onError: "ignore" }] })
        assert.strictEqual(Exit.isSuccess(exit), HOOK_EVENT_ROWS[event].failure === "onError", event)
      }
    }))

  it.effect("run order: inside-out rows run the tool's hook first, outside-in rows the global one", () =>
    Effect.gen(function*() {
      for (const event of HOOK_EVENTS) {
        const cont = () => Verdict.continue
        const compiled = yield* Hooks.compile(
          { [event]: [{ match: "s/t", id: "tool", run: cont }, { match: "*", id: "global", run: cont }] } as HooksConfig
        )
        const ids = compiled.byEvent[event].map((hook) => hook.id)
        assert.deepStrictEqual(
          ids,
          HOOK_EVENT_ROWS[event].order === "inside-out" ? ["tool", "global"] : ["global", "tool"],
          event
        )
      }
    }))

  // Mostly right, sometimes junk: the right shape twice in the union weighs it.
  const maybe = <S extends Schema.Top>(schema: S) => Schema.optional(Schema.Union([schema, schema, Schema.Unknown]))
  const Tag = Schema.Literals([...ALL_TAGS, "Allow", "Ask"])
  const ToolLike = Schema.Struct({
    serverId: Schema.Literals(["s", "other"]),
    name: Schema.Literals(["read_file", "write", "Read-File"]),
    inputSchema: Schema.Struct({})
  })
  const Content = Schema.Array(Schema.Struct({ type: Schema.Literal("text"), text: Schema.String }))
  // A nested key the result's Schema does not know is dropped, not junk.
  const ResultLike = Schema.Union([
    Schema.Struct({ content: Content }),
    Schema.Struct({ content: Content, extra: Schema.Finite })
  ])
  /**
   * Values near the verdicts: the keys of some verdict, each right or junk, with its tag or another; or anything at
   * all.
   */
  const Candidate = Schema.Union([
    Schema.Struct({ _tag: Tag }),
    Schema.Struct({ _tag: Schema.Literals(["Deny", "Allow"]), reason: maybe(Schema.String) }),
    Schema.Struct({
      _tag: Schema.Literal("Rewrite"),
      args: maybe(Schema.Record(Schema.String, Schema.Finite)),
      meta: maybe(Schema.Record(Schema.String, Schema.String)),
      serverId: maybe(Schema.Literals(["s", "other"])),
      name: maybe(Schema.Literals(["t", "p", "x"])),
      callId: maybe(Schema.Literals(["c", "d"]))
    }),
    Schema.Struct({
      _tag: Schema.Literal("Rewrite"),
      args: maybe(Schema.Record(Schema.String, Schema.Finite)),
      name: maybe(Schema.Literals(["p", "t"]))
    }),
    Schema.Struct({ _tag: Schema.Literals(["Halt", "Replace", "Recover"]), result: maybe(ResultLike) }),
    Schema.Struct({ _tag: Schema.Literals(["ReplaceTools", "Replace"]), tools: maybe(Schema.Array(ToolLike)) }),
    Schema.Unknown
  ])

  it.effect.prop(
    "the decoder answers bad_return for every tag outside the row, and accepts exactly what the row's Schema and " +
      "check accept",
    [Candidate],
    ([value]) =>
      Effect.sync(() => {
        for (const event of HOOK_EVENTS) {
          const decoded = decodeVerdict(inputs[event], undefined, value)
          assert.strictEqual(
            decoded !== BAD_RETURN,
            rowAccepts(HOOK_EVENT_ROWS[event], value, checkInputs[event]),
            `${event}: ${JSON.stringify(value)}`
          )
        }
      }),
    { arbitrary: { runs: 1000 } }
  )
})
