/**
 * `npm run bench -- gateway`: a host client (SDK 2) calls an echo tool in three setups:
 * - `direct`: straight to the echo server (its own process, over stdio): the baseline;
 * - `interlock-gateway`: through `interlock serve` (its own process, Streamable HTTP on
 *   127.0.0.1) with a policy of several rules, the redaction detectors and the SQLite audit on;
 * - `mcp-proxy`: through mcp-proxy from npm (its own process, Streamable HTTP), no policy.
 * Sequential latency (harness medians, plus per-call p50/p99), then throughput with 32 concurrent
 * clients (one session each).
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { connect, createServer } from "node:net"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { type CaseResult, measure, report } from "./harness.ts"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const NODE = join(root, "node_modules", ".bin", "node")
const ECHO = join(root, "packages", "gateway", "test", "fixtures", "echo-server.ts")
const CLIENTS = 32
const CALLS_PER_CLIENT = 100

const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const server = createServer()
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port
      server.close(() => resolve(port))
    })
  })

const canConnect = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1")
    socket.once("connect", () => {
      socket.destroy()
      resolve(true)
    })
    socket.once("error", () => resolve(false))
  })

const waitForPort = async (port: number, child: ChildProcess): Promise<void> => {
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`port ${port}: the process exited with ${child.exitCode}`)
    const ok = await canConnect(port)
    if (ok) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`port ${port} did not come up`)
}

const stdioClient = async (): Promise<Client> => {
  const client = new Client({ name: "bench-host", version: "1.0.0" })
  await client.connect(new StdioClientTransport({ command: NODE, args: [ECHO] }))
  return client
}

const httpClient = async (url: string): Promise<Client> => {
  const client = new Client({ name: "bench-host", version: "1.0.0" })
  await client.connect(new StreamableHTTPClientTransport(new URL(url)))
  return client
}

const startGateway = async (): Promise<{ url: string; child: ChildProcess }> => {
  const dir = mkdtempSync(join(tmpdir(), "interlock-bench-"))
  const port = await freePort()
  const config = join(dir, "interlock.config.json")
  writeFileSync(config, JSON.stringify({
    servers: { echo: { command: NODE, args: [ECHO] } },
    policy: {
      default: "deny",
      rules: [
        { id: "no-crash", match: "echo/crash", decision: "deny" },
        { id: "writes", match: "echo/write_*", decision: "ask" },
        { id: "slow-inside", match: "echo/slow", decision: "deny", when: { args: { ms: { in: [0] } } } },
        { id: "echo", match: "echo/echo", decision: "allow" }
      ]
    },
    redact: [{ detectors: "all" }],
    audit: { path: join(dir, "audit.db"), capture: "metadata" },
    listen: { http: `127.0.0.1:${port}` }
  }))
  const child = spawn(NODE, [join(root, "packages", "gateway", "bin", "interlock.ts"), "serve", "--config", config], { stdio: "ignore" })
  const url = `http://127.0.0.1:${port}/mcp`
  await waitForPort(port, child)
  return { url, child }
}

const startMcpProxy = async (): Promise<{ url: string; child: ChildProcess }> => {
  const port = await freePort()
  const bin = join(root, "node_modules", "mcp-proxy", "dist", "bin", "mcp-proxy.mjs")
  const child = spawn(NODE, [bin, "--port", String(port), "--host", "127.0.0.1", "--server", "stream", "--", NODE, ECHO], { stdio: "ignore" })
  const url = `http://127.0.0.1:${port}/mcp`
  await waitForPort(port, child)
  return { url, child }
}

const percentile = (sorted: ReadonlyArray<number>, p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]

/** Per-call latencies (ms) of `count` sequential calls. */
const latencies = async (call: () => Promise<unknown>, count: number): Promise<{ p50: number; p99: number }> => {
  const out: Array<number> = []
  for (let i = 0; i < count; i++) {
    const start = performance.now()
    await call()
    out.push(performance.now() - start)
  }
  out.sort((a, b) => a - b)
  return { p50: percentile(out, 0.5), p99: percentile(out, 0.99) }
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
  const gateway = await startGateway()
  const proxy = await startMcpProxy()
  try {
    const direct = await stdioClient()
    const viaGateway = await httpClient(gateway.url)
    const viaProxy = await httpClient(proxy.url)
    const args = { text: "hello" }
    const check = await viaGateway.callTool({ name: "echo", arguments: args })
    if ((check.content as Array<{ text?: string }>)[0]?.text !== "hello") throw new Error("the gateway did not answer the echo")
    const op = (client: Client) => () => client.callTool({ name: "echo", arguments: args })

    const sequential = await measure("gateway", { name: "direct", op: op(direct), iterations: 300 }, [
      { name: "interlock-gateway", op: op(viaGateway), iterations: 300 },
      { name: "mcp-proxy", op: op(viaProxy), iterations: 300 }
    ], { rounds: 7 })
    const p = {
      direct: await latencies(op(direct), 1000),
      gateway: await latencies(op(viaGateway), 1000),
      proxy: await latencies(op(viaProxy), 1000)
    }

    const pools = await Promise.all([
      Promise.all(Array.from({ length: CLIENTS }, stdioClient)),
      Promise.all(Array.from({ length: CLIENTS }, () => httpClient(gateway.url))),
      Promise.all(Array.from({ length: CLIENTS }, () => httpClient(proxy.url)))
    ])
    for (const pool of pools) await throughput(pool)
    const cps = [[], [], []] as [Array<number>, Array<number>, Array<number>]
    for (let round = 0; round < 3; round++) for (const [i, pool] of pools.entries()) cps[i].push(await throughput(pool))
    const [directCps, gatewayCps, proxyCps] = cps.map((samples) => [...samples].sort((a, b) => a - b)[1])

    const withLatency = (result: CaseResult, latency: { p50: number; p99: number }): CaseResult => ({
      ...result,
      p50Ms: round3(latency.p50),
      p99Ms: round3(latency.p99),
      p50OverDirectMs: round3(latency.p50 - p.direct.p50)
    })
    const concurrent = (name: string, value: number): CaseResult => ({
      name,
      us: round3(1e6 / value),
      ratio: round3(directCps / value),
      callsPerSecond: Math.round(value),
      clients: CLIENTS
    })
    report({
      ...sequential,
      baseline: { ...sequential.baseline, p50Ms: round3(p.direct.p50), p99Ms: round3(p.direct.p99) } as typeof sequential.baseline,
      cases: [
        withLatency(sequential.cases[0], p.gateway),
        withLatency(sequential.cases[1], p.proxy),
        concurrent("direct-32-clients", directCps),
        concurrent("interlock-gateway-32-clients", gatewayCps),
        concurrent("mcp-proxy-32-clients", proxyCps)
      ]
    })
    console.log(`  p50: direct ${p.direct.p50.toFixed(3)} ms, gateway ${p.gateway.p50.toFixed(3)} ms (+${(p.gateway.p50 - p.direct.p50).toFixed(3)}), mcp-proxy ${p.proxy.p50.toFixed(3)} ms`)
    console.log(`  32 clients: direct ${Math.round(directCps)}/s, gateway ${Math.round(gatewayCps)}/s, mcp-proxy ${Math.round(proxyCps)}/s`)
    for (const pool of pools) await Promise.all(pool.map((client) => client.close()))
    await Promise.all([direct.close(), viaGateway.close(), viaProxy.close()])
  } finally {
    gateway.child.kill("SIGTERM")
    proxy.child.kill("SIGTERM")
  }
}
