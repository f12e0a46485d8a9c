/**
 * `npm run bench -- soak [--clients=N] [--seconds=T] [--rounds=R] [--idle=S] [--calls-per-session=C]
 * [--snapshots=DIR]`: hosts on the SDK's Streamable HTTP client load `interlock serve` (the policy,
 * redaction and SQLite audit of bench/gateway.ts's headline case) in rounds, then leave it idle; the
 * gateway's RSS and heap after a forced GC are reported per phase. With `--snapshots` it also writes
 * heap snapshots and prints what grew, by constructor.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { type ChildProcess, spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"
import { FULL_POLICY } from "./gateway.ts"
import { census, type CensusChange, censusChanges } from "./soak/census.ts"
import type { ProbeRequest } from "./soak/probe.ts"
import { freePort, waitForPort } from "./support/ports.ts"

const here = dirname(fileURLToPath(import.meta.url))
const root = join(here, "..")
const NODE = join(root, "node_modules", ".bin", "node")
const ECHO = join(root, "packages", "gateway", "test", "fixtures", "echo-server.ts")
const INTERLOCK = join(root, "packages", "gateway", "bin", "interlock.ts")
const PROBE = join(here, "soak", "probe.ts")

/** The suite's options, from `npm run bench -- soak --name=value`. */
const options = () => {
  const { values } = parseArgs({
    args: process.argv.slice(2).filter((arg) => arg.startsWith("--")),
    options: Object.fromEntries(
      ["clients", "seconds", "rounds", "idle", "calls-per-session", "snapshots"].map((name) => [name, {
        type: "string"
      }])
    ),
    strict: false
  })
  const number = (name: string, fallback: number) => {
    const text = values[name]
    if (text === undefined) return fallback
    const value = Number(text)
    if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} takes a whole number above 0, not ${text}`)
    return value
  }
  return {
    clients: number("clients", 8),
    seconds: number("seconds", 8),
    rounds: number("rounds", 2),
    idleSeconds: number("idle", 5),
    callsPerSession: number("calls-per-session", 200),
    snapshots: typeof values.snapshots === "string" ? values.snapshots : undefined
  }
}

/** The gateway's memory in one phase (bytes), as process.memoryUsage() gives it. */
interface Memory {
  readonly rss: number
  readonly heapUsed: number
  readonly heapTotal: number
  readonly external: number
  readonly arrayBuffers: number
  readonly RssAnon?: number
  readonly RssFile?: number
  readonly RssShmem?: number
  /** Physical bytes of each V8 heap space. */
  readonly spaces: Record<string, number>
}

/** The gateway with the probe loaded: its URL, and its memory after a forced GC or a heap snapshot on request. */
const startGateway = async () => {
  const dir = mkdtempSync(join(tmpdir(), "interlock-soak-"))
  const port = await freePort()
  const config = join(dir, "interlock.config.json")
  writeFileSync(
    config,
    JSON.stringify({
      servers: { echo: { command: NODE, args: [ECHO] } },
      ...FULL_POLICY,
      audit: { path: join(dir, "audit.db"), capture: "metadata" },
      listen: { http: `127.0.0.1:${port}` }
    })
  )
  const child: ChildProcess = spawn(
    NODE,
    ["--expose-gc", "--import", PROBE, INTERLOCK, "serve", "--config", config],
    { stdio: ["ignore", "ignore", "ignore", "ipc"] }
  )
  const ask = <A>(request: ProbeRequest): Promise<A> =>
    new Promise((resolve) => {
      child.once("message", (answer) => resolve(answer as A))
      child.send(request)
    })
  await waitForPort(port, child)
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    memory: () => ask<Memory>({ kind: "memory" }),
    snapshot: (path: string) =>
      ask<{ readonly path: string }>({ kind: "snapshot", path }).then((answer) => answer.path),
    stop: async () => {
      child.kill("SIGTERM")
      await new Promise((resolve) => child.exitCode === null ? child.once("exit", resolve) : resolve(undefined))
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

/** Calls and sessions the hosts made. */
interface Work {
  calls: number
  sessions: number
}

/**
 * One host until the deadline: sessions of `callsPerSession` calls each (a listing, echo calls and a
 * call the policy denies), each ended with DELETE as a host that is done does. Odd hosts speak
 * 2026-07-28, even ones 2025-11-25.
 */
const host = async (url: string, modern: boolean, deadline: number, callsPerSession: number, work: Work) => {
  while (performance.now() < deadline) {
    const transport = new StreamableHTTPClientTransport(new URL(url))
    const client = new Client(
      { name: "soak-host", version: "1.0.0" },
      modern ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {}
    )
    await client.connect(transport)
    work.sessions++
    await client.listTools()
    const denied = await client.callTool({ name: "crash", arguments: {} }).catch((error: unknown) => error)
    if (!(denied instanceof Error) && (denied as { isError?: boolean }).isError !== true) {
      throw new Error("the gateway let a denied call through")
    }
    for (let i = 0; i < callsPerSession && performance.now() < deadline; i++) {
      const text = `soak ${work.calls}`
      const result = await client.callTool({ name: "echo", arguments: { text } })
      if ((result.content as Array<{ text?: string }>)[0]?.text !== text) throw new Error("no echo")
      work.calls++
    }
    await transport.terminateSession()
    await client.close()
  }
}

const mb = (bytes: number) => Math.round(bytes / 1024 / 10.24) / 100

/** A phase as reported: megabytes, two decimals. */
const phase = (name: string, memory: Memory) => ({
  name,
  rssMb: mb(memory.rss),
  heapUsedMb: mb(memory.heapUsed),
  heapTotalMb: mb(memory.heapTotal),
  externalMb: mb(memory.external),
  arrayBuffersMb: mb(memory.arrayBuffers),
  rssAnonMb: mb(memory.RssAnon ?? 0),
  rssFileMb: mb(memory.RssFile ?? 0),
  rssShmemMb: mb(memory.RssShmem ?? 0),
  newSpaceMb: mb(memory.spaces.new_space ?? 0),
  codeSpaceMb: mb(memory.spaces.code_space ?? 0)
})

const printChanges = (title: string, changes: ReadonlyArray<CensusChange>) => {
  console.log(`  ${title}`)
  for (const change of changes.slice(0, 15)) {
    console.log(
      `    ${change.name.slice(0, 60).padEnd(60)} ${String(change.count).padStart(8)} objects ${
        String(Math.round(change.bytes / 1024)).padStart(8)
      } KiB`
    )
  }
}

export default async function run(): Promise<void> {
  const settings = options()
  const gateway = await startGateway()
  const work: Work = { calls: 0, sessions: 0 }
  const snapshots: Array<{ readonly name: string; readonly path: string }> = []
  const snapshot = async (name: string) => {
    if (settings.snapshots === undefined) return
    mkdirSync(settings.snapshots, { recursive: true })
    snapshots.push({ name, path: await gateway.snapshot(join(settings.snapshots, `soak-${name}.heapsnapshot`)) })
  }
  try {
    // A short warm-up of both eras, so that the start figure holds the gateway's compiled code and caches.
    await Promise.all([false, true].map((modern) => host(gateway.url, modern, performance.now() + 1_000, 50, work)))
    const phases = [phase("started", await gateway.memory())]
    await snapshot("started")
    const perRound: Array<Work> = []
    for (let round = 1; round <= settings.rounds; round++) {
      const mine: Work = { calls: 0, sessions: 0 }
      const deadline = performance.now() + settings.seconds * 1_000
      await Promise.all(
        Array.from(
          { length: settings.clients },
          (_, i) => host(gateway.url, i % 2 === 1, deadline, settings.callsPerSession, mine)
        )
      )
      perRound.push(mine)
      phases.push(phase(`after round ${round}`, await gateway.memory()))
      if (round === 1) await snapshot("round-1")
    }
    await new Promise((resolve) => setTimeout(resolve, settings.idleSeconds * 1_000))
    phases.push(phase(`after ${settings.idleSeconds} s idle`, await gateway.memory()))
    await snapshot("idle")
    const [started, first] = phases
    const last = phases[phases.length - 1]
    const result = {
      suite: "soak",
      ...settings,
      snapshots: undefined,
      rounds: perRound.map((round, i) => ({ round: i + 1, ...round })),
      phases,
      growthMb: {
        rss: Math.round((last.rssMb - started.rssMb) * 100) / 100,
        heapUsed: Math.round((last.heapUsedMb - started.heapUsedMb) * 100) / 100,
        heapUsedAfterFirstRound: Math.round((last.heapUsedMb - first.heapUsedMb) * 100) / 100
      }
    }
    console.log(
      `\nsoak: ${settings.clients} clients, ${settings.rounds} x ${settings.seconds} s, ${
        perRound.map((round) => `${round.calls} calls in ${round.sessions} sessions`).join(", then ")
      }`
    )
    for (const row of phases) {
      const figure = (value: number) => value.toFixed(1).padStart(6)
      console.log(
        `  ${row.name.padEnd(17)} rss ${figure(row.rssMb)} (anon ${figure(row.rssAnonMb)}, file ${
          figure(row.rssFileMb)
        }, shmem ${figure(row.rssShmemMb)})  heap ${figure(row.heapUsedMb)} used of ${
          figure(row.heapTotalMb)
        }  external ${figure(row.externalMb)}`
      )
    }
    console.log(`  (MB, after a forced GC) growth: ${JSON.stringify(result.growthMb)}`)
    if (snapshots.length === 3) {
      const [start, round1, idle] = snapshots.map((entry) => census(entry.path))
      printChanges("retained, idle vs started:", censusChanges(start, idle))
      printChanges("retained, idle vs after round 1:", censusChanges(round1, idle))
    }
    const resultsDir = join(here, "results")
    mkdirSync(resultsDir, { recursive: true })
    writeFileSync(join(resultsDir, "soak.json"), `${JSON.stringify(result, null, 2)}\n`)
  } finally {
    await gateway.stop()
  }
}
