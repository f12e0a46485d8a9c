/**
 * `npm run bench -- startup`: what one run of the built `interlock` bin costs, wall clock, as a user
 * runs it (packages/gateway/bin/interlock.js on dist/, no source condition): `claude-hook` answering
 * one PreToolUse event (denied by a rule, and allowed), `claude-hook --gateway URL` forwarding the
 * event to a gateway this bench starts (`interlock serve` on the same config, with a bearer token),
 * `--help`, and `check` of a config with rules, built-in hooks (redaction, a rate limit) and a
 * SQLite audit store (no servers, so `check` starts none: start-up alone); each against `node -e 0`
 * run in the same rounds, interleaved, on Node 24 (this one) and on Node 22.19 (installed from npm
 * into a temporary folder). It builds first, so the figures are those of the current sources.
 * Results go to bench/results/startup.json and .svg.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { type CaseResult, median, report, round3 } from "./harness.ts"
import { freePort } from "./support/ports.ts"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const BIN = join(root, "packages", "gateway", "bin", "interlock.js")
/** Timed rounds per case; each round runs every case once. */
const ROUNDS = 11
/** The Node the packages promise to run on (`engines.node`). */
const NODE_FLOOR = "22.19.0"

/** The sample config: rules, built-in hooks and a SQLite audit store. */
const CONFIG = {
  servers: {},
  audit: { path: "audit.db" },
  redact: [{ match: "*", pattern: "sk-[A-Za-z0-9]{20,}", replacement: "[REDACTED]" }],
  rateLimits: [{ match: "*", perMinute: 600 }],
  policy: {
    default: "allow",
    rules: [
      { id: "no-fetch", match: "claude/WebFetch", decision: "deny", reason: "no network" },
      {
        id: "no-rm",
        match: "claude/Bash",
        decision: "deny",
        when: { args: { command: { matches: "rm -rf" } } },
        reason: "no rm -rf"
      }
    ]
  }
}

const event = (tool: string, input: Record<string, unknown>) =>
  JSON.stringify({
    session_id: "s1",
    transcript_path: "/t.jsonl",
    cwd: "/",
    permission_mode: "default",
    hook_event_name: "PreToolUse",
    tool_name: tool,
    tool_input: input,
    tool_use_id: "toolu_1"
  })

interface Run {
  readonly name: string
  readonly args: ReadonlyArray<string>
  readonly input?: string
  readonly env?: Record<string, string>
  /** What its stdout must contain, so that a broken run is not timed as a fast one. */
  readonly expect: string
}

/** The bearer token of the bench's gateway (the forwarding client reads it from INTERLOCK_TOKEN). */
const TOKEN = "startup-bench-token-0123456789"

/** The gateway's config: the sample's rules and hooks, on `port`, with one principal. */
const gatewayConfig = (port: number) => ({
  ...CONFIG,
  audit: { path: "gateway-audit.db" },
  listen: { http: `127.0.0.1:${port}`, principals: { bench: { token: "env:INTERLOCK_BENCH_TOKEN" } } }
})

/** `interlock serve` on the gateway config in `cwd`, resolved once it listens. */
const startGateway = (cwd: string): Promise<ChildProcess> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, "serve", "--config", "gateway.json"], {
      cwd,
      env: { ...ENV, INTERLOCK_BENCH_TOKEN: TOKEN },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let out = ""
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8")
      if (out.includes("MCP endpoint")) resolve(child)
    })
    child.once("exit", (code) => reject(new Error(`the gateway exited (${code}) before it listened: ${out}`)))
  })

/** The runs measured, for a gateway on `port`. */
const runsFor = (port: number): ReadonlyArray<Run> => [
  {
    name: "claude-hook (deny)",
    args: [BIN, "claude-hook", "--config", "interlock.config.json"],
    input: event("WebFetch", { url: "https://example.invalid" }),
    expect: "\"deny\""
  },
  {
    name: "claude-hook (allow)",
    args: [BIN, "claude-hook", "--config", "interlock.config.json"],
    input: event("Read", { file_path: "/tmp/x" }),
    expect: "{"
  },
  {
    name: "claude-hook --gateway (deny)",
    args: [BIN, "claude-hook", "--gateway", `http://127.0.0.1:${port}`],
    input: event("WebFetch", { url: "https://example.invalid" }),
    env: { INTERLOCK_TOKEN: TOKEN },
    expect: "\"deny\""
  },
  // The options the bin's header weighs: without V8's compile cache, and the unbundled dist (what a config written as
  // code runs).
  {
    name: "claude-hook (deny, no compile cache)",
    args: [BIN, "claude-hook", "--config", "interlock.config.json"],
    input: event("WebFetch", { url: "https://example.invalid" }),
    env: { NODE_DISABLE_COMPILE_CACHE: "1" },
    expect: "\"deny\""
  },
  {
    name: "claude-hook (deny, code config: unbundled)",
    args: [BIN, "claude-hook", "--config", "interlock.config.js"],
    input: event("WebFetch", { url: "https://example.invalid" }),
    expect: "\"deny\""
  },
  // The filter the bridge pipes a Bash command's output through (its direct path, like claude-hook's).
  {
    name: "redact (Bash output filter)",
    args: [BIN, "redact", "--config", "interlock.config.json", "--tool", "claude/Bash"],
    input: `key=sk-${"a".repeat(24)}\n`,
    expect: "key=[REDACTED]"
  },
  { name: "--help", args: [BIN, "--help"], expect: "claude-hook" },
  { name: "check", args: [BIN, "check", "--config", "interlock.config.json"], expect: "Config OK" }
]
const BASELINE: Run = { name: "node -e 0", args: ["-e", "0"], expect: "" }

