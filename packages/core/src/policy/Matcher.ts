/**
 * Matchers: which calls a hook or a policy rule applies to (the forms are on {@link MatcherJson}). Names compare
 * loosely (Names.ts). Globs and regexes see names a host or server sends, so they compile with re2js (linear time);
 * a regex that needs backtracking is rejected at config time. All is pure and runs at config time but `test`.
 */
import { Effect, Result, Schema, SchemaIssue, SchemaTransformation } from "effect"
import { RE2JS } from "re2js"
import { describe } from "../internal/Describe.ts"
import { canonicalName, nameForms } from "./Names.ts"

/** Onion level of a matcher: global hooks run outermost, tool hooks innermost. */
export type Level = "global" | "server" | "tool"

/** Level order, outermost first. */
export const levelRank: Record<Level, number> = { global: 0, server: 1, tool: 2 }

/**
 * A compiled matcher. It selects in two widths: `test` for what grants (allow rules, allow
 * lists), `restrictTest` for what restricts or watches (deny and ask rules, deny lists, hooks,
 * redactions), which also takes a name's lookalike skeleton for the name. Both read names
 * through one normalization (Names.ts).
 */
export interface Matcher {
  /** The matcher as written, for error messages and receipts. */
  readonly source: string
  readonly level: Level
  /** The canonical server name when it is a literal (no glob), for indexing. */
  readonly serverKey: string | undefined
  /** True when the matcher selects every server. */
  readonly anyServer: boolean
  /** The canonical tool name when it is a literal (no glob, no regex), for indexing. */
  readonly nameKey: string | undefined
  /** Whether a grant (an allow rule) selects a call to `name` on `serverId` (raw names; compared loosely). */
  readonly test: (serverId: string, name: string) => boolean
  /**
   * Whether a restriction (deny or ask rule, deny list, hook, redaction) selects the call: `test`,
   * or the same on the names' confusable skeletons; a regex also sees the loose forms (Names.ts)
   * and their skeletons.
   */
  readonly restrictTest: (serverId: string, name: string) => boolean
}

const ALL = new Set(["*", "all", "any"])

/** A glob over one name, compared on canonical names; `*` never crosses a `/`. */
const compileGlob = (pattern: string): ((canonical: string) => boolean) | { readonly literal: string } => {
  if (!pattern.includes("*")) return { literal: canonicalName(pattern) }
  if (/^\*+$/.test(pattern)) return () => true
  const pieces = pattern.split("*").map(canonicalName)
  if (pieces.length === 2) return oneStar(pieces[0], pieces[1])
  const source = pieces.map((piece) => RE2JS.quote(piece)).join("[^/]*")
  const test = lazyRe2(`^${source}$`, 0)
  return (canonical) => test(canonical)
}

/** `prefix*suffix` without a regex (the common case, on the hot path): the star spans no `/`. */
const oneStar = (prefix: string, suffix: string) => (canonical: string): boolean => {
  if (
    canonical.length < prefix.length + suffix.length || !canonical.startsWith(prefix) || !canonical.endsWith(suffix)
  ) return false
  const slash = canonical.indexOf("/", prefix.length)
  return slash < 0 || slash >= canonical.length - suffix.length
}

const globTest = (glob: ReturnType<typeof compileGlob>) =>
  typeof glob === "function" ? glob : (canonical: string) => canonical === glob.literal

const literalOf = (glob: ReturnType<typeof compileGlob>): string | undefined =>
  typeof glob === "function" ? undefined : glob.literal

const fail = (message: string): Result.Result<Matcher, string> => Result.fail(message)

/** `test`, or `test` on the skeletons when either name has lookalikes (string matchers). */
const skeletonTest = (test: Matcher["test"]): Matcher["restrictTest"] => (serverId, name) => {
  if (test(serverId, name)) return true
  const server = nameForms(serverId)
  const tool = nameForms(name)
  return (server.skeleton !== server.canonical || tool.skeleton !== tool.canonical) &&
    test(server.skeleton, tool.skeleton)
}

