/**
 * The task ids a host sees (SEP-2663): the gateway's own, random (144 bits), mapped in this
 * gateway's memory to the server, the server's task id and the principal that created the task.
 * Only that principal may use it; any other id, forged, foreign or after a restart (the map is not
 * shared between replicas or restarts), is unknown alike. The server's id never reaches the host.
 */
import { randomBytes } from "node:crypto"
import type { TaskAudit } from "./TaskAudit.ts"

/** One task a host created through the gateway. */
export interface GatewayTask {
  readonly serverId: string
  /** The tool's name on its server, for its redactions. */
  readonly tool: string
  /** The server's own task id. */
  readonly downstreamId: string
  /** The principal that created it ("" when the front serves none). */
  readonly principal: string
  /** How the creating call's audit row is completed (once). */
  readonly audit: TaskAudit
  settled: boolean
}

/** The gateway's tasks: `open` names a new one, `find` gives it only to its principal. */
export interface GatewayTasksShape {
  readonly open: (task: Omit<GatewayTask, "settled">, ttlMs: number | undefined) => string
  readonly find: (id: unknown, principal: string) => GatewayTask | undefined
}

/** How long a task id is kept when its server gives no TTL (or an unlimited one). */
const DEFAULT_KEEP_MS = 24 * 3_600_000

/** A gateway's task map (in memory). */
export const makeGatewayTasks = (): GatewayTasksShape => {
  const tasks = new Map<string, GatewayTask>()
  return {
    open: (task, ttlMs) => {
      const id = `it_${randomBytes(18).toString("base64url")}`
      tasks.set(id, { ...task, settled: false })
      setTimeout(() => tasks.delete(id), Math.min(ttlMs ?? DEFAULT_KEEP_MS, DEFAULT_KEEP_MS) + 60_000).unref()
      return id
    },
    find: (id, principal) => {
      const task = typeof id === "string" ? tasks.get(id) : undefined
      return task !== undefined && task.principal === principal ? task : undefined
    }
  }
}
