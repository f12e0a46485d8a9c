/**
 * Issue 10, names: a deny rule cannot be dodged by spelling a name with invisible characters,
 * white space, case or width variants; caches keyed by sent names stay within their byte bounds;
 * config regexes run in linear time on adversarial names.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Result, Schema } from "effect"
import { Hooks } from "../src/hooks/Hooks.ts"
import {
  canonicalName,
  ConfigError,
  Interlock,
  parseMatcher,
  Policy,
  sameName,
  ToolCalls,
  Verdict
} from "../src/index.ts"
import { makeSelector, SELECTION_CACHE_BYTES } from "../src/internal/HookChain.ts"
import { NAME_CACHE_BYTES, nameCacheBytes } from "../src/policy/Names.ts"
import { Arbitraries } from "../src/testing/index.ts"
import { recordingTransport } from "./fixtures.ts"

/** Default-ignorable code points and white space an attacker can slip into a name. */
const IGNORABLES = [
  "\u200B",
  "\u200C",
  "\u200D",
  "\u00AD",
  "\u2060",
  "\uFEFF",
  "\u180E",
  "\uFE0F",
  "\u034F",
  "\u{E0061}"
]
const SPACES = [" ", "\t", "\n", "\u00A0", "\u3000", "\u2003"]

/** A plain tool name, as a config would write it. */
const PlainName = Schema.String.check(Schema.isPattern(/^[a-z][a-z0-9]{0,6}(_[a-z0-9]{1,6}){0,2}$/))

/** One spelling change: insert an ignorable at `at`, pad with white space, or change case/width. */
const Edit = Schema.Struct({
  at: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 40 })),
  what: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: IGNORABLES.length + SPACES.length + 2 }))
})

const toFullWidth = (text: string): string =>
  text.replace(/[!-~]/g, (c) => String.fromCodePoint(c.codePointAt(0)! + 0xFEE0))

/** Applies the edits to a name: the attacker's spelling of it. */
const disguise = (name: string, edits: ReadonlyArray<typeof Edit.Type>): string => {
  let out = name
  for (const { at, what } of edits) {
    const cut = at % (out.length + 1)
    if (what < IGNORABLES.length) out = out.slice(0, cut) + IGNORABLES[what] + out.slice(cut)
    else if (what < IGNORABLES.length + SPACES.length) {
      const space = SPACES[what - IGNORABLES.length]
      out = at % 2 === 0 ? space + out : out + space
    } else if (what === IGNORABLES.length + SPACES.length) out = out.toUpperCase()
    else if (what === IGNORABLES.length + SPACES.length + 1) out = toFullWidth(out)
    else out = out.replace(/_/g, at % 2 === 0 ? "-" : ".")
  }
  return out
}

const LATIN_TO_LOOKALIKE = Arbitraries.LOOKALIKE_OF

/** Swaps the letters at `positions` (where they have a lookalike) for their lookalikes. */
const swapLookalikes = (name: string, positions: ReadonlyArray<number>): string => {
  const chars = [...name]
  for (const at of positions) {
    const i = at % chars.length
    chars[i] = LATIN_TO_LOOKALIKE[chars[i]] ?? chars[i]
  }
  return chars.join("")
}

/** A client whose policy denies srv/<name> and allows everything else. */
const denying = (name: string) => {
  const transport = recordingTransport()
  const layer = Interlock.layer({
    policy: Policy.rules({
      rules: [{ id: "deny-it", match: `srv/${name}`, decision: "deny" }, { id: "rest", match: "*", decision: "allow" }],
      default: "deny"
    })
  }).pipe(Layer.provide(transport.layer))
  return { log: transport.log, layer }
}

