/**
 * The conformance matrix: each server the suite is run against, first directly and then through a
 * gateway in front of it, for each requirement set. The rule it checks: every scenario that
 * passes directly passes through the gateway, and one that fails directly fails no worse. Used by
 * conformance-requirements.ts and by scripts/conformance-table.ts (the gateway README's table).
 */
import { Effect, type Scope } from "effect"
import { spawn } from "node:child_process"
import { createServer } from "node:net"
import * as path from "node:path"
import {
  type RequirementsRun,
  runRequirements,
  runScenario,
  type ScenarioOutcome,
  type SuiteSet
} from "./conformance-suite.ts"
import { everythingServer, NODE, startGateway } from "./e2e.ts"

const FIXTURE = path.join(import.meta.dirname, "fixtures", "conformance-server.ts")
const EVERYTHING = everythingServer.args[0]

/** The sets of scenarios run: the two requirement sets, each at its own wire version, and the 2025-06-18 scenarios. */
export const REVISIONS: ReadonlyArray<SuiteSet> = ["2025-06-18", "2025-11-25", "2026-07-28"]

/** A child process serving Streamable HTTP on 127.0.0.1, killed with the scope. */
const serving = (
  args: ReadonlyArray<string>,
  env: Record<string, string>,
  ready: (line: string) => string | undefined
) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly url: string; readonly kill: () => void }, Error>((resume) => {
      const child = spawn(NODE, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } })
      let seen = ""
      const look = (chunk: Buffer) => {
        seen += chunk.toString()
        const url = ready(seen)
        if (url !== undefined) resume(Effect.succeed({ url, kill: () => void child.kill() }))
      }
      child.stdout.on("data", look)
      child.stderr.on("data", look)
      child.once("error", (error) => resume(Effect.fail(error)))
    }),
    (server) => Effect.sync(server.kill)
  )

/** The project's fixture over HTTP (both eras); it prints `{"port":N}`. */
export const fixtureHttp = (flags: ReadonlyArray<string> = []) =>
  serving([FIXTURE, "--http", "0", ...flags], {}, (seen) => {
    const port = /\{"port":(\d+)\}/.exec(seen)?.[1]
    return port === undefined ? undefined : `http://localhost:${port}/mcp`
  })

/** A port the OS had free a moment ago (server-everything takes its port from PORT and cannot report one it chose). */
const freePort = Effect.callback<number, Error>((resume) => {
  const probe = createServer()
  probe.once("error", (error) => resume(Effect.fail(error)))
  probe.listen(0, "127.0.0.1", () => {
    const address = probe.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    probe.close(() => resume(Effect.succeed(port)))
  })
})

/** `@modelcontextprotocol/server-everything` from npm, on its own Streamable HTTP transport (2025 revisions). */
export const everythingHttp = Effect.flatMap(
  freePort,
  (port) =>
    serving(
      [EVERYTHING, "streamableHttp"],
      { PORT: String(port) },
      (seen) => (seen.includes("listening on port") ? `http://localhost:${port}/mcp` : undefined)
    )
)

/**
 * One way the gateway reaches the server: a label for the table, and its `servers.<id>` config (given the direct URL).
 */
export interface Route {
  readonly label: string
  readonly server: (directUrl: string) => Record<string, unknown>
}

/** A server of the matrix: how to serve it directly, and the routes through a gateway to it. */
export interface MatrixServer {
  readonly id: string
  readonly label: string
  readonly direct: Effect.Effect<{ readonly url: string }, Error, Scope.Scope>
  readonly routes: ReadonlyArray<Route>
}

/** The servers the suite is run against, and how the gateway reaches each. */
export const SERVERS: ReadonlyArray<MatrixServer> = [
  {
    id: "fixture",
    label: "the project's conformance fixture (both eras)",
    direct: fixtureHttp(),
    routes: [
      { label: "stdio, 2026-07-28 toward the server", server: () => ({ command: NODE, args: [FIXTURE] }) },
      {
        label: "HTTP, 2025-11-25 toward the server, per-host",
        server: (url) => ({ url, protocol: "legacy", sessions: "per-host" })
      },
      { label: "HTTP, 2026-07-28 toward the server", server: (url) => ({ url, protocol: "2026-07-28" }) }
    ]
  },
  {
    id: "fixture-no-result-type",
    label: "the fixture with results that lack resultType (as servers on older SDKs send)",
    direct: fixtureHttp(["--omit-result-type"]),
    routes: [{ label: "HTTP, 2026-07-28 toward the server", server: (url) => ({ url }) }]
  },
  {
    id: "server-everything",
    label: "@modelcontextprotocol/server-everything from npm (2025 revisions)",
    direct: everythingHttp,
    routes: [{ label: "stdio", server: () => ({ command: everythingServer.command, args: everythingServer.args }) }]
  }
]

/** A scenario passes: it ran checks and failed none. */
export const passes = (outcome: ScenarioOutcome | undefined): boolean =>
  outcome !== undefined && outcome.failed === 0 && outcome.passed > 0

