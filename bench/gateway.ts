/**
 * `npm run bench -- gateway`: a host client calls an echo tool directly over stdio (the baseline),
 * through `interlock serve` (policy, redaction, SQLite audit) over HTTP and stdio, through mcp-proxy,
 * and in setups that break down the gateway's cost (SETUPS below): sequential latency, per-call
 * p50/p99 and serving CPU, then throughput with 32 clients. `BENCH_CASES=a,b` runs some cases only;
 * `BENCH_GATEWAY_NODE_FLAGS` passes node flags (e.g. `--cpu-prof`) to the gateway processes.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { type CaseResult, measure, report } from "./harness.ts"
import { freePort, waitForPort } from "./support/ports.ts"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const NODE = join(root, "node_modules", ".bin", "node")
const ECHO = join(root, "packages", "gateway", "test", "fixtures", "echo-server.ts")
const INTERLOCK = join(root, "packages", "gateway", "bin", "interlock.ts")
const ECHO_FLOORS = join(root, "bench", "support", "echo-floors.ts")
const CLIENTS = 32
const CALLS_PER_CLIENT = 100
/** Extra node flags for the gateway processes, e.g. `BENCH_GATEWAY_NODE_FLAGS=--cpu-prof`. */
const GATEWAY_FLAGS = (process.env.BENCH_GATEWAY_NODE_FLAGS ?? "").split(" ").filter((flag) => flag.length > 0)

const stdioClient = async (command: string, args: ReadonlyArray<string>): Promise<Client> => {
  const client = new Client({ name: "bench-host", version: "1.0.0" })
  await client.connect(new StdioClientTransport({ command, args: [...args] }))
  return client
}

/** An SDK client over Streamable HTTP; with `era` it speaks that protocol revision only. */
const httpClient = async (url: string, token?: string, era?: "2026-07-28"): Promise<Client> => {
  const client = new Client(
    { name: "bench-host", version: "1.0.0" },
    era === undefined ? {} : { versionNegotiation: { mode: { pin: era } } }
  )
  await client.connect(
    new StreamableHTTPClientTransport(
      new URL(url),
      token === undefined ? {} : { requestInit: { headers: { authorization: `Bearer ${token}` } } }
    )
  )
  return client
}

/** One way of reaching the echo tool: how to open a client, and how to stop what serves it. */
interface Setup {
  readonly connect: () => Promise<Client>
  readonly stop: () => void
  /** The process serving the first client (its CPU time, with its children's, is what the case costs). */
  readonly pid?: (client: Client) => number | undefined
}

const httpSetup = async (port: number, child: ChildProcess, token?: () => Promise<string>): Promise<Setup> => {
  await waitForPort(port, child)
  const url = `http://127.0.0.1:${port}/mcp`
  return {
    connect: async () => httpClient(url, await token?.()),
    stop: () => child.kill("SIGTERM"),
    pid: () => child.pid
  }
}

const stdioPid = (client: Client): number | undefined =>
  (client.transport as StdioClientTransport | undefined)?.pid ?? undefined

/** CPU time (µs) a process and its descendants have used so far: every thread's, from /proc (0 where there is none). */
const cpuMicros = (pid: number): number => {
  try {
    let total = 0
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      total += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]) / 1000
    }
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter((id) =>
      id.length > 0
    )
    return total + children.reduce((sum, id) => sum + cpuMicros(Number(id)), 0)
  } catch {
    return 0
  }
}

/** The policy and redaction of the interlock-gateway case (bench/audit.ts measures its audit with them). */
export const FULL_POLICY = {
  policy: {
    default: "deny",
    rules: [
      { id: "no-crash", match: "echo/crash", decision: "deny" },
      { id: "writes", match: "echo/write_*", decision: "ask" },
      { id: "slow-inside", match: "echo/slow", decision: "deny", when: { args: { ms: { in: [0] } } } },
      { id: "echo", match: "echo/echo", decision: "allow" }
    ]
  },
  redact: [{ detectors: "all" }]
}

/** The gateways' config and audit directories, removed when the run ends. */
const tempDirs: Array<string> = []

