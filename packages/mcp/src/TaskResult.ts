/**
 * The io.modelcontextprotocol/tasks extension (SEP-2663) as the hub carries it. The SDK client refuses
 * `resultType: "task"`, so a CreateTaskResult is rewritten on arrival (ResultTypeDefault.ts) into a complete
 * result with no content and the server's task in `_meta` under TASK_META, which the hub's ToolResult keeps in
 * `meta`. A server's own TASK_META key on any other result is dropped.
 */
import type { JsonObject } from "@interlock/core"

/** The extension's identifier, in capabilities. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks"

/** The ToolResult `meta` key of a server's task (its Task fields, as the server sent them). */
export const TASK_META = "interlock/task"

/** The Task fields of a CreateTaskResult (SEP-2663), which the hub keeps. */
const TASK_FIELDS = [
  "taskId",
  "status",
  "statusMessage",
  "createdAt",
  "lastUpdatedAt",
  "ttlMs",
  "pollIntervalMs"
] as const

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * The server's task of a result that is a CreateTaskResult (`resultType: "task"` and a string taskId); otherwise
 * undefined.
 */
const createdTask = (result: unknown): JsonObject | undefined => {
  if (!isRecord(result) || result.resultType !== "task" || typeof result.taskId !== "string") return undefined
  const task: Record<string, unknown> = {}
  for (const field of TASK_FIELDS) if (result[field] !== undefined) task[field] = result[field]
  return task as JsonObject
}

/**
 * The result of a response as the SDK gets it: a CreateTaskResult carried in `_meta`, any other result without
 * TASK_META.
 */
export const carryTask = (result: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> => {
  const task = createdTask(result)
  if (task !== undefined) return { resultType: "complete", content: [], _meta: { [TASK_META]: task } }
  const meta = result._meta
  if (!isRecord(meta) || !(TASK_META in meta)) return result
  const { [TASK_META]: _forged, ...rest } = meta
  return { ...result, _meta: rest }
}

/** The server's task a tool result carries (see carryTask), if any. */
export const carriedTask = (meta: unknown): JsonObject | undefined => {
  const task = isRecord(meta) ? meta[TASK_META] : undefined
  return isRecord(task) && typeof task.taskId === "string" ? task as JsonObject : undefined
}
