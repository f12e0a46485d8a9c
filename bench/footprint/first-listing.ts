/**
 * The first tools/list a host gets from `interlock serve --stdio` over N stdio servers (spawned by
 * the host, as Claude Code does), with what it is measured against: the same servers started and
 * listed by the host directly, and N bare `node` processes, all in parallel.
 */
import { Client } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { spawn } from "node:child_process"
import { writeFileSync } from "node:fs"
import { join } from "node:path"

/** How to start one downstream server. */
export interface ServerCommand {
  readonly command: string
  readonly args: ReadonlyArray<string>
}

/**
 * One host's start against the gateway: when its first listing came, what it held, and when every server was listed.
 */
export interface FirstListing {
  /** From spawning the gateway to the answer of the host's first tools/list. */
  readonly firstMs: number
  /** How many of the servers the first listing held tools of. */
  readonly serversInFirst: number
  /**
   * From spawning the gateway to a listing with every server's tools (after list_changed, when the first lacked some).
   */
  readonly completeMs: number
}

/** Writes a gateway config with `count` copies of `server` (s0..s{count-1}) into `dir`; returns its path. */
export const writeConfig = (dir: string, server: ServerCommand, count: number): string => {
  const file = join(dir, `servers-${count}.json`)
  const servers = Object.fromEntries(
    Array.from({ length: count }, (_, i) => [`s${i}`, { command: server.command, args: [...server.args] }])
  )
  writeFileSync(file, JSON.stringify({ servers }))
  return file
}

const serversIn = (names: ReadonlyArray<string>): number =>
  new Set(names.map((name) => name.slice(0, name.indexOf("__")))).size

/** A host that spawns the gateway (`gateway` is its command) and lists until every one of `count` servers is there. */
export const firstListing = async (
  gateway: ServerCommand,
  count: number,
  env: Record<string, string>,
  cwd: string
): Promise<FirstListing> => {
  const client = new Client({ name: "footprint-host", version: "1.0.0" })
  let changed: () => void = () => undefined
  client.setNotificationHandler("notifications/tools/list_changed", () => changed())
  const start = performance.now()
  await client.connect(
    new StdioClientTransport({ command: gateway.command, args: [...gateway.args], env, cwd, stderr: "ignore" })
  )
  try {
    const first = (await client.listTools()).tools.map((tool) => tool.name)
    const firstMs = performance.now() - start
    let listed = serversIn(first)
    const serversInFirst = listed
    while (listed < count) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`only ${listed} of ${count} servers were listed`)), 60_000)
        changed = () => {
          clearTimeout(timer)
          resolve()
        }
      })
      listed = serversIn((await client.listTools()).tools.map((tool) => tool.name))
    }
    return { firstMs, serversInFirst, completeMs: performance.now() - start }
  } finally {
    await client.close()
  }
}

/** Milliseconds for the host to start `count` copies of `server` itself and list each one's tools, all in parallel. */
export const directListing = async (
  server: ServerCommand,
  count: number,
  env: Record<string, string>
): Promise<number> => {
  const start = performance.now()
  const clients = await Promise.all(Array.from({ length: count }, async () => {
    const client = new Client({ name: "footprint-host", version: "1.0.0" })
    await client.connect(
      new StdioClientTransport({ command: server.command, args: [...server.args], env, stderr: "ignore" })
    )
    await client.listTools()
    return client
  }))
  const ms = performance.now() - start
  await Promise.all(clients.map((client) => client.close()))
  return ms
}

/** Milliseconds for `count` bare `node` processes, started in parallel, to print one line each. */
export const bareNodes = (node: string, count: number, env: Record<string, string>): Promise<number> => {
  const start = performance.now()
  return Promise.all(Array.from({ length: count }, () =>
    new Promise<void>((resolve, reject) => {
      const child = spawn(node, ["-e", "console.log(1)"], { env, stdio: ["ignore", "pipe", "ignore"] })
      child.stdout.once("data", () => resolve())
      child.once("error", reject)
    }))).then(() => performance.now() - start)
}