/**
 * Options of a gateway case: `policy` false means default allow, no rules, no redaction; `oauth` an issuer whose tokens
 * it takes.
 */
interface GatewayOptions {
  readonly policy: boolean
  readonly audit: boolean
  readonly oauth?: string
}

/** Writes a gateway config over the echo server. */
const gatewayConfig = (port: number, options: GatewayOptions): string => {
  const dir = mkdtempSync(join(tmpdir(), "interlock-bench-"))
  tempDirs.push(dir)
  const config = join(dir, "interlock.config.json")
  writeFileSync(
    config,
    JSON.stringify({
      servers: { echo: { command: NODE, args: [ECHO] } },
      ...(options.policy ? FULL_POLICY : { policy: { default: "allow", rules: [] } }),
      audit: options.audit ? { path: join(dir, "audit.db"), capture: "metadata" } : { enabled: false },
      listen: {
        http: `127.0.0.1:${port}`,
        ...(options.oauth === undefined ? {} : { oauth: { issuer: options.oauth } })
      }
    })
  )
  return config
}

const gatewayHttp =
  (options: { readonly policy: boolean; readonly audit: boolean; readonly era?: "2026-07-28" }) =>
  async (): Promise<Setup> => {
    const port = await freePort()
    const child = spawn(NODE, [...GATEWAY_FLAGS, INTERLOCK, "serve", "--config", gatewayConfig(port, options)], {
      stdio: "ignore"
    })
    const setup = await httpSetup(port, child)
    return options.era === undefined
      ? setup
      : { ...setup, connect: () => httpClient(`http://127.0.0.1:${port}/mcp`, undefined, options.era) }
  }

/**
 * An issuer on loopback for `gateway-oauth`: OpenID metadata and an RS256 key set; it signs an hour-long token for an
 * audience.
 */
const benchIssuer = async () => {
  const { exportJWK, generateKeyPair, SignJWT } = await import("jose")
  const { createServer: createHttpServer } = await import("node:http")
  const { privateKey, publicKey } = await generateKeyPair("RS256")
  const jwk = { ...(await exportJWK(publicKey)), kid: "bench", alg: "RS256", use: "sig" }
  const port = await freePort()
  const issuer = `http://127.0.0.1:${port}`
  const server = createHttpServer((req, res) => {
    const body = req.url === "/.well-known/openid-configuration"
      ? { issuer, jwks_uri: `${issuer}/jwks` }
      : req.url === "/jwks"
      ? { keys: [jwk] }
      : undefined
    res.writeHead(body === undefined ? 404 : 200, { "content-type": "application/json" }).end(
      JSON.stringify(body ?? {})
    )
  }).listen(port, "127.0.0.1")
  const token = (audience: string) =>
    new SignJWT({ scope: "mcp:tools" }).setProtectedHeader({ alg: "RS256", kid: "bench" }).setIssuer(issuer)
      .setAudience(audience).setSubject("bench-host")
      .setIssuedAt().setExpirationTime("1h").sign(privateKey)
  return { issuer, token, stop: () => server.close() }
}

const gatewayOAuth = async (): Promise<Setup> => {
  const issuer = await benchIssuer()
  const port = await freePort()
  const child = spawn(NODE, [
    ...GATEWAY_FLAGS,
    INTERLOCK,
    "serve",
    "--config",
    gatewayConfig(port, { policy: true, audit: true, oauth: issuer.issuer })
  ], { stdio: "ignore" })
  const setup = await httpSetup(port, child, () => issuer.token(`http://127.0.0.1:${port}/mcp`))
  return {
    ...setup,
    stop: () => {
      setup.stop()
      issuer.stop()
    }
  }
}

/** The echo tool alone behind HTTP, on the SDK's transport or on the gateway's. */
const echoHttp =
  (transport: "sdk" | "interlock" | "sdk-web-effect" | "interlock-effect") => async (): Promise<Setup> => {
    const port = await freePort()
    return httpSetup(
      port,
      spawn(NODE, [ECHO_FLOORS, String(port), transport], { stdio: "ignore" })
    )
  }