/** The checks that succeeded in `before` and not (as often) in `after`. */
const lostChecks = (before: ReadonlyArray<string>, after: ReadonlyArray<string>): ReadonlyArray<string> => {
  const left = [...after]
  return before.filter((id) => {
    const at = left.indexOf(id)
    if (at < 0) return true
    left.splice(at, 1)
    return false
  })
}

/**
 * A difference from the direct run that the gateway does not close yet: a check (or `*`, the whole scenario) on a
 * route.
 */
export interface KnownGap {
  readonly scenario: string
  readonly check: string
  readonly revision: SuiteSet
  /** The route's label, or undefined for every route. */
  readonly route?: string | undefined
  readonly why: string
  /** A gap that depends on timing and does not show on every run (the test then does not require it to). */
  readonly sometimes?: boolean
}

/** The route through which a 2026-07-28 host reaches a server spoken to in a 2025 revision. */
const LEGACY_TOWARD_SERVER = "HTTP, 2025-11-25 toward the server, per-host"

/** Why a check of a 2026-07-28 scenario cannot hold when the server speaks 2025-11-25 to the gateway. */
const ERA_BOUND = {
  key:
    "a 2025 server's request has no key of its own: the gateway names a held request's key itself (elicitation-1), " +
    "and the scenario checks for the key the server chose in its 2026-07-28 era (user_name)",
  capability:
    "a 2025 server learns the host's capabilities from its session's initialize (which the gateway declares from " +
    "the host's request), and answers a tool that needs one the host lacks with a tool error: the 2025 wire has " +
    "no -32021 to pass on"
}

/**
 * The differences from the direct run that the gateway does not close yet, each with why; the test
 * holds the matrix to exactly these (each must still show), so a fix must remove its entry.
 */
export const KNOWN_GAPS: ReadonlyArray<KnownGap> = [
  {
    scenario: "server-sse-polling",
    check: "server-sse-disconnect-resume",
    revision: "2025-11-25",
    why: "the fixture's test_reconnection tool closes its own SSE stream mid-call; the gateway's hub resumes that " +
      "stream downstream, and the host's stream to the gateway stays open (the scenario is pending and unscored " +
      "in the 2025-11-25 set)"
  },
  {
    scenario: "input-required-result-basic-elicitation",
    check: "*",
    revision: "2026-07-28",
    route: LEGACY_TOWARD_SERVER,
    why: ERA_BOUND.key
  },
  {
    scenario: "input-required-result-ignore-extra-params",
    check: "sep-2322-ignore-unexpected-params",
    revision: "2026-07-28",
    route: LEGACY_TOWARD_SERVER,
    why:
      `${ERA_BOUND.key}; so answers sent before anything was asked, keyed by the server's 2026-07-28 names, answer ` +
      `nothing, and the call asks`
  },
  ...["sep-2575-server-rejects-undeclared-capability", "sep-2575-missing-capability-http-400"].map((
    check
  ): KnownGap => ({
    scenario: "server-stateless",
    check,
    revision: "2026-07-28",
    route: LEGACY_TOWARD_SERVER,
    why: ERA_BOUND.capability
  })),
  {
    scenario: "server-stateless",
    check: "sep-2575-server-sends-tools-list-changed-on-subscription",
    revision: "2026-07-28",
    route: LEGACY_TOWARD_SERVER,
    sometimes: true,
    why: "the scenario changes the tool list with a tool call, which a 2026-07-28 host's call on a per-host server " +
      "makes on a session of its own; that session closes with the call, and a list_changed it carried after its " +
      "answer is dropped with it, so the listen stream's SHOULD check (1.5 s) sometimes warns"
  },
  ...[
    "tasks-lifecycle",
    "tasks-capability-negotiation",
    "tasks-wire-fields",
    "tasks-request-state-removal",
    "tasks-mrtr-input",
    "tasks-request-headers",
    "tasks-dispatch-and-envelope",
    "tasks-required-task-error",
    "tasks-mrtr-composition"
  ].map((scenario): KnownGap => ({
    scenario,
    check: "*",
    revision: "2026-07-28",
    route: LEGACY_TOWARD_SERVER,
    why:
      "the Tasks extension (SEP-2663) belongs to 2026-07-28: a server the gateway speaks a 2025 revision to offers " +
      "it none (the fixture serves tasks in its 2026-07-28 era only)"
  }))
]

/** The gaps of a scenario in a cell. */
const gapsOf = (scenario: string, revision: SuiteSet | undefined, route: string | undefined) =>
  KNOWN_GAPS.filter((gap) =>
    gap.scenario === scenario && gap.revision === revision && (gap.route === undefined || gap.route === route)
  )

/**
 * Where a run through the gateway is worse than the direct run, scenario by scenario: one that
 * passes directly must pass through, and every check that succeeds directly must succeed through
 * (but the KNOWN_GAPS of the revision: a scenario that fails through only by their checks is theirs).
 */
