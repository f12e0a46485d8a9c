/**
 * `npm run bench -- footprint`: the gateway's footprint against bare `node` in the same run, on the
 * built bin (it builds first): its idle RSS with examples/default (and, for reference, from the
 * sources, as `npm start` runs it), and the first tools/list a host gets over 10 stdio servers of
 * two kinds (footprint/bare-server.js, and the echo fixture on @modelcontextprotocol/server).
 * Each goal is printed with its figure and whether it holds. Results go to bench/results/footprint.json.
 */
import { execFileSync } from "node:child_process"
import { cpSync, mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { loadavg } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import {
  bareNodes,
  directListing,
  type FirstListing,
  firstListing,
  type ServerCommand,
  writeConfig
} from "./footprint/first-listing.ts"
import { idleGateway, type Resident } from "./footprint/idle-rss.ts"
import { type CaseResult, median, report, round3 } from "./harness.ts"

const here = dirname(fileURLToPath(import.meta.url))
const root = join(here, "..")
const NODE = join(root, "node_modules", ".bin", "node")
const BIN = join(root, "packages", "gateway", "bin", "interlock.js")
/** The goals: idle RSS with the default example, and the first tools/list over {@link SERVERS} servers. */
const GOALS = { idleRssMb: 100, firstListMs: 300 } as const
/** How many stdio servers the listing cases start. */
const SERVERS = 10
/** How long the gateway idles after its first listing before its RSS is read. */
const IDLE_MS = 5_000
/**
 * Rounds of each case (medians are reported): the memory cases, the listings over bare servers, over the echo fixture.
 */
const ROUNDS = { memory: 3, bare: 5, echo: 3 } as const

/** The user's environment without the source condition or npm's variables (as bench/startup.ts runs the bin). */
const ENV = Object.fromEntries(
  Object.entries(process.env).filter(([key]) => key !== "NODE_OPTIONS" && !/^npm_/i.test(key))
) as Record<string, string>

/** The two kinds of servers the listing is measured over. */
const KINDS: ReadonlyArray<{ readonly name: string; readonly server: ServerCommand; readonly rounds: number }> = [
  {
    name: "bare servers",
    server: { command: NODE, args: [join(here, "footprint", "bare-server.js")] },
    rounds: ROUNDS.bare
  },
  {
    name: "echo fixture servers",
    server: {
      command: NODE,
      args: ["--conditions=@interlock/source", join(root, "packages", "gateway", "test", "fixtures", "echo-server.ts")]
    },
    rounds: ROUNDS.echo
  }
]

const ms = (name: string, value: number, base: number, extra: Record<string, unknown> = {}): CaseResult => ({
  name,
  us: round3(value),
  ratio: round3(value / base),
  unit: "ms",
  ...extra
})

const mb = (
  name: string,
  resident: ReadonlyArray<Resident>,
  base: number,
  extra: Record<string, unknown> = {}
): CaseResult => {
  const rss = median(resident.map((r) => r.rssMb))
  return {
    name,
    us: round3(rss),
    ratio: round3(rss / base),
    unit: "MB",
    anonMb: round3(median(resident.map((r) => r.anonMb))),
    fileMb: round3(median(resident.map((r) => r.fileMb))),
    ...extra
  }
}

const holds = (ok: boolean) => (ok ? "holds" : "does not hold")

/** Idle RSS of the gateway on the built bin and from the sources, with a bare `node` beside each. */
const memoryCases = async (work: string) => {
  const example = join(work, "default")
  cpSync(join(root, "examples", "default"), example, {
    recursive: true,
    filter: (path) => !path.includes(".interlock")
  })
  const config = join(example, "interlock.config.json")
  const runs = { built: [] as Array<Resident>, sources: [] as Array<Resident>, bare: [] as Array<Resident> }
  for (let round = 0; round < ROUNDS.memory; round++) {
    console.log(`  idle RSS, round ${round + 1} of ${ROUNDS.memory}`)
    const built = await idleGateway(NODE, [], BIN, config, example, ENV, IDLE_MS)
    const sources = await idleGateway(NODE, ["--conditions=@interlock/source"], BIN, config, example, ENV, IDLE_MS)
    runs.built.push(built.gateway)
    runs.sources.push(sources.gateway)
    runs.bare.push(built.bare, sources.bare)
  }
  const base = median(runs.bare.map((r) => r.rssMb))
  return {
    base: { name: "idle RSS: node -e setInterval", us: round3(base), unit: "MB" },
    cases: [
      mb("idle RSS: interlock serve, default example (built bin)", runs.built, base, { goalMb: GOALS.idleRssMb }),
      mb("idle RSS: interlock serve, default example (sources, npm start)", runs.sources, base)
    ]
  }
}

/**
 * The first listing over {@link SERVERS} servers of each kind, against the same servers listed directly and bare
 * `node`s.
 */
const listingCases = async (work: string) => {
  const cases: Array<CaseResult> = []
  for (const kind of KINDS) {
    const config = writeConfig(work, kind.server, SERVERS)
    const gateway = { command: NODE, args: [BIN, "serve", "--stdio", "--config", config] }
    const samples = { bare: [] as Array<number>, direct: [] as Array<number>, listed: [] as Array<FirstListing> }
    await firstListing(gateway, SERVERS, ENV, work) // warm-up: the compile cache and the file cache
    for (let round = 0; round < kind.rounds; round++) {
      console.log(`  first tools/list, ${kind.name}, round ${round + 1} of ${kind.rounds}`)
      samples.bare.push(await bareNodes(NODE, SERVERS, ENV))
      samples.direct.push(await directListing(kind.server, SERVERS, ENV))
      samples.listed.push(await firstListing(gateway, SERVERS, ENV, work))
    }
    const bare = median(samples.bare)
    const first = median(samples.listed.map((l) => l.firstMs))
    cases.push(
      ms(`${SERVERS} bare node processes in parallel (${kind.name} round)`, bare, bare),
      ms(`${SERVERS} ${kind.name} started and listed by the host`, median(samples.direct), bare),
      ms(`first tools/list via interlock serve --stdio, ${SERVERS} ${kind.name}`, first, bare, {
        goalMs: GOALS.firstListMs,
        serversInFirst: median(samples.listed.map((l) => l.serversInFirst)),
        completeMs: round3(median(samples.listed.map((l) => l.completeMs))),
        overDirectMs: round3(first - median(samples.direct))
      })
    )
  }
  return cases
}

export default async (): Promise<void> => {
  execFileSync("npm", ["run", "build"], { cwd: root, stdio: "ignore" })
  // Inside the repository (scratch/ is ignored), so that the example's `npx -y` finds the installed servers.
  mkdirSync(join(root, "scratch"), { recursive: true })
  const work = mkdtempSync(join(root, "scratch", "footprint-"))
  try {
    const memory = await memoryCases(work)
    const listings = await listingCases(work)
    const cases = [...memory.cases, ...listings]
    const result = { suite: "footprint", baseline: memory.base, cases, loadAverage: round3(loadavg()[0]) }
    report(result)
    const rss = cases[0].us
    console.log(
      `\n  goal: idle RSS with the default example <= ${GOALS.idleRssMb} MB: ${rss} MB, ${
        holds(rss <= GOALS.idleRssMb)
      }`
    )
    for (const row of cases.filter((c) => c.goalMs !== undefined)) {
      console.log(
        `  goal: ${row.name} <= ${GOALS.firstListMs} ms: ${row.us} ms (${row.serversInFirst} of ${SERVERS} servers; ` +
          `all listed at ${row.completeMs} ms), ${holds(row.us <= GOALS.firstListMs)}`
      )
    }
    console.log(`  load average: ${loadavg().map(round3).join(", ")}`)
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}