const SETUPS: Record<string, () => Promise<Setup>> = {
  "interlock-gateway": gatewayHttp({ policy: true, audit: true }),
  "gateway-2026-07-28": gatewayHttp({ policy: true, audit: true, era: "2026-07-28" }),
  "mcp-proxy": async () => {
    const port = await freePort()
    const bin = join(root, "node_modules", "mcp-proxy", "dist", "bin", "mcp-proxy.mjs")
    return httpSetup(
      port,
      spawn(NODE, [bin, "--port", String(port), "--host", "127.0.0.1", "--server", "stream", "--", NODE, ECHO], {
        stdio: "ignore"
      })
    )
  },
  "sdk-http-echo": echoHttp("sdk"),
  "http-echo-floor": echoHttp("interlock"),
  "sdk-web-echo-effect": echoHttp("sdk-web-effect"),
  "http-echo-effect": echoHttp("interlock-effect"),
  "gateway-stdio": async () => {
    const config = gatewayConfig(await freePort(), { policy: true, audit: true })
    return {
      connect: () => stdioClient(NODE, [...GATEWAY_FLAGS, INTERLOCK, "serve", "--stdio", "--config", config]),
      stop: () => undefined,
      pid: stdioPid
    }
  },
  "gateway-no-audit": gatewayHttp({ policy: true, audit: false }),
  "gateway-allow-all": gatewayHttp({ policy: false, audit: true }),
  "gateway-bare": gatewayHttp({ policy: false, audit: false }),
  "gateway-oauth": gatewayOAuth
}

/** The cases that also run with 32 concurrent clients (a stdio gateway is one process per client). */
const CONCURRENT = [
  "interlock-gateway",
  "gateway-2026-07-28",
  "mcp-proxy",
  "sdk-http-echo",
  "http-echo-floor",
  "sdk-web-echo-effect",
  "http-echo-effect"
]

const percentile = (sorted: ReadonlyArray<number>, p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]

/** Per-call latency percentiles (ms) and serving CPU (µs per call) of one case. */
interface PerCall {
  readonly p50: number
  readonly p99: number
  readonly cpuUs: number | undefined
}

/**
 * Per-call latencies of sequential calls and the CPU the serving processes spent on them, the
 * cases interleaved in rounds of 100 calls so that load from elsewhere hits them alike.
 */
const perCall = async (
  cases: ReadonlyArray<{ readonly call: () => Promise<unknown>; readonly pid: number | undefined }>,
  rounds = 20
): Promise<Array<PerCall>> => {
  const samples = cases.map(() => [] as Array<number>)
  const cpu = cases.map(() => 0)
  for (let round = 0; round < rounds; round++) {
    for (const [i, { call, pid }] of cases.entries()) {
      const before = pid === undefined ? 0 : cpuMicros(pid)
      for (let k = 0; k < 100; k++) {
        const start = performance.now()
        await call()
        samples[i].push(performance.now() - start)
      }
      cpu[i] += pid === undefined ? 0 : cpuMicros(pid) - before
    }
  }
  return samples.map((out, i) => {
    out.sort((a, b) => a - b)
    return {
      p50: percentile(out, 0.5),
      p99: percentile(out, 0.99),
      cpuUs: cases[i].pid === undefined || cpu[i] === 0 ? undefined : cpu[i] / out.length
    }
  })
}

/** Calls per second with CLIENTS clients each making CALLS_PER_CLIENT sequential calls. */
const throughput = async (clients: ReadonlyArray<Client>): Promise<number> => {
  const start = performance.now()
  await Promise.all(clients.map(async (client) => {
    for (let i = 0; i < CALLS_PER_CLIENT; i++) await client.callTool({ name: "echo", arguments: { text: "x" } })
  }))
  return (clients.length * CALLS_PER_CLIENT) / ((performance.now() - start) / 1000)
}

const round3 = (value: number) => Math.round(value * 1000) / 1000