export const worseThrough = (
  direct: ReadonlyArray<ScenarioOutcome>,
  through: ReadonlyArray<ScenarioOutcome>,
  revision?: SuiteSet,
  route?: string
): ReadonlyArray<string> =>
  direct.flatMap((before) => {
    const after = through.find((outcome) => outcome.scenario === before.scenario)
    if (after === undefined) return [`${before.scenario}: did not run through the gateway`]
    const known = new Set(gapsOf(before.scenario, revision, route).map((gap) => gap.check))
    if (known.has("*")) return []
    const lost = lostChecks(before.succeeded, after.succeeded)
    const unknown = lost.filter((check) => !known.has(check))
    // A scenario that fails through only by known gaps' checks is explained by them.
    if (passes(before) && !passes(after) && (lost.length === 0 || unknown.length > 0)) {
      return [
        `${before.scenario}: passes directly, ${after.passed} passed and ${after.failed} failed through the gateway`
      ]
    }
    return unknown.length === 0
      ? []
      : [
        `${before.scenario}: checks that succeed directly and not through the gateway: ${
          [...new Set(unknown)].join(", ")
        }`
      ]
  })

/** The "Failed Checks" part of a verbose scenario run (its check names and errors), or its tail. */
const failedChecks = (output: string): string => {
  const at = output.indexOf("=== Failed Checks ===")
  return (at < 0 ? output.slice(-1500) : output.slice(at, at + 1500))
}

/** One cell of the matrix: a requirement set run directly and through one route. */
export interface MatrixCell {
  readonly server: MatrixServer
  readonly route: Route
  readonly revision: SuiteSet
  readonly direct: ReadonlyArray<ScenarioOutcome>
  readonly through: ReadonlyArray<ScenarioOutcome>
  readonly output: string
}

/**
 * Runs a server's requirement sets directly, then through a gateway on each of its routes (the gateway fronts the same
 * direct server for HTTP routes).
 */
export const runServer = (server: MatrixServer): Effect.Effect<ReadonlyArray<MatrixCell>, unknown, Scope.Scope> =>
  Effect.gen(function*() {
    const { url } = yield* server.direct
    const cells: Array<MatrixCell> = []
    const directRuns = new Map<SuiteSet, ReadonlyArray<ScenarioOutcome>>()
    for (const revision of REVISIONS) directRuns.set(revision, (yield* runRequirements(url, revision)).outcomes)
    for (const route of server.routes) {
      const outputs = yield* Effect.scoped(Effect.gen(function*() {
        // Resumable streams: server-sse-polling tests the gateway's own HTTP front.
        const { http } = yield* startGateway({
          servers: { [server.id]: route.server(url) },
          policy: { default: "allow" },
          listen: { resumable: true }
        })
        const front = http.mcpUrl.replace("127.0.0.1", "localhost")
        const runs: Array<readonly [SuiteSet, RequirementsRun]> = []
        for (const revision of REVISIONS) {
          const run = yield* runRequirements(front, revision)
          // A scenario worse through the gateway is run again alone and verbosely, for the checks that failed.
          const worse = worseThrough(directRuns.get(revision) ?? [], run.outcomes, revision, route.label).map((line) =>
            line.slice(0, line.indexOf(":"))
          )
          const again = yield* Effect.forEach(worse.slice(0, 4), (scenario) => runScenario(front, revision, scenario))
          const details = again.map((one) => `${one.scenario} alone: ${one.failed} failed\n${failedChecks(one.output)}`)
            .join("\n")
          runs.push([revision, { outcomes: run.outcomes, output: details === "" ? run.output : details }])
        }
        return runs
      }))
      for (const [revision, run] of outputs) {
        cells.push({
          server,
          route,
          revision,
          direct: directRuns.get(revision) ?? [],
          through: run.outcomes,
          output: run.output
        })
      }
    }
    return cells
  })

/** Scenarios passed out of those run, scored and not, as the table shows them. */
export const tally = (outcomes: ReadonlyArray<ScenarioOutcome>, scored: boolean) => {
  const of = outcomes.filter((outcome) => outcome.scored === scored)
  return { passed: of.filter(passes).length, total: of.length }
}

/**
 * One row of the gateway README's conformance table, for a cell: scenarios passed out of those run, directly and
 * through.
 */
export const tableRow = (cell: MatrixCell): string => {
  const cellOf = (outcomes: ReadonlyArray<ScenarioOutcome>, scored: boolean) => {
    const { passed, total } = tally(outcomes, scored)
    return `${passed}/${total}`
  }
  return `| ${cell.server.label} | ${cell.route.label} | ${cell.revision} | ${cellOf(cell.direct, true)} | ${
    cellOf(cell.through, true)
  } | ${cellOf(cell.direct, false)} | ${cellOf(cell.through, false)} |`
}

/** The table's header rows. */
export const TABLE_HEAD = [
  "| server | through the gateway | requirement set | scored, directly | scored, through | not scored, directly | " +
  "not scored, through |",
  "|---|---|---|---|---|---|---|"
]

/** The README markers between which scripts/conformance-table.ts writes the table. */
export const TABLE_MARKERS = {
  start: "<!-- conformance-table:start -->",
  end: "<!-- conformance-table:end -->"
} as const