describe("security: names", () => {
  it("invisible characters, surrounding white space, case and width do not make a new name", () => {
    for (
      const disguised of [
        "read\u200B_file",
        "\u00ADread_file",
        "read_fi\u200Dle",
        " read_file\t",
        "\uFEFFread_file",
        "ｒｅａｄ_ｆｉｌｅ",
        "READ-FILE"
      ]
    ) {
      assert.strictEqual(canonicalName(disguised), canonicalName("read_file"), JSON.stringify(disguised))
    }
    assert.isFalse(sameName("read file", "read_file"))
    assert.strictEqual(canonicalName("\u200B\u200D"), "")
  })

  it.effect.prop(
    "a disguised name has the plain name's canonical form, and a deny rule on the plain name denies it",
    [PlainName, Schema.Array(Edit).check(Schema.isMaxLength(6))],
    ([name, edits]) =>
      Effect.gen(function*() {
        assert.match(name, /^[a-z]/)
        const disguised = disguise(name, edits)
        assert.strictEqual(canonicalName(disguised), canonicalName(name))
        const { log, layer } = denying(name)
        const error = yield* Effect.flip(
          Effect.flatMap(ToolCalls, (calls) => calls.callTool({ serverId: "srv", name: disguised })).pipe(
            Effect.provide(layer)
          )
        )
        assert.strictEqual(error._tag, "Denied")
        assert.strictEqual(
          error._tag === "Denied" && error.reason._tag === "PolicyDenied" ? error.reason.rule : undefined,
          "deny-it"
        )
        // Nothing reached the transport.
        assert.deepStrictEqual(log.calls, [])
      }),
    { arbitrary: { runs: 60 } }
  )

  it.effect.prop(
    "a lookalike (Cyrillic/Greek letters) of a denied name is denied by the policy and by tools.deny; an allow rule " +
      "does not allow it",
    [
      PlainName,
      Schema.Array(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 40 }))).check(
        Schema.isMinLength(1),
        Schema.isMaxLength(4)
      )
    ],
    ([name, positions]) =>
      Effect.gen(function*() {
        const lookalike = swapLookalikes(name, positions)
        const target = lookalike === name ? `${LATIN_TO_LOOKALIKE.o}${name}` : lookalike
        const plain = target === lookalike ? name : `o${name}`
        assert.notStrictEqual(canonicalName(target), canonicalName(plain))
        const denied = denying(plain)
        const error = yield* Effect.flip(
          Effect.flatMap(ToolCalls, (calls) => calls.callTool({ serverId: "srv", name: target })).pipe(
            Effect.provide(denied.layer)
          )
        )
        assert.strictEqual(
          error._tag === "Denied" && error.reason._tag === "PolicyDenied" ? error.reason.rule : undefined,
          "deny-it"
        )
        const filtered = recordingTransport()
        const hidden = Interlock.layer({ policy: Policy.allowAll, tools: { deny: [`srv/${plain}`] } }).pipe(
          Layer.provide(filtered.layer)
        )
        const notExposed = yield* Effect.flip(
          Effect.flatMap(ToolCalls, (calls) => calls.callTool({ serverId: "srv", name: target })).pipe(
            Effect.provide(hidden)
          )
        )
        assert.strictEqual(notExposed._tag === "Denied" ? notExposed.reason._tag : undefined, "NotExposed")
        const allowing = recordingTransport()
        const onlyPlain = Interlock.layer({
          policy: Policy.rules({ rules: [{ id: "plain", match: `srv/${plain}`, decision: "allow" }], default: "deny" })
        }).pipe(Layer.provide(allowing.layer))
        const refused = yield* Effect.flip(
          Effect.flatMap(ToolCalls, (calls) => calls.callTool({ serverId: "srv", name: target })).pipe(
            Effect.provide(onlyPlain)
          )
        )
        assert.strictEqual(
          refused._tag === "Denied" && refused.reason._tag === "PolicyDenied" ? refused.reason.rule : "allowed",
          undefined
        )
        assert.deepStrictEqual([...denied.log.calls, ...filtered.log.calls, ...allowing.log.calls], [])
      }),
    { arbitrary: { runs: 60 } }
  )

  it("a burst of distinct 1 MB names leaves the name cache under its byte bound", () => {
    const base = "n".repeat(1024 * 1024)
    for (let i = 0; i < 40; i++) canonicalName(`${i}${base}`)
    for (let i = 0; i < 20_000; i++) canonicalName(`tool_${i}_${"x".repeat(200)}`)
    assert.isAtMost(nameCacheBytes(), NAME_CACHE_BYTES)
    assert.isAbove(nameCacheBytes(), 0)
  })

  it.effect("a burst of distinct long names leaves the hook selection cache under its byte bound", () =>
    Effect.gen(function*() {
      const hooks = yield* Effect.provide(
        Effect.gen(function*() {
          return yield* Hooks
        }),
        Hooks.layer({ preToolCall: [{ match: "*", run: () => Verdict.continue }] })
      )
      const select = makeSelector(hooks.byEvent)
      const base = "n".repeat(1024 * 1024)
      for (let i = 0; i < 40; i++) assert.strictEqual(select("preToolCall", "srv", `${i}${base}`).length, 1)
      for (let i = 0; i < 20_000; i++) select("preToolCall", `srv${i}`, `tool_${i}_${"x".repeat(200)}`)
      assert.isAtMost(select.cacheBytes(), SELECTION_CACHE_BYTES)
      assert.isAbove(select.cacheBytes(), 0)
    }))

  it("globs and regexes run in linear time on 1 MB of adversarial text", () => {
    const text = "a".repeat(1024 * 1024)
    const glob = parseMatcher("srv/*a*a*a*a*a*a*a*b")
    const regex = parseMatcher({ server: "srv", regex: /^(a+)+$/ })
    assert.isTrue(Result.isSuccess(glob) && Result.isSuccess(regex))
    if (Result.isSuccess(glob) && Result.isSuccess(regex)) {
      // A backtracking engine would not finish either of these in any useful time.
      assert.isFalse(glob.success.test("srv", text))
      assert.isFalse(regex.success.test("srv", `${text}!`))
      assert.isTrue(regex.success.test("srv", text))
    }
  })

  it.effect("a regex that needs backtracking is a ConfigError naming the matcher", () =>
    Effect.gen(function*() {
      for (const regex of [/(?=a)b/, /(a)\1/, "(?<!x)y"]) {
        const matcher = parseMatcher({ server: "srv", regex })
        assert.isTrue(Result.isFailure(matcher))
        if (Result.isFailure(matcher)) {
          assert.include(matcher.failure, `srv/${String(regex)}`)
          assert.include(matcher.failure, "linear time")
        }
      }
      const built = yield* Effect.flip(Effect.scoped(Layer.build(
        Interlock.layer({ policy: Policy.allowAll, tools: { deny: [{ server: "srv", regex: /(?=a)b/ }] } }).pipe(
          Layer.provide(recordingTransport().layer)
        )
      )))
      assert.instanceOf(built, ConfigError)
      assert.strictEqual((built as ConfigError).path, "tools.deny[0]")
      assert.include((built as ConfigError).detail, "srv//(?=a)b/")
    }))
})