/** The user's environment without the source condition or npm's variables. */
const ENV = Object.fromEntries(
  Object.entries(process.env).filter(([key]) => key !== "NODE_OPTIONS" && !/^npm_/i.test(key))
)

/**
 * Milliseconds of one run in `cwd`, wall clock; fails when it does not answer as expected. The hook's code caches go
 * beside `cwd` (XDG_CACHE_HOME), not to the user's: the warm-up and the first rounds make them.
 */
const time = (node: string, run: Run, cwd: string): number => {
  const start = performance.now()
  const result = spawnSync(node, run.args, {
    cwd,
    env: { ...ENV, XDG_CACHE_HOME: join(cwd, "..", "cache"), ...run.env },
    input: run.input ?? "",
    encoding: "utf8"
  })
  const ms = performance.now() - start
  if (!result.stdout.includes(run.expect)) {
    throw new Error(`${run.name} answered ${JSON.stringify(result.stdout)} ${result.stderr}`)
  }
  return ms
}

/** Medians of every run against the baseline on one Node, interleaved round by round. */
const measureOn = (label: string, node: string, cwd: string, runs: ReadonlyArray<Run>): ReadonlyArray<CaseResult> => {
  const all = [BASELINE, ...runs]
  for (const run of all) time(node, run, cwd) // warm-up: the compile cache and the file cache
  const samples = all.map(() => [] as Array<number>)
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, run] of all.entries()) samples[i].push(time(node, run, cwd))
  }
  const base = median(samples[0])
  return all.map((run, i) => ({
    name: `${run.name} · ${label}`,
    us: round3(median(samples[i]) * 1000),
    ratio: round3(median(samples[i]) / base),
    ms: round3(median(samples[i]))
  }))
}

/** A Node 22.19 binary, installed from npm (its cache first) into `dir`. */
const installNode22 = (dir: string): string => {
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "startup-bench-node", private: true, allowScripts: { node: true } })
  )
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", `node@${NODE_FLOOR}`], {
    cwd: dir,
    stdio: "ignore"
  })
  return join(dir, "node_modules", ".bin", "node")
}

export default async (): Promise<void> => {
  execFileSync("npm", ["run", "build"], { cwd: root, stdio: "ignore" })
  const work = mkdtempSync(join(tmpdir(), "interlock-startup-"))
  try {
    const app = join(work, "app")
    mkdirSync(app)
    writeFileSync(join(app, "interlock.config.json"), JSON.stringify(CONFIG))
    writeFileSync(join(app, "interlock.config.js"), `export default ${JSON.stringify(CONFIG)}\n`)
    const port = await freePort()
    writeFileSync(join(app, "gateway.json"), JSON.stringify(gatewayConfig(port)))
    const node22 = installNode22(work)
    // The gateway runs on this Node throughout; only the clients change Node.
    const gateway = await startGateway(app)
    let on24: ReadonlyArray<CaseResult>, on22: ReadonlyArray<CaseResult>
    try {
      on24 = measureOn(`Node ${process.versions.node}`, process.execPath, app, runsFor(port))
      on22 = measureOn(`Node ${NODE_FLOOR}`, node22, app, runsFor(port))
    } finally {
      await new Promise((resolve) => {
        gateway.once("exit", resolve)
        gateway.kill()
      })
    }
    // One baseline row for the chart and the table (Node 24's); each case's ratio is to its own Node's.
    const [base24, ...cases24] = on24
    const [base22, ...cases22] = on22
    const result = {
      suite: "startup",
      baseline: { name: base24.name, us: base24.us },
      cases: [...cases24, { ...base22 }, ...cases22],
      rounds: ROUNDS,
      config: CONFIG
    }
    report(result)
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}
