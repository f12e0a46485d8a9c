/**
 * Issue 10 sections 3 and 4 for redaction: every regex that sees call data runs in linear time
 * (RE2), on 1 MB of adversarial text too, with the same matches as before; user patterns that RE2
 * cannot run are a ConfigError; redaction never throws, however deep the JSON, and no string that
 * matches survives at any depth; base64 is exempt only at the MCP schema's data/blob positions.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigError } from "@interlock/core"
import { Effect, Schema } from "effect"
import { redactBlock, redactContent, redactResourceEntry } from "../../src/governance/ContentRedaction.ts"
import { DETECTOR_NAMES, DETECTORS } from "../../src/governance/Detectors.ts"
import {
  compileRedactions,
  MAX_DEPTH,
  type Redaction,
  redactJson,
  redactText,
  TOO_DEEP
} from "../../src/governance/Redactor.ts"
import { ADVERSARIAL_INPUTS, PATHOLOGICAL_PATTERN } from "../adversarial.ts"
import { SAMPLES, secretPart } from "../detector-samples.ts"
import { PNG, SECRET, SECRET_PATTERN, TOKEN } from "../secrets.ts"

const compiled = (entries: Parameters<typeof compileRedactions>[0]): ReadonlyArray<Redaction> => {
  const out = compileRedactions(entries)
  if (out instanceof ConfigError) throw new Error(out.message)
  return out
}

const MARKED = compiled([{ pattern: SECRET_PATTERN }, { detectors: "all" }])

/** The detector run by JavaScript's own engine, masking the same group: the reference output. */
const reference = (name: keyof typeof DETECTORS, text: string): string => {
  const { source, flags, group } = DETECTORS[name]
  let out = ""
  let at = 0
  for (const match of text.matchAll(new RegExp(source, `gd${flags}`))) {
    const [start, end] = match.indices?.[group] ?? [0, 0]
    if (end <= start) continue
    out += `${text.slice(at, start)}[REDACTED]`
    at = end
  }
  return out + text.slice(at)
}

const MB = 1_000_000

describe("linear-time redaction", () => {
  it("each detector on 1 MB of adversarial text finds exactly the secret a backtracking engine finds", () => {
    for (const name of DETECTOR_NAMES) {
      const redactions = compiled([{ detectors: [name] }])
      for (const [input, make] of Object.entries(ADVERSARIAL_INPUTS)) {
        const text = `${make(MB)} ${SAMPLES[name]} `
        const out = redactText(text, redactions)
        assert.notInclude(out, secretPart(name), `${name} on ${input}`)
        assert.isTrue(out === reference(name, text), `${name} on ${input} differs from the reference`)
      }
    }
  }, 120_000)

  it("a pathological user pattern runs on 1 MB of adversarial text, and still matches where it should", () => {
    const redactions = compiled([{ pattern: PATHOLOGICAL_PATTERN }])
    for (const [input, make] of Object.entries(ADVERSARIAL_INPUTS)) {
      const text = make(MB)
      const out = redactText(text, redactions)
      assert.isTrue(redactText(out, redactions) === out, `a match survived in ${input}`)
      // Only the near misses hold an "ab" (in "ghp_abc"): elsewhere there is nothing to redact.
      if (input === "near misses") assert.include(out, "ghp_[REDACTED]c")
      else assert.isTrue(out === text, `nothing to redact in ${input}`)
    }
    assert.strictEqual(redactText(`${"a".repeat(MB)}b`, redactions), "[REDACTED]")
  }, 120_000)

  it("a user pattern RE2 cannot run in linear time is a ConfigError naming redact[i].pattern", () => {
    for (const pattern of ["(?<=key=)\\w+", "secret(?=!)", "(a)\\1", "(unclosed"]) {
      const error = compileRedactions([{ detectors: "all" }, { pattern }])
      assert.instanceOf(error, ConfigError, pattern)
      assert.strictEqual((error as ConfigError).path, "redact[1].pattern")
    }
  })

  it("JavaScript syntax in user patterns keeps working (translated to RE2)", () => {
    const redactions = compiled([{ pattern: "\\u0041+\\d{2}(?<tail>x)?" }])
    assert.strictEqual(redactText("key AAA12x end", redactions), "key [REDACTED] end")
  })
})

// A JSON value with marked secrets at every level, nested `depth` containers deep; `kinds` picks
// each level's container (array, or an object under one of the keys that redaction once skipped).
const KEYS = ["data", "type", "uri", "blob", "mimeType", "text", "x"] as const
const Kind = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: KEYS.length }))

const nested = (depth: number, kinds: ReadonlyArray<number>, fillers: ReadonlyArray<string>): unknown => {
  let node: unknown = { data: SECRET, keep: "keep-me" }
  for (let level = 0; level < depth; level++) {
    const kind = kinds.length === 0 ? 0 : kinds[level % kinds.length]
    const filler = fillers.length === 0 ? "" : fillers[level % fillers.length]
    const secret = level % 2 === 0 ? `${filler}${SECRET}` : `${TOKEN}${filler}`
    node = kind === KEYS.length
      ? [secret, node, filler]
      : { [KEYS[kind]]: node, [KEYS[(kind + 1) % KEYS.length]]: secret, n: level }
  }
  return node
}

