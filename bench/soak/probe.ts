/**
 * Loaded into the gateway process by the soak suite (`--import`, with `--expose-gc`): answers its
 * IPC messages with the process's memory after a full GC, or writes a heap snapshot.
 */
import { readFileSync } from "node:fs"
import { getHeapSpaceStatistics, writeHeapSnapshot } from "node:v8"

/** What the soak suite asks of the probe. */
export type ProbeRequest = { readonly kind: "memory" } | { readonly kind: "snapshot"; readonly path: string }

const collect = () => {
  // Twice: objects with finalizers or weak references die in the second pass.
  for (let i = 0; i < 2; i++) (globalThis as { gc?: () => void }).gc?.()
}

/** RssAnon, RssFile and RssShmem of /proc/self/status, in bytes (empty where there is no /proc). */
const rssParts = (): Record<string, number> => {
  try {
    const lines = readFileSync("/proc/self/status", "utf8").split("\n")
    return Object.fromEntries(
      lines.filter((line) => line.startsWith("Rss")).map((line) => {
        const [name, value] = line.split(/:\s+/)
        return [name, Number.parseInt(value, 10) * 1024]
      })
    )
  } catch {
    return {}
  }
}

process.on("message", (request: ProbeRequest) => {
  collect()
  if (request.kind === "snapshot") {
    process.send?.({ kind: "snapshot", path: writeHeapSnapshot(request.path) })
    return
  }
  const spaces = Object.fromEntries(
    getHeapSpaceStatistics().map((space) => [space.space_name, space.physical_space_size])
  )
  process.send?.({ kind: "memory", ...process.memoryUsage(), ...rssParts(), spaces })
})
