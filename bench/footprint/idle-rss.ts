/**
 * The resident memory of an idle process, from /proc/<pid>/status: `interlock serve` on a copy of
 * examples/default (its own process only, not its servers') after it started, a host listed its
 * tools and it sat idle, and a bare `node` process idle as long.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { type ChildProcess, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { freePort } from "../support/ports.ts"

/** A process's resident memory in MB: all of it, and its anonymous and file-backed parts. */
export interface Resident {
  readonly rssMb: number
  readonly anonMb: number
  readonly fileMb: number
}

/** The resident memory of process `pid` now. */
export const residentOf = (pid: number): Resident => {
  const fields = Object.fromEntries(
    readFileSync(`/proc/${pid}/status`, "utf8").split("\n").filter((line) => line.includes(":")).map((line) => {
      const [name, value] = line.split(/:\s+/)
      return [name, Number.parseInt(value, 10) / 1024]
    })
  )
  return { rssMb: fields.VmRSS, anonMb: fields.RssAnon, fileMb: fields.RssFile }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const stop = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once("exit", () => resolve())
    child.kill("SIGTERM")
  })

/** Spawns `args` on `node` and resolves once its stdout has printed `ready`. */
const started = (node: string, args: ReadonlyArray<string>, cwd: string, env: Record<string, string>, ready: string) =>
  new Promise<ChildProcess>((resolve, reject) => {
    const child = spawn(node, [...args], { cwd, env, stdio: ["ignore", "pipe", "ignore"] })
    let out = ""
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8")
      if (out.includes(ready)) resolve(child)
    })
    child.once("exit", (code) => reject(new Error(`${args.join(" ")} exited (${code}) before it was ready: ${out}`)))
  })

/**
 * The gateway's memory: `interlock serve` (`bin`, after node flags `flags`) on `config` in `cwd`, on
 * a free port; once it listens a host lists its tools, then it idles `idleMs`. A bare `node` idles
 * beside it as the baseline.
 */
export const idleGateway = async (
  node: string,
  flags: ReadonlyArray<string>,
  bin: string,
  config: string,
  cwd: string,
  env: Record<string, string>,
  idleMs: number
): Promise<{ readonly gateway: Resident; readonly bare: Resident; readonly tools: number }> => {
  const port = await freePort()
  const gateway = await started(
    node,
    [...flags, bin, "serve", "--config", config, "--http", `127.0.0.1:${port}`],
    cwd,
    env,
    "MCP endpoint"
  )
  const bare = spawn(node, ["-e", "setInterval(() => {}, 1e9)"], { env, stdio: "ignore" })
  try {
    const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`))
    const client = new Client({ name: "footprint-host", version: "1.0.0" })
    await client.connect(transport)
    const tools = (await client.listTools()).tools.length
    await transport.terminateSession()
    await client.close()
    await sleep(idleMs)
    return { gateway: residentOf(gateway.pid!), bare: residentOf(bare.pid!), tools }
  } finally {
    await Promise.all([stop(gateway), stop(bare)])
  }
}