const strings = (root: unknown): Array<string> => {
  const out: Array<string> = []
  const stack = [root]
  while (stack.length > 0) {
    const node = stack.pop()
    if (typeof node === "string") out.push(node)
    else if (typeof node === "object" && node !== null) stack.push(...Object.values(node))
  }
  return out
}

describe("object keys", () => {
  it("a secret used as a key is redacted like any string; keys that redact alike are kept apart", () => {
    const out = redactJson({
      [SECRET]: 1,
      [`${SECRET}b`]: 2,
      nested: { [TOKEN]: { ok: "fine" } },
      list: [{ [SECRET]: true }]
    }, MARKED)
    const text = JSON.stringify(out)
    assert.notInclude(text, SECRET)
    assert.notInclude(text, TOKEN)
    assert.strictEqual(Object.keys(out).length, 4)
    assert.deepStrictEqual(Object.values(out).slice(0, 2).sort(), [1, 2])
    assert.deepStrictEqual(Object.values((out as { nested: object }).nested), [{ ok: "fine" }])
  })
})

describe("redaction never throws", () => {
  it.effect.prop(
    "JSON nested up to 20,000 deep: no throw, no matching string survives at any depth, shallow data kept",
    [
      Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 20_000 })),
      Schema.Array(Kind),
      Schema.Array(Schema.String)
    ],
    ([depth, kinds, fillers]) =>
      Effect.sync(() => {
        const out = redactJson(nested(depth, kinds, fillers), MARKED)
        for (const text of strings(out)) assert.isTrue(redactText(text, MARKED) === text, "a matching string survived")
        const kept = strings(out)
        if (depth < MAX_DEPTH) assert.include(kept, "keep-me")
        else assert.include(kept, TOO_DEEP)
      })
  )

  it.effect.prop(
    "random JSON: no throw, and what comes back holds no match",
    [Schema.Json],
    ([json]) =>
      Effect.sync(() => {
        const out = redactJson({ json, both: [json, `${SECRET} ${TOKEN}`] }, MARKED)
        for (const text of strings(out)) assert.isTrue(redactText(text, MARKED) === text)
      })
  )
})

describe("content by its schema", () => {
  it.effect.prop(
    "a secret split across consecutive text blocks is found; the blocks joined equal the joined text redacted",
    [
      Schema.String,
      Schema.String,
      Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: SECRET.length - 1 })),
      Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 3 }))
    ],
    ([before, after, cut, empties]) =>
      Effect.sync(() => {
        const texts = [
          `${before}${SECRET.slice(0, cut)}`,
          ...Array.from({ length: empties }, () => ""),
          `${SECRET.slice(cut)}${after}`
        ]
        const out = redactContent(texts.map((text) => ({ type: "text", text })), MARKED) as ReadonlyArray<
          { text: string }
        >
        assert.lengthOf(out, texts.length)
        const joined = out.map((block) => block.text).join("")
        assert.strictEqual(joined, redactText(texts.join(""), MARKED))
        assert.notInclude(joined, SECRET)
      })
  )

  it(
    "base64 is exempt only at image/audio data and resource blob; not base64 there, or anywhere else, " +
      "is redacted",
    () => {
      const b64 = "U0VDUkVULTdmM2E5YzJlNGIxZA" // base64 of the secret: not a match itself
      assert.deepStrictEqual(redactBlock({ type: "image", data: PNG, mimeType: "image/png" }, MARKED), {
        type: "image",
        data: PNG,
        mimeType: "image/png"
      })
      assert.deepStrictEqual(redactBlock({ type: "audio", data: `x ${SECRET}`, mimeType: SECRET }, MARKED), {
        type: "audio",
        data: "x [REDACTED]",
        mimeType: "[REDACTED]"
      })
      assert.deepStrictEqual(redactBlock({ type: "resource", resource: { uri: `s://${SECRET}`, blob: b64 } }, MARKED), {
        type: "resource",
        resource: { uri: "s://[REDACTED]", blob: b64 }
      })
      assert.deepStrictEqual(redactResourceEntry({ uri: "s://x", blob: TOKEN }, MARKED), {
        uri: "s://x",
        blob: "[REDACTED]"
      })
      // By key name nothing is exempt: `data`, `type`, `uri`, `blob` elsewhere are redacted.
      assert.deepStrictEqual(
        redactJson({ data: SECRET, type: SECRET, uri: SECRET, blob: TOKEN, mimeType: SECRET }, MARKED),
        {
          data: "[REDACTED]",
          type: "[REDACTED]",
          uri: "[REDACTED]",
          blob: "[REDACTED]",
          mimeType: "[REDACTED]"
        }
      )
      assert.deepStrictEqual(redactBlock({ type: "resource_link", uri: `s://${SECRET}`, name: "n" }, MARKED), {
        type: "resource_link",
        uri: "s://[REDACTED]",
        name: "n"
      })
    }
  )

  it("nothing to redact returns the very same objects", () => {
    const content = [{ type: "text", text: "a" }, { type: "image", data: PNG, mimeType: "image/png" }, {
      type: "text",
      text: "b"
    }]
    assert.strictEqual(redactContent(content, MARKED), content)
    const json = { a: [1, { b: "c" }], d: null }
    assert.strictEqual(redactJson(json, MARKED), json)
  })
})