/** Regex deny rules, as tools.deny and as policy rules. */
const regexDenying = (regex: RegExp) => {
  const transport = recordingTransport()
  const layer = Interlock.layer({
    policy: Policy.rules({
      rules: [{ id: "deny-re", match: { server: "srv", regex }, decision: "deny" }, {
        id: "rest",
        match: "*",
        decision: "allow"
      }],
      default: "deny"
    })
  }).pipe(Layer.provide(transport.layer))
  const hidden = recordingTransport()
  const hiddenLayer = Interlock.layer({ policy: Policy.allowAll, tools: { deny: [{ server: "srv", regex }] } }).pipe(
    Layer.provide(hidden.layer)
  )
  return { log: () => [...transport.log.calls, ...hidden.log.calls], layer, hiddenLayer }
}

const callOn = (layer: ReturnType<typeof denying>["layer"], name: string) =>
  Effect.flip(
    Effect.flatMap(ToolCalls, (calls) => calls.callTool({ serverId: "srv", name })).pipe(Effect.provide(layer))
  )

describe("security: uppercase lookalikes and regex rules", () => {
  it.effect("uppercase Cyrillic/Greek/Armenian lookalikes of a denied name are denied", () =>
    Effect.gen(function*() {
      for (
        const [plain, target] of [
          ["mkdir", "МKDIR"],
          ["mkdir", "ΜKDIR"],
          ["net_send", "ΝET_SEND"],
          ["net_send", "NEТ_SEND"],
          ["road_file", "rօad_file"],
          ["read_file", "rеad_file"]
        ]
      ) {
        const { log, layer } = denying(plain)
        const error = yield* callOn(layer, target)
        assert.strictEqual(
          error._tag === "Denied" && error.reason._tag === "PolicyDenied" ? error.reason.rule : undefined,
          "deny-it",
          target
        )
        assert.deepStrictEqual(log.calls, [])
      }
    }))

  it.effect.prop(
    "an uppercase name with uppercase lookalikes swapped in is denied by a deny on the plain name",
    [
      PlainName,
      Schema.Array(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 40 }))).check(
        Schema.isMinLength(1),
        Schema.isMaxLength(4)
      )
    ],
    ([name, positions]) =>
      Effect.gen(function*() {
        const chars = [...name.toUpperCase()]
        for (const at of positions) {
          chars[at % chars.length] = LATIN_TO_LOOKALIKE[chars[at % chars.length]] ?? chars[at % chars.length]
        }
        const target = chars.join("")
        const { log, layer } = denying(name)
        const error = yield* callOn(layer, target)
        assert.strictEqual(
          error._tag === "Denied" && error.reason._tag === "PolicyDenied" ? error.reason.rule : undefined,
          "deny-it"
        )
        assert.deepStrictEqual(log.calls, [])
      }),
    { arbitrary: { runs: 60 } }
  )

  it.effect("a regex deny rule is not escaped by ignorables, soft hyphens or lookalikes", () =>
    Effect.gen(function*() {
      const { log, layer, hiddenLayer } = regexDenying(/^delete-/)
      for (
        const target of [
          "delete-all",
          "delete\u200B-all",
          "\u200Bdelete-all",
          "delete\u00AD-all",
          "dеlete-all",
          " delete-all"
        ]
      ) {
        const error = yield* callOn(layer, target)
        assert.strictEqual(
          error._tag === "Denied" && error.reason._tag === "PolicyDenied" ? error.reason.rule : undefined,
          "deny-re",
          JSON.stringify(target)
        )
        const hidden = yield* callOn(hiddenLayer, target)
        assert.strictEqual(
          hidden._tag === "Denied" ? hidden.reason._tag : undefined,
          "NotExposed",
          JSON.stringify(target)
        )
      }
      assert.deepStrictEqual(log(), [])
    }))

  it.effect("an allow regex rule gains no matches from lookalikes", () =>
    Effect.gen(function*() {
      const transport = recordingTransport()
      const layer = Interlock.layer({
        policy: Policy.rules({
          rules: [{ id: "allow-re", match: { server: "srv", regex: /^read-/ }, decision: "allow" }],
          default: "deny"
        })
      }).pipe(Layer.provide(transport.layer))
      const error = yield* callOn(layer, "rеad-file")
      assert.strictEqual(
        error._tag === "Denied" && error.reason._tag === "PolicyDenied" ? error.reason.rule : "allowed",
        undefined
      )
      assert.deepStrictEqual(transport.log.calls, [])
    }))
})
