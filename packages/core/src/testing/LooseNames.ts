/**
 * Loose-name variants: other spellings of a name that core's `sameName` and `canonicalName` treat
 * as the same name (case, full width, the separators `-` `.` `_`, default-ignorable characters,
 * surrounding white space), and lookalike spellings (Cyrillic, Greek or Armenian letters) that
 * restricting matchers also select, as Effect Arbitraries for property tests of name matching.
 */
import { Arbitrary, Schema } from "effect"

/** How one character of a name is respelled; see {@link respell}. */
const Spelling = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 5 }))

const SEPARATORS = ["-", ".", "_"]
const IGNORABLES = ["\u200B", "\u00AD"]
const SPACES = ["", " ", "\t", "\u3000"]

const isAsciiLetter = (char: string): boolean => /^[A-Za-z]$/.test(char)
const isAsciiPrintable = (char: string): boolean => char >= "!" && char <= "~"

/** Full-width form of a printable ASCII character (U+FF01..U+FF5E), which NFKC maps back. */
const fullWidth = (char: string): string => String.fromCharCode(char.charCodeAt(0) + 0xFEE0)

/**
 * One character respelled by `spelling`: 0 as is, 1 other case, 2 full width, 3 full width and
 * other case, 4 another separator (a separator) or a default-ignorable before it, 5 the separator
 * after that. Only ASCII is respelled; other characters stay.
 */
const respell = (char: string, spelling: number): string => {
  const index = SEPARATORS.indexOf(char)
  if (index >= 0 && spelling >= 4) return SEPARATORS[(index + spelling - 3) % SEPARATORS.length]
  if (!isAsciiPrintable(char)) return char
  const cased = spelling % 2 === 1 && isAsciiLetter(char)
    ? (char === char.toUpperCase() ? char.toLowerCase() : char.toUpperCase())
    : char
  if (spelling === 2 || spelling === 3) return fullWidth(cased)
  if (spelling >= 4) return IGNORABLES[spelling - 4] + char
  return cased
}

/** The spelling of `name` that `spellings` (one per character, then two for the padding) pick. */
const spell = (name: string, spellings: ReadonlyArray<number>): string => {
  const chars = Array.from(name)
  const body = chars.map((char, i) => respell(char, spellings[i] ?? 0)).join("")
  const pad = (i: number) => SPACES[(spellings[chars.length + i] ?? 0) % SPACES.length]
  return `${pad(0)}${body}${pad(1)}`
}

/** Spellings of `name` that loose comparison treats as `name`, the name itself among them. */
export const looseVariant = (name: string): Arbitrary.Arbitrary<string> => {
  const length = Array.from(name).length + 2
  return Arbitrary.array(Arbitrary.schema(Spelling), { minLength: length, maxLength: length }).pipe(
    Arbitrary.map((spellings) => spell(name, spellings))
  )
}

/** A tool or server name as servers spell them: lower-case ASCII words joined by `_`, `-` or `.`. */
export const toolName: Arbitrary.Arbitrary<string> = Arbitrary.schema(
  Schema.String.check(Schema.isPattern(/^[a-z][a-z0-9]{0,7}(?:[-._][a-z0-9]{1,8}){0,2}$/))
)

/** A tool name and another spelling of it that loose comparison treats as the same name. */
export const looseNamePair: Arbitrary.Arbitrary<readonly [name: string, variant: string]> = toolName.pipe(
  Arbitrary.flatMap((name) => looseVariant(name).pipe(Arbitrary.map((variant) => [name, variant] as const)))
)

/** Latin letters and a Cyrillic, Greek or Armenian letter that looks like each (both cases). */
export const LOOKALIKE_OF: Readonly<Record<string, string>> = {
  a: "\u0430",
  e: "\u0435",
  o: "\u03BF",
  p: "\u0440",
  c: "\u0441",
  y: "\u0443",
  x: "\u03C7",
  s: "\u0455",
  i: "\u0456",
  j: "\u0458",
  h: "\u04BB",
  d: "\u0501",
  q: "\u051B",
  w: "\u051D",
  l: "\u04CF",
  v: "\u03BD",
  u: "\u03C5",
  k: "\u03BA",
  A: "\u0410",
  B: "\u0392",
  C: "\u0421",
  E: "\u0415",
  H: "\u041D",
  I: "\u0406",
  J: "\u0408",
  K: "\u039A",
  M: "\u041C",
  N: "\u039D",
  O: "\u0555",
  P: "\u0420",
  T: "\u0422",
  X: "\u0425",
  Y: "\u03A5",
  S: "\u0405",
  Z: "\u0396"
}

/**
 * Lookalike spellings of `name`: a loose variant of it with some letters swapped for a letter
 * that looks like them (see {@link LOOKALIKE_OF}). Loose comparison keeps them apart from
 * `name`; deny and ask rules, hooks and redactions select them as `name`.
 */
export const lookalikeVariant = (name: string): Arbitrary.Arbitrary<string> =>
  looseVariant(name).pipe(
    Arbitrary.flatMap((variant) => {
      const chars = Array.from(variant)
      return Arbitrary.array(Arbitrary.schema(Schema.Boolean), { minLength: chars.length, maxLength: chars.length })
        .pipe(Arbitrary.map((swaps) => chars.map((char, i) => swaps[i] ? LOOKALIKE_OF[char] ?? char : char).join("")))
    })
  )

/** A tool name and a lookalike spelling of it (which may also be a plain loose variant). */
export const lookalikeNamePair: Arbitrary.Arbitrary<readonly [name: string, variant: string]> = toolName.pipe(
  Arbitrary.flatMap((name) => lookalikeVariant(name).pipe(Arbitrary.map((variant) => [name, variant] as const)))
)