const parseString = (input: string): Result.Result<Matcher, string> => {
  const text = input.trim()
  if (text.length === 0) return fail("a matcher must not be empty")
  if (ALL.has(text.toLowerCase()) || text === "*/*") {
    return Result.succeed({
      source: input,
      level: "global",
      serverKey: undefined,
      anyServer: true,
      nameKey: undefined,
      test: () => true,
      restrictTest: () => true
    })
  }
  const slash = text.indexOf("/")
  const serverPart = slash < 0 ? "*" : text.slice(0, slash)
  const namePart = slash < 0 ? text : text.slice(slash + 1)
  if (serverPart.length === 0) return fail(`matcher "${input}" has an empty server part`)
  if (namePart.length === 0) return fail(`matcher "${input}" has an empty tool part`)
  const server = compileGlob(serverPart)
  const name = compileGlob(namePart)
  const serverTest = globTest(server)
  const nameTest = globTest(name)
  const level: Level = /^\*+$/.test(namePart) ? "server" : "tool"
  const test = (serverId: string, toolName: string) =>
    serverTest(canonicalName(serverId)) && nameTest(canonicalName(toolName))
  return Result.succeed({
    source: input,
    level,
    serverKey: literalOf(server),
    anyServer: /^\*+$/.test(serverPart),
    nameKey: literalOf(name),
    test,
    restrictTest: skeletonTest(test)
  })
}

/** RegExp flags that carry over to re2js; g, y, d and u change nothing a test needs (u is re2's default). */
const FLAGS: Record<string, number> = {
  i: RE2JS.CASE_INSENSITIVE,
  m: RE2JS.MULTILINE,
  s: RE2JS.DOTALL,
  g: 0,
  y: 0,
  d: 0,
  u: 0
}

/**
 * A re2js test compiled on first use. A compiled re2js program is large, and holding thousands of
 * them slows the whole process (its garbage collection), so a matcher that never runs never holds
 * one. The pattern is checked when the config is compiled (see {@link toRe2}).
 */
const lazyRe2 = (pattern: string, flags: number): (text: string) => boolean => {
  let compiled: RE2JS | undefined
  return (text) => {
    compiled ??= RE2JS.compile(pattern, flags)
    return compiled.test(text)
  }
}

/** Checks a config regex with re2js (linear time) and returns its lazy test, or says why it cannot be used. */
const toRe2 = (regex: RegExp | string): ((text: string) => boolean) | string => {
  let flags = 0
  if (typeof regex !== "string") {
    for (const flag of regex.flags) {
      const bit = FLAGS[flag]
      if (bit === undefined) return `regex flag "${flag}" is not supported`
      flags |= bit
    }
  }
  try {
    const pattern = RE2JS.translateRegExp(typeof regex === "string" ? regex : regex.source)
    RE2JS.compile(pattern, flags)
    return lazyRe2(pattern, flags)
  } catch (error) {
    const detail = error instanceof Error ? error.message : "unknown error"
    return `regex is not supported (it must run in linear time: no lookaround, no backreferences): ${detail}`
  }
}

const parseRegexMatcher = (
  input: { readonly server: unknown; readonly regex: unknown }
): Result.Result<Matcher, string> => {
  const keys = Object.keys(input).filter((key) => key !== "server" && key !== "regex")
  if (keys.length > 0) return fail(`regex matcher has unknown keys: ${keys.join(", ")}`)
  if (typeof input.server !== "string" || input.server.trim().length === 0) {
    return fail("regex matcher needs a non-empty string `server`")
  }
  if (!(input.regex instanceof RegExp) && typeof input.regex !== "string") {
    return fail("regex matcher needs `regex` as a RegExp or a string")
  }
  const regex = toRe2(input.regex)
  const written = `${input.server}/${String(input.regex)}`
  if (typeof regex === "string") return fail(`matcher "${written}": ${regex}`)
  const anyServer = ALL.has(input.server.trim().toLowerCase()) || /^\*+$/.test(input.server.trim())
  const server = anyServer ? compileGlob("*") : compileGlob(input.server.trim())
  const serverTest = globTest(server)
  return Result.succeed({
    source: written,
    level: "tool",
    serverKey: literalOf(server),
    anyServer,
    nameKey: undefined,
    test: (serverId, name) => {
      if (!serverTest(canonicalName(serverId))) return false
      if (regex(name)) return true
      const canonical = canonicalName(name)
      return canonical !== name && regex(canonical)
    },
    restrictTest: (serverId, name) => {
      const server = nameForms(serverId)
      if (!serverTest(server.canonical) && !serverTest(server.skeleton)) return false
      const tool = nameForms(name)
      return regex(name) || (tool.canonical !== name && regex(tool.canonical)) ||
        (tool.loose !== name && regex(tool.loose)) ||
        (tool.looseSkeleton !== tool.loose && regex(tool.looseSkeleton)) ||
        (tool.skeleton !== tool.canonical && regex(tool.skeleton))
    }
  })
}

