/**
 * The order Vitest starts test files in: longest first, so that no long file starts last while the other
 * workers sit idle. With no earlier run cached (a fresh clone), Vitest's own order is the largest files first,
 * and a three-line file that runs whole conformance requirement sets starts at the very end. Durations come from
 * this machine's last run when Vitest cached one, else from vitest.durations.json (rewritten by
 * `node scripts/test-durations.ts REPORT`), else from the file's size.
 */
import { readFileSync, statSync } from "node:fs"
import * as path from "node:path"
import { BaseSequencer, type TestSpecification } from "vitest/node"

/** Seconds each slow test file took in a full run, by path from the repository root. */
const RECORDED: Readonly<Record<string, number>> = JSON.parse(
  readFileSync(path.join(import.meta.dirname, "vitest.durations.json"), "utf8")
)

/** Longest first (see the header). */
export class LongestFirst extends BaseSequencer {
  override async sort(files: Array<TestSpecification>): Promise<Array<TestSpecification>> {
    const seconds = (spec: TestSpecification): number => {
      const cached = this.ctx.cache.getTestSpecificationResult(spec)?.duration
      if (cached !== undefined) return cached / 1000
      return RECORDED[path.relative(import.meta.dirname, spec.moduleId)] ?? 0
    }
    const keyed = files.map((spec) => ({ spec, seconds: seconds(spec), size: statSync(spec.moduleId).size }))
    keyed.sort((a, b) => b.seconds - a.seconds || b.size - a.size)
    return keyed.map(({ spec }) => spec)
  }
}
