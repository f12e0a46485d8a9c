/**
 * The console's chart data: for each minute of a window, how many calls ended with each outcome,
 * and the calls' latency (p50 and p95 in ms). Latency counts only calls that completed: a
 * `pending` row has no duration yet and a `refused` one never ran.
 */
import { type AuditRecord, shownOutcome } from "../audit/GatewayAuditRecord.ts"

/** One minute of the charts. */
export interface SeriesBucket {
  /** Bucket start, epoch ms. */
  readonly start: number
  /** Calls per outcome (only outcomes with at least one call). */
  readonly counts: Readonly<Record<string, number>>
  /** Median latency of the completed calls, ms; null when none completed. */
  readonly p50: number | null
  /** 95th percentile latency of the completed calls, ms; null when none completed. */
  readonly p95: number | null
}

/** The charts' data over a window: one bucket per minute, oldest first, and the outcomes seen. */
export interface Series {
  readonly bucketMs: number
  readonly buckets: ReadonlyArray<SeriesBucket>
  /** The outcomes that occur in the window, sorted (the calls chart's legend). */
  readonly outcomes: ReadonlyArray<string>
}

/** The nearest-rank percentile `p` (0 to 100) of ascending values; null for none. */
export const percentile = (sorted: ReadonlyArray<number>, p: number): number | null =>
  sorted.length === 0
    ? null
    : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]

const NO_LATENCY: ReadonlySet<string> = new Set(["pending", "refused"])

/** The series of `minutes` whole buckets ending with the one holding `now`, from the rows in it. */
export const seriesOf = (rows: ReadonlyArray<AuditRecord>, now: number, minutes: number, bucketMs = 60_000): Series => {
  const first = Math.floor(now / bucketMs) * bucketMs - (minutes - 1) * bucketMs
  const counts = Array.from({ length: minutes }, () => new Map<string, number>())
  const latencies = Array.from({ length: minutes }, (): Array<number> => [])
  const outcomes = new Set<string>()
  for (const row of rows) {
    const index = Math.floor((row.time - first) / bucketMs)
    if (index < 0 || index >= minutes) continue
    const count = counts[index]
    const outcome = shownOutcome(row)
    count.set(outcome, (count.get(outcome) ?? 0) + 1)
    outcomes.add(outcome)
    if (!NO_LATENCY.has(row.outcome)) latencies[index].push(row.durationMs)
  }
  const buckets = counts.map((count, index) => {
    const sorted = latencies[index].sort((a, b) => a - b)
    return {
      start: first + index * bucketMs,
      counts: Object.fromEntries(count),
      p50: percentile(sorted, 50),
      p95: percentile(sorted, 95)
    }
  })
  return { bucketMs, buckets, outcomes: [...outcomes].sort() }
}