export default async function run(): Promise<void> {
  const only = process.env.BENCH_CASES?.split(",")
  const names = Object.keys(SETUPS).filter((name) => only === undefined || only.includes(name))
  const setups = new Map<string, Setup>()
  const direct = (): Promise<Client> => stdioClient(NODE, [ECHO])
  try {
    for (const name of names) setups.set(name, await SETUPS[name]())
    const clients = new Map<string, Client>()
    for (const [name, setup] of setups) clients.set(name, await setup.connect())
    const base = await direct()
    const args = { text: "hello" }
    for (const [name, client] of clients) {
      const check = await client.callTool({ name: "echo", arguments: args })
      if ((check.content as Array<{ text?: string }>)[0]?.text !== "hello") {
        throw new Error(`${name} did not answer the echo`)
      }
    }
    const op = (client: Client) => () => client.callTool({ name: "echo", arguments: args })

    const sequential = await measure(
      "gateway",
      { name: "direct", op: op(base), iterations: 300 },
      [...clients].map(([name, client]) => ({ name, op: op(client), iterations: 300 })),
      { rounds: 7 }
    )
    const [directLatency, ...caseLatency] = await perCall([
      { call: op(base), pid: stdioPid(base) },
      ...[...clients].map(([name, client]) => ({ call: op(client), pid: setups.get(name)!.pid?.(client) }))
    ])
    const latency = new Map([...clients.keys()].map((name, i) => [name, caseLatency[i]]))

    const concurrentNames = ["direct", ...names.filter((name) => CONCURRENT.includes(name))]
    const pools: Array<ReadonlyArray<Client>> = []
    for (const name of concurrentNames) {
      pools.push(
        await Promise.all(Array.from({ length: CLIENTS }, name === "direct" ? direct : setups.get(name)!.connect))
      )
    }
    for (const pool of pools) await throughput(pool)
    const samples = pools.map(() => [] as Array<number>)
    for (let round = 0; round < 3; round++) {
      for (const [i, pool] of pools.entries()) samples[i].push(await throughput(pool))
    }
    const cps = samples.map((values) => [...values].sort((a, b) => a - b)[1])

    const withLatency = (result: CaseResult): CaseResult => {
      const own = latency.get(result.name)!
      return {
        ...result,
        p50Ms: round3(own.p50),
        p99Ms: round3(own.p99),
        p50OverDirectMs: round3(own.p50 - directLatency.p50),
        ...(own.cpuUs === undefined ? {} : { serverCpuUsPerCall: Math.round(own.cpuUs) })
      }
    }
    const concurrent = (name: string, value: number): CaseResult => ({
      name: `${name}-32-clients`,
      us: round3(1e6 / value),
      ratio: round3(cps[0] / value),
      callsPerSecond: Math.round(value),
      clients: CLIENTS
    })
    report({
      ...sequential,
      baseline: {
        ...sequential.baseline,
        p50Ms: round3(directLatency.p50),
        p99Ms: round3(directLatency.p99),
        ...(directLatency.cpuUs === undefined ? {} : { serverCpuUsPerCall: Math.round(directLatency.cpuUs) })
      } as typeof sequential.baseline,
      cases: [...sequential.cases.map(withLatency), ...concurrentNames.map((name, i) => concurrent(name, cps[i]))]
    })
    const cpuText = (own: PerCall) => (own.cpuUs === undefined ? "" : `, serving CPU ${Math.round(own.cpuUs)} µs/call`)
    console.log(`  p50 direct ${directLatency.p50.toFixed(3)} ms${cpuText(directLatency)}`)
    for (const [name, own] of latency) {
      console.log(
        `  p50 ${name} ${own.p50.toFixed(3)} ms (+${(own.p50 - directLatency.p50).toFixed(3)} over direct)${
          cpuText(own)
        }`
      )
    }
    console.log(`  32 clients: ${concurrentNames.map((name, i) => `${name} ${Math.round(cps[i])}/s`).join(", ")}`)
    for (const pool of pools) await Promise.all(pool.map((client) => client.close()))
    await Promise.all([base, ...clients.values()].map((client) => client.close()))
  } finally {
    for (const setup of setups.values()) setup.stop()
    // Give the stopped gateways a moment to close their databases before their directories go.
    await new Promise((resolve) => setTimeout(resolve, 500))
    for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true })
  }
}