/** Compiles a matcher, or says in one sentence what is wrong with it. Never throws. */
export const parseMatcher = (input: unknown): Result.Result<Matcher, string> => {
  if (typeof input === "string") return parseString(input)
  if (typeof input === "object" && input !== null && !Array.isArray(input) && "regex" in input) {
    return parseRegexMatcher(input as { server: unknown; regex: unknown })
  }
  return fail(`a matcher must be "*", "server/tool", "tool" or { server, regex }, got ${describe(input)}`)
}

/**
 * Whether a restricting matcher selects a call: on its names, or on their confusable skeletons (so
 * a deny or a hook on `read_file` also selects `rеad_file` with a Cyrillic `е`). Never for grants.
 */
export const restricts = (matcher: Matcher, serverId: string, name: string): boolean =>
  matcher.restrictTest(serverId, name)

// The Schemas of a matcher as written. Their shape is what a JSON Schema can say (a non-empty
// string, or `{ server, regex }`); parseMatcher's rules (loose names, empty parts, linear-time
// regexes) are their check, with parseMatcher's sentence as the message.

const RegExpValue = Schema.declare((u: unknown): u is RegExp => u instanceof RegExp)

const shapeOf = <Regex extends Schema.Top>(regex: Regex) =>
  Schema.Union([Schema.NonEmptyString, Schema.Struct({ server: Schema.NonEmptyString, regex })])

const InputShape = shapeOf(Schema.Union([RegExpValue, Schema.NonEmptyString]))

const matcherRules = Schema.makeFilter((input: unknown) => {
  const matcher = parseMatcher(input)
  return Result.isFailure(matcher) ? matcher.failure : undefined
})

/** A matcher as a JSON config holds it: `"*"`, `"server/tool"`, `"tool"` or `{ server, regex }` with a string regex. */
export const MatcherJson = shapeOf(Schema.NonEmptyString).check(matcherRules)

/** A matcher as written in code: like {@link MatcherJson}, and `regex` may be a RegExp. */
export const MatcherInput = InputShape.check(matcherRules)

/** A matcher as written in a config. */
export type MatcherInput = typeof MatcherInput.Type

const CompiledMatcher = Schema.declare((u: unknown): u is Matcher =>
  typeof u === "object" && u !== null && "restrictTest" in u
)

/**
 * Decodes a matcher as written into a compiled {@link Matcher}, failing as {@link MatcherInput}
 * does; each matcher is parsed once. One way: a compiled matcher is not encoded back.
 */
export const MatcherFromInput = InputShape.pipe(Schema.decodeTo(
  CompiledMatcher,
  SchemaTransformation.transformEffect({
    decode: (input, options) => {
      const matcher = parseMatcher(input)
      return Result.isSuccess(matcher)
        ? Effect.succeed(matcher.success)
        : Effect.fail(new SchemaIssue.InvalidValue({ message: matcher.failure }, input, options))
    },
    encode: (matcher, options) =>
      Effect.fail(new SchemaIssue.Forbidden({ message: "a compiled matcher is not encoded" }, matcher, options))
  })
))

/**
 * What is wrong with a matcher as written, for a config error: what its Schema check said, else
 * parseMatcher's sentence for it (a Schema refuses a wrong shape before the check runs).
 */
export const matcherProblem = (checked: string | undefined, written: unknown): string => {
  if (checked !== undefined) return checked
  const parsed = parseMatcher(written)
  return Result.isFailure(parsed) ? parsed.failure : "regex matcher needs `regex` as a RegExp or a non-empty string"
}
