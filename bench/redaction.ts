/**
 * `npm run bench -- redaction`: every built-in detector, and a user pattern chosen to be
 * pathological for a backtracking engine, against adversarial text (whitespace runs, near-misses,
 * long runs of one letter) at 100 KB and at 1 MB. Matching is RE2 (linear), so the 1 MB time is
 * about ten times the 100 KB time; a quadratic regex would show a ratio near one hundred.
 * Results go to bench/results/redaction.json.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { DETECTOR_NAMES } from "../packages/gateway/src/governance/Detectors.ts"
import { compileRedactions, type Redaction, redactText } from "../packages/gateway/src/governance/Redactor.ts"
import { ADVERSARIAL_INPUTS, PATHOLOGICAL_PATTERN } from "../packages/gateway/test/adversarial.ts"

const compile = (entry: Parameters<typeof compileRedactions>[0][number]): ReadonlyArray<Redaction> => {
  const out = compileRedactions([entry])
  if (!Array.isArray(out)) throw new Error("compile failed")
  return out
}

const millis = (redactions: ReadonlyArray<Redaction>, text: string): number => {
  const samples: Array<number> = []
  for (let round = 0; round < 3; round++) {
    const start = performance.now()
    redactText(text, redactions)
    samples.push(performance.now() - start)
  }
  return samples.sort((a, b) => a - b)[1]
}

export default async (): Promise<void> => {
  const cases = [
    ...DETECTOR_NAMES.map((name) => ({ name, redactions: compile({ detectors: [name] }) })),
    { name: `pattern ${PATHOLOGICAL_PATTERN}`, redactions: compile({ pattern: PATHOLOGICAL_PATTERN }) }
  ]
  const rows: Array<Record<string, unknown>> = []
  for (const { name, redactions } of cases) {
    for (const [input, make] of Object.entries(ADVERSARIAL_INPUTS)) {
      const small = millis(redactions, make(100_000))
      const large = millis(redactions, make(1_000_000))
      rows.push({
        detector: name,
        input,
        ms100k: Number(small.toFixed(2)),
        ms1m: Number(large.toFixed(2)),
        ratio: Number((large / small).toFixed(1))
      })
    }
  }
  console.table(rows)
  const file = join(dirname(fileURLToPath(import.meta.url)), "results", "redaction.json")
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, `${JSON.stringify({ suite: "redaction", cases: rows }, null, 2)}\n`)
}
