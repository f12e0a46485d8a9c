/**
 * The conformance suite's server requirement sets for one server of the matrix, directly and through the gateway.
 * Each server has its own test file so that the three run side by side.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import * as path from "node:path"
import {
  KNOWN_GAPS,
  type MatrixServer,
  passes,
  REVISIONS,
  runServer,
  SERVERS,
  TABLE_MARKERS,
  tableRow,
  worseThrough
} from "./conformance-matrix.ts"
import { requirementSet, type SuiteSet } from "./conformance-suite.ts"

/** The matrix server of this id. */
export const matrixServer = (id: string): MatrixServer => {
  const server = SERVERS.find((one) => one.id === id)
  if (server === undefined) throw new Error(`no matrix server ${id}`)
  return server
}

/**
 * The scenarios a run of `set` must cover: a requirement set's own list, or (2025-06-18, no requirement set) those the
 * direct run ran.
 */
const scenariosOf = (set: SuiteSet, direct: ReadonlyArray<{ readonly scenario: string }>): Array<string> => {
  if (set === "2025-06-18") return direct.map((outcome) => outcome.scenario)
  const listed = requirementSet(set)
  return [...listed.scored, ...listed.notScored]
}

/** Registers the test that `server` passes through the gateway every scenario it passes directly, in every set. */
export const describeRequirementSets = (server: MatrixServer) =>
  describe("the conformance suite's server requirement sets, directly and through the gateway", () => {
    it.live(
      `${server.label}: every scenario that passes directly passes through the gateway, on every route and in ` +
        `every set`,
      () =>
        Effect.gen(function*() {
          const cells = yield* runServer(server)
          assert.lengthOf(cells, server.routes.length * REVISIONS.length)
          // The gateway README's table shows what was measured here (scripts/conformance-table.ts writes it).
          const readme = readFileSync(path.join(import.meta.dirname, "..", "README.md"), "utf8")
          const table = readme.slice(readme.indexOf(TABLE_MARKERS.start), readme.indexOf(TABLE_MARKERS.end))
          for (const cell of cells) {
            assert.include(
              table.split("\n"),
              tableRow(cell),
              "packages/gateway/README.md's conformance table (run scripts/conformance-table.ts)"
            )
          }
          for (const cell of cells) {
            const where = `${cell.revision}, ${cell.route.label}`
            // Each run covers the whole set: a requirement set's scored scenarios and those it runs unscored.
            assert.sameMembers(
              cell.through.map((outcome) => outcome.scenario),
              scenariosOf(cell.revision, cell.direct),
              `${where}: ${cell.output}`
            )
            const worse = worseThrough(cell.direct, cell.through, cell.revision, cell.route.label)
            assert.deepStrictEqual(worse, [], `${where}: ${worse.join("; ")}\n${cell.output}`)
          }
          for (const revision of REVISIONS) {
            // The direct run covers the whole requirement set too.
            const direct = cells.find((cell) => cell.revision === revision)?.direct ?? []
            assert.isAbove(direct.length, 20, `${revision}: the suite runs its server scenarios`)
            assert.sameMembers(
              direct.map((outcome) => outcome.scenario),
              scenariosOf(revision, direct),
              `${revision}, directly`
            )
            if (server.id === "fixture" || (server.id === "fixture-no-result-type" && revision !== "2026-07-28")) {
              // The fixture alone passes every scenario of both sets, scored and not (tasks-status-notifications runs
              // no check: the suite skips it).
              const failing = direct.filter((outcome) =>
                outcome.failed > 0 || (outcome.passed === 0 && outcome.scenario !== "tasks-status-notifications")
              )
              assert.deepStrictEqual(failing, [], `${server.id} ${revision}, directly`)
            }
            if (server.id === "fixture-no-result-type" && revision === "2026-07-28") {
              // Without resultType a scenario fails at most its wire-schema check (the tasks extension's, several), and
              // most fail it.
              const other = direct.filter((outcome) => outcome.failed > 1 && !outcome.scenario.startsWith("tasks-"))
              assert.deepStrictEqual(other, [], "directly, only the missing resultType fails")
              assert.isAbove(
                direct.filter((outcome) => outcome.failed === 1).length,
                10,
                "complete results lack resultType across the set"
              )
            }
          }
          if (server.id === "fixture") {
            // Each known gap is still there (a fix must remove it from KNOWN_GAPS).
            for (const gap of KNOWN_GAPS.filter((gap) => gap.sometimes !== true)) {
              const shown = cells.some((cell) => {
                if (
                  cell.revision !== gap.revision || (gap.route !== undefined && cell.route.label !== gap.route)
                ) return false
                const before = cell.direct.find((outcome) => outcome.scenario === gap.scenario)
                const after = cell.through.find((outcome) => outcome.scenario === gap.scenario)
                return gap.check === "*"
                  ? passes(before) && !passes(after)
                  : before?.succeeded.includes(gap.check) === true && after?.succeeded.includes(gap.check) === false
              })
              assert.isTrue(shown, `${gap.scenario} ${gap.check}: no longer a gap`)
            }
            // The fixture passes every scored scenario directly, so the gateway passes all of them on every route (but
            // the known gaps).
            for (const cell of cells) {
              const failing = cell.through.filter((outcome) =>
                outcome.scored && !passes(outcome) &&
                // A scenario with known gaps fails through only by them (worseThrough holds the rest of its checks).
                !KNOWN_GAPS.some((gap) =>
                  gap.scenario === outcome.scenario && gap.revision === cell.revision && gap.route === cell.route.label
                )
              )
              assert.deepStrictEqual(
                failing.map((outcome) => outcome.scenario),
                [],
                `${cell.revision}, ${cell.route.label}: ${cell.output}`
              )
            }
          }
        }),
      600_000
    )
  })
