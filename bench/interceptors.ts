/**
 * `npm run bench -- interceptors`: what one interceptor on `tools/call` adds to a gateway call. The
 * baseline is `interlock serve` over HTTP with the interlock-gateway case's policy, redaction and
 * SQLite audit; the cases add one validator (mcp's interceptor fixture, allow-all) over stdio or over
 * Streamable HTTP. Calls are interleaved one by one; each case prints its p50 over the baseline's,
 * beside what one `interceptor/invoke` costs a plain SDK client of the same server (its own floor).
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { FULL_POLICY } from "./gateway.ts"
import { median, report, round3 } from "./harness.ts"
import { freePort, waitForPort } from "./support/ports.ts"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const NODE = join(root, "node_modules", ".bin", "node")
const ECHO = join(root, "packages", "gateway", "test", "fixtures", "echo-server.ts")
const INTERLOCK = join(root, "packages", "gateway", "bin", "interlock.ts")
const INTERCEPTOR = join(root, "packages", "mcp", "test", "fixtures", "interceptor-server.ts")
const SPECS = JSON.stringify([{ name: "allow", type: "validation", behavior: "allow-all", events: ["tools/call"] }])
/** Timed calls per case, after the warm-up, interleaved across the cases. */
const CALLS = 2_000
/** The goals: the p50 an interceptor may add (ms). */
const GOALS: Record<string, number> = { "interceptor-stdio": 0.3, "interceptor-http": 0.5 }

/** The interceptor fixture over HTTP on 127.0.0.1: its MCP URL, once it listens. */
const httpInterceptor = (children: Array<ChildProcess>): Promise<string> =>
  new Promise((resolve, reject) => {
    const child = spawn(NODE, [INTERCEPTOR, "http"], {
      env: { ...process.env, INTERCEPTORS: SPECS },
      stdio: ["ignore", "ignore", "pipe"]
    })
    children.push(child)
    let seen = ""
    child.stderr.on("data", (chunk: Buffer) => {
      seen += chunk.toString()
      const port = /LISTENING (\d+)/.exec(seen)?.[1]
      if (port !== undefined) resolve(`http://127.0.0.1:${port}/mcp`)
    })
    child.once("exit", (code) => reject(new Error(`the interceptor fixture exited with ${code}`)))
  })

/** A gateway on the bench's policy with `interceptors`, and a connected client. */
const gateway = async (
  dir: string,
  name: string,
  interceptors: ReadonlyArray<unknown>,
  children: Array<ChildProcess>
): Promise<Client> => {
  const port = await freePort()
  const config = join(dir, `${name}.json`)
  writeFileSync(
    config,
    JSON.stringify({
      servers: { echo: { command: NODE, args: [ECHO] } },
      ...FULL_POLICY,
      audit: { path: join(dir, `${name}.db`), capture: "metadata" },
      listen: { http: `127.0.0.1:${port}` },
      ...(interceptors.length === 0 ? {} : { interceptors })
    })
  )
  const child = spawn(NODE, [INTERLOCK, "serve", "--config", config], { stdio: "ignore" })
  children.push(child)
  await waitForPort(port, child)
  const client = new Client({ name: "bench-host", version: "1.0.0" })
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)))
  return client
}

/** The SDK result Schema of an invoke: any object (the bench reads none of it). */
const anyObjectResult = {
  "~standard": { version: 1, vendor: "bench", validate: (value: unknown) => ({ value: value as object }) }
} as const

/** One `interceptor/invoke` of the allow-all validator on a tools/call request, as the gateway sends it. */
const invoke = (client: Client) =>
  client.request({
    method: "interceptor/invoke",
    params: {
      name: "allow",
      event: "tools/call",
      phase: "request",
      payload: { name: "echo", arguments: { text: "hello" } },
      timeoutMs: 5_000
    }
  }, anyObjectResult)

export default async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "interlock-bench-interceptors-"))
  const children: Array<ChildProcess> = []
  try {
    const stdio = { server: { command: NODE, args: [INTERCEPTOR], env: { INTERCEPTORS: SPECS } } }
    const call = (client: Client) => client.callTool({ name: "echo", arguments: { text: "hello" } })
    const clients = new Map<string, Client>([
      ["gateway", await gateway(dir, "gateway", [], children)],
      ["interceptor-stdio", await gateway(dir, "stdio", [stdio], children)],
      ["interceptor-http", await gateway(dir, "http", [{ server: { url: await httpInterceptor(children) } }], children)]
    ])
    const stdioInvoker = new Client({ name: "bench-host", version: "1.0.0" })
    await stdioInvoker.connect(
      new StdioClientTransport({
        command: NODE,
        args: [INTERCEPTOR],
        env: { ...process.env, INTERCEPTORS: SPECS } as Record<string, string>
      })
    )
    const httpInvoker = new Client({ name: "bench-host", version: "1.0.0" })
    await httpInvoker.connect(new StreamableHTTPClientTransport(new URL(await httpInterceptor(children))))
    const ops = new Map<string, () => Promise<unknown>>([
      ...[...clients].map(([name, client]) => [name, () => call(client)] as const),
      ["invoke-stdio", () => invoke(stdioInvoker)],
      ["invoke-http", () => invoke(httpInvoker)]
    ])
    for (const [name, client] of clients) {
      const answer = await call(client)
      if ((answer.content as Array<{ text?: string }>)[0]?.text !== "hello") throw new Error(`${name} did not echo`)
    }
    const samples = new Map([...ops.keys()].map((name) => [name, [] as Array<number>]))
    for (let i = 0; i < CALLS + 200; i++) {
      for (const [name, op] of ops) {
        const start = performance.now()
        await op()
        if (i >= 200) samples.get(name)!.push(performance.now() - start)
      }
    }
    const p50 = (name: string) => median(samples.get(name)!)
    const base = p50("gateway")
    report({
      suite: "interceptors",
      baseline: { name: "gateway", us: round3(base * 1000), p50Ms: round3(base) },
      cases: ["interceptor-stdio", "interceptor-http"].map((name) => ({
        name,
        us: round3(p50(name) * 1000),
        ratio: round3(p50(name) / base),
        p50Ms: round3(p50(name)),
        p50OverGatewayMs: round3(p50(name) - base),
        goalMs: GOALS[name],
        holds: p50(name) - base <= GOALS[name],
        invokeFloorMs: round3(p50(name === "interceptor-stdio" ? "invoke-stdio" : "invoke-http"))
      }))
    })
    for (const name of ["interceptor-stdio", "interceptor-http"]) {
      const added = p50(name) - base
      console.log(
        `  ${name}: +${added.toFixed(3)} ms p50 over the gateway (goal at most +${GOALS[name]} ms: ${
          added <= GOALS[name] ? "holds" : "does not hold"
        }); a plain SDK client's invoke of that server: ${
          p50(name === "interceptor-stdio" ? "invoke-stdio" : "invoke-http").toFixed(3)
        } ms`
      )
    }
    await Promise.all([...clients.values(), stdioInvoker, httpInvoker].map((client) => client.close()))
  } finally {
    for (const child of children) child.kill("SIGTERM")
    await new Promise((resolve) => setTimeout(resolve, 500))
    rmSync(dir, { recursive: true, force: true })
  }
}
