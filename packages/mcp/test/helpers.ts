/** Test helpers: child-process accounting, polling, free ports and the policies the tests use. */
import { Policy } from "@interlock/core"
import { Effect } from "effect"
import { readdirSync, readFileSync } from "node:fs"
import { createServer } from "node:net"

/** Pids of every live descendant of this process (from /proc), zombies included. */
export const descendants = (root = process.pid): Array<number> => {
  const parent = new Map<number, number>()
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8")
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      parent.set(Number(entry), Number(fields[1]))
    } catch {
      // the process ended while we looked
    }
  }
  const out: Array<number> = []
  const visit = (pid: number) => {
    for (const [child, ppid] of parent) {
      if (ppid === pid) {
        out.push(child)
        visit(child)
      }
    }
  }
  visit(root)
  return out
}

/** Whether a pid is alive (and not a zombie). */
export const alive = (pid: number): boolean => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z"
  } catch {
    return false
  }
}

/** Polls (real time) until `check` holds, or fails after `ms`. */
export const eventually = (check: () => boolean, ms = 5_000): Effect.Effect<void> =>
  Effect.promise(async () => {
    const until = Date.now() + ms
    while (!check()) {
      if (Date.now() > until) throw new Error("condition not met in time")
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  })

/** A free TCP port on 127.0.0.1 (bound then released). */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(
        () => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port")))
      )
    })
  })

/** A policy that allows everything (the tests govern with hooks and filters). */
export const allowAll = Policy.rules({ rules: [{ match: "*", decision: "allow" }] })

/** The workspace's Node 24 with the compile cache on (scripts/test-node), and the servers' entry points. */
export const NODE = new URL("../../../scripts/test-node", import.meta.url).pathname
export const EVERYTHING = new URL("../../../node_modules/.bin/mcp-server-everything", import.meta.url).pathname
export const FILESYSTEM = new URL("../../../node_modules/.bin/mcp-server-filesystem", import.meta.url).pathname
export const FAULT_SERVER = new URL("./fixtures/fault-server.ts", import.meta.url).pathname

/** The last test of a file that starts processes: every one of them has ended (no child, no zombie). */
export const noProcessLeft = () =>
  Effect.gen(function*() {
    // A child killed a moment ago may still be being reaped; give it a few milliseconds.
    yield* eventually(() => descendants().length === 0, 3_000).pipe(Effect.catchDefect(() => Effect.void))
    if (descendants().length > 0) throw new Error(`processes left behind: ${descendants().join(", ")}`)
  })
