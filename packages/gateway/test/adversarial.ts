/** Adversarial texts for the redaction regexes: what made backtracking detectors quadratic, at any length. */

/** A user pattern that a backtracking engine takes exponential or quadratic time on. */
export const PATHOLOGICAL_PATTERN = "(a+)+b|\\s+\\s+x"

const repeat = (unit: string, length: number): string => unit.repeat(Math.ceil(length / unit.length)).slice(0, length)

/** Each adversarial input by name, built at a given length (UTF-16 code units). */
export const ADVERSARIAL_INPUTS: Record<string, (length: number) => string> = {
  spaces: (length) => repeat(" ", length),
  "bearer then spaces": (length) => `bearer${repeat(" ", length - 6)}`,
  "aws key then spaces": (length) => `aws secret key =${repeat(" ", length - 16)}`,
  "near misses": (length) =>
    repeat("aws_secret=AKIA1234 bearer x ghp_abc sk-1 eyJa.eyJb. -----BEGIN PRIVATE KEY----- ", length),
  letters: (length) => repeat("a", length)
}
