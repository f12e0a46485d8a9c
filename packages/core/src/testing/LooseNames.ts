/**
 * Loose-name variants: other spellings of a name that core's `sameName` and `canonicalName` treat
 * as the same name (case, full width, the separators `-` `.` `_`, default-ignorable characters,
 * surrounding white space), as Effect Arbitraries for property tests of rules that match names.
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
