/**
 * The benchmark harness: every suite measures its cases against a baseline run in the same
 * process, interleaving them round by round so that drift hits all cases alike, and reports
 * medians. Results go to bench/results/<suite>.json and a bar chart to bench/results/<suite>.svg.
 */
import { Context, Effect, Layer, type Scope } from "effect"
import { mkdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

/** One case: an Effect or a Promise-returning function performing one operation. */
export type BenchCase =
  | { readonly name: string; readonly effect: Effect.Effect<unknown, unknown>; readonly iterations?: number }
  | { readonly name: string; readonly op: () => Promise<unknown>; readonly iterations?: number }

/**
 * A case's result: microseconds per operation (or its figure in `unit`, when it names one) and the ratio to the
 * baseline.
 */
export interface CaseResult {
  readonly name: string
  readonly us: number
  /** What `us` is counted in, when not microseconds per operation: "ms", "MB". */
  readonly unit?: string
  readonly ratio: number
  readonly [extra: string]: unknown
}

/** A suite's result, as written to bench/results/<suite>.json. */
export interface SuiteResult {
  readonly suite: string
  readonly baseline: {
    readonly name: string
    readonly us: number
    readonly unit?: string
    readonly [extra: string]: unknown
  }
  readonly cases: ReadonlyArray<CaseResult>
  /** With `--runs=N`: how many runs the figures are medians of, and the load average after each. */
  readonly runs?: number
  readonly loadAverages?: ReadonlyArray<number>
}

/** The median of some samples. */
export const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/** Microseconds per operation for one timed batch. */
const timeBatch = async (bench: BenchCase, iterations: number): Promise<number> => {
  if ("effect" in bench) {
    const effect = bench.effect
    const loop = Effect.gen(function*() {
      for (let i = 0; i < iterations; i++) yield* effect
    })
    const start = performance.now()
    await Effect.runPromise(loop)
    return ((performance.now() - start) * 1000) / iterations
  }
  const start = performance.now()
  for (let i = 0; i < iterations; i++) await bench.op()
  return ((performance.now() - start) * 1000) / iterations
}

/** Options of {@link measure}. */
export interface MeasureOptions {
  /** Timed rounds per case (the median is reported); default 9. */
  readonly rounds?: number
  /** Operations per round unless a case sets its own; default 2,000. */
  readonly iterations?: number
}

/** Measures the baseline and the cases, interleaved, and returns medians with ratios. */
export const measure = async (
  suite: string,
  baseline: BenchCase,
  cases: ReadonlyArray<BenchCase>,
  options: MeasureOptions = {}
): Promise<SuiteResult> => {
  const rounds = options.rounds ?? 9
  const all = [baseline, ...cases]
  const samples = all.map(() => [] as Array<number>)
  for (const bench of all) await timeBatch(bench, Math.ceil((bench.iterations ?? options.iterations ?? 2_000) / 4))
  for (let round = 0; round < rounds; round++) {
    for (const [i, bench] of all.entries()) {
      samples[i].push(await timeBatch(bench, bench.iterations ?? options.iterations ?? 2_000))
    }
  }
  const baseUs = median(samples[0])
  return {
    suite,
    baseline: { name: baseline.name, us: round3(baseUs) },
    cases: cases.map((bench, i) => ({
      name: bench.name,
      us: round3(median(samples[i + 1])),
      ratio: round3(median(samples[i + 1]) / baseUs)
    }))
  }
}

/** A numeric field's median over runs, with the extremes. */
export interface Spread {
  readonly min: number
  readonly median: number
  readonly max: number
}

/** The spread of `values`. */
export const spreadOf = (values: ReadonlyArray<number>): Spread => ({
  min: round3(Math.min(...values)),
  median: round3(median(values)),
  max: round3(Math.max(...values))
})

/**
 * Several runs of one suite as one result: every numeric field of the baseline and of each case is
 * the median over the runs, and each case's `spread` holds its ratio's min, median and max.
 * `loads` is the one-minute load average at the end of each run.
 */
export const combineRuns = (runs: ReadonlyArray<SuiteResult>, loads: ReadonlyArray<number>): SuiteResult => {
  const [first] = runs
  const medianFields = (rows: ReadonlyArray<Record<string, unknown>>): Record<string, unknown> =>
    Object.fromEntries(
      Object.entries(rows[0]).map(([key, value]) =>
        typeof value === "number"
          ? [key, round3(median(rows.map((row) => (typeof row[key] === "number" ? row[key] : value))))]
          : [key, value]
      )
    )
  const casesNamed = (name: string) => runs.flatMap((run) => run.cases.filter((c) => c.name === name))
  return {
    ...first,
    baseline: medianFields(runs.map((run) => run.baseline)) as SuiteResult["baseline"],
    cases: first.cases.map((c) => {
      const all = casesNamed(c.name)
      return { ...(medianFields(all) as CaseResult), spread: spreadOf(all.map((one) => one.ratio)) }
    }),
    runs: runs.length,
    loadAverages: loads.map(round3)
  }
}

/** Rounds to three decimals, as every reported figure is. */
export const round3 = (n: number): number => Math.round(n * 1000) / 1000

/** Builds `layer` into `scope` (kept open while the suite runs; the caller closes it) and returns its service. */
export const serviceOf = <I, S, E>(
  layer: Layer.Layer<I, E>,
  service: Context.Key<I, S>,
  scope: Scope.Scope
): Effect.Effect<S, E> => Effect.map(Layer.buildWithScope(layer, scope), (context) => Context.get(context, service))

const resultsDir = join(dirname(fileURLToPath(import.meta.url)), "results")

/** The unit a row's figure is shown in: its own, else µs. */
const unitOf = (row: { readonly unit?: string }): string => row.unit ?? "µs"

/** The quantity a unit measures (its first word): bars of one quantity share a scale. */
const quantityOf = (row: { readonly unit?: string }): string => unitOf(row).split(" ")[0]

/** Renders a horizontal bar chart (µs per operation, or each row's unit; baseline first) as SVG. */
export const renderSvg = (result: SuiteResult): string => {
  const rows = [
    { name: `${result.baseline.name} (baseline)`, us: result.baseline.us, ratio: 1, unit: result.baseline.unit },
    ...result.cases
  ]
  const maxOf = (row: { readonly unit?: string }) =>
    Math.max(...rows.filter((other) => quantityOf(other) === quantityOf(row)).map((other) => other.us), 1e-9)
  const width = 760
  const label = 260
  const barMax = width - label - 150
  const rowHeight = 26
  const height = 50 + rows.length * rowHeight
  const escapeXml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;")
  const bars = rows.map((row, i) => {
    const y = 40 + i * rowHeight
    const w = Math.max(1, (row.us / maxOf(row)) * barMax)
    return `<text x="${label - 8}" y="${y + 14}" text-anchor="end">${escapeXml(row.name)}</text>` +
      `<rect x="${label}" y="${y}" width="${w.toFixed(1)}" height="18" fill="${i === 0 ? "#888" : "#3b6fd4"}"/>` +
      `<text x="${label + w + 6}" y="${y + 14}">${row.us.toFixed(2)} ${unitOf(row)} · ${row.ratio.toFixed(2)}x</text>`
  })
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" ` +
    `font-size="12">` +
    `<rect width="100%" height="100%" fill="white"/>` +
    `<text x="10" y="22" font-size="15" font-weight="bold">${escapeXml(result.suite)}: ${
      result.baseline.unit === undefined ? "µs per operation" : "each figure"
    } (ratio to baseline)</text>` +
    bars.join("") + `</svg>\n`
}

/**
 * Prints the table (with each ratio's spread over runs, when combined) and writes bench/results/<suite>.json and .svg.
 */
export const report = (result: SuiteResult): void => {
  const rows = [
    { name: result.baseline.name, us: result.baseline.us, ratio: 1, unit: result.baseline.unit },
    ...result.cases
  ]
  const width = Math.max(...rows.map((row) => row.name.length))
  console.log(`\n${result.suite}`)
  for (const row of rows) {
    const spread = "spread" in row ? (row.spread as Spread) : undefined
    const range = spread === undefined ? "" : `  (${spread.min.toFixed(3)}–${spread.max.toFixed(3)})`
    console.log(
      `  ${row.name.padEnd(width)}  ${row.us.toFixed(3).padStart(10)} ${unitOf(row)}  ${
        row.ratio.toFixed(3).padStart(8)
      }x${range}`
    )
  }
  if (result.loadAverages !== undefined) {
    console.log(`  medians of ${result.runs} runs; load average after each: ${result.loadAverages.join(", ")}`)
  }
  mkdirSync(resultsDir, { recursive: true })
  writeFileSync(join(resultsDir, `${result.suite}.json`), `${JSON.stringify(result, null, 2)}\n`)
  writeFileSync(join(resultsDir, `${result.suite}.svg`), renderSvg(result))
}
