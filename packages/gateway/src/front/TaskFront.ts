/**
 * The io.modelcontextprotocol/tasks extension (SEP-2663) toward a 2026-07-28 host: a call a server answered with a task
 * is handed on under the gateway's own task id (GatewayTasks.ts), and `tasks/get`, `tasks/update` and `tasks/cancel`
 * reach the server only for the principal that created the task. What the host gets of a task is redacted as a call
 * result is; the call's audit row is completed when the host first sees the task end, or cancels it (TaskAudit.ts).
 */
import type { JsonObject } from "@interlock/core"
import { TASK_META, type TaskMethod, type TaskRequest, TASKS_EXTENSION } from "@interlock/mcp"
import {
  CLIENT_CAPABILITIES_META_KEY,
  ProtocolError as WireError,
  type Server,
  type ServerContext,
  type StandardSchemaV1
} from "@modelcontextprotocol/server"
import { Effect } from "effect"
import type { GatewayTask, GatewayTasksShape } from "../calls/GatewayTasks.ts"
import type { TaskAudit, TaskEnding } from "../calls/TaskAudit.ts"
import { redactResultParts } from "../governance/ContentRedaction.ts"
import { type Redaction, redactionsFor, redactJson, redactText } from "../governance/Redactor.ts"

/** What a front needs to carry tasks: the gateway's task ids and the hub's way to a server's tasks. */
export interface TaskDeps {
  readonly registry: GatewayTasksShape
  readonly request: TaskRequest
}

/** The server capability a 2026-07-28 host is shown when the gateway carries tasks. */
export const TASKS_CAPABILITY = { extensions: { [TASKS_EXTENSION]: {} } } as const

const MISSING_CAPABILITY = -32021
const INVALID_PARAMS = -32602
const INTERNAL = -32603
const TERMINAL = new Set(["completed", "failed", "cancelled"])

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** Whether the request's own client capabilities (its 2026-07-28 envelope) declare the tasks extension. */
export const hostTakesTasks = (ctx: ServerContext): boolean => {
  const declared = (ctx.mcpReq.envelope as Readonly<Record<string, unknown>> | undefined)
    ?.[CLIENT_CAPABILITIES_META_KEY]
  return isRecord(declared) && isRecord(declared.extensions) && isRecord(declared.extensions[TASKS_EXTENSION])
}

/** The Task fields the host is shown: the server's, under the gateway's id, the status message redacted. */
const shownTask = (id: string, task: Readonly<Record<string, unknown>>, redactions: ReadonlyArray<Redaction>) => ({
  taskId: id,
  status: typeof task.status === "string" ? task.status : "working",
  ...(typeof task.statusMessage === "string" ? { statusMessage: redactText(task.statusMessage, redactions) } : {}),
  createdAt: typeof task.createdAt === "string" ? task.createdAt : new Date().toISOString(),
  lastUpdatedAt: typeof task.lastUpdatedAt === "string" ? task.lastUpdatedAt : new Date().toISOString(),
  ttlMs: typeof task.ttlMs === "number" || task.ttlMs === null ? task.ttlMs : null,
  ...(typeof task.pollIntervalMs === "number" ? { pollIntervalMs: task.pollIntervalMs } : {})
})

/**
 * The CreateTaskResult for a call whose (already governed) result holds a server's task, under a new
 * gateway id bound to `principal`; undefined when the result is no task.
 */
export const createdTaskResult = (
  deps: TaskDeps | undefined,
  meta: unknown,
  call: { readonly serverId: string; readonly tool: string; readonly principal: string; readonly audit: TaskAudit },
  redactions: ReadonlyArray<Redaction>
): Record<string, unknown> | undefined => {
  const task = isRecord(meta) ? meta[TASK_META] : undefined
  if (deps === undefined || !isRecord(task) || typeof task.taskId !== "string") return undefined
  const ttlMs = typeof task.ttlMs === "number" ? task.ttlMs : undefined
  const id = deps.registry.open({
    serverId: call.serverId,
    tool: call.tool,
    downstreamId: task.taskId,
    principal: call.principal,
    audit: call.audit
  }, ttlMs)
  return { resultType: "task", ...shownTask(id, task, redactionsFor(redactions, call.serverId, call.tool)) }
}

/** A tasks/get result for the host: the task under the gateway's id, with what its status carries, redacted. */
const detailedTask = (id: string, got: JsonObject, redactions: ReadonlyArray<Redaction>) => {
  const shown: Record<string, unknown> = { resultType: "complete", ...shownTask(id, got, redactions) }
  if (got.status === "input_required" && isRecord(got.inputRequests)) {
    shown.inputRequests = redactJson(got.inputRequests, redactions)
  }
  if (got.status === "completed" && isRecord(got.result)) {
    const result = got.result as { content?: unknown; structuredContent?: unknown; isError?: unknown; _meta?: unknown }
    const parts = redactResultParts({
      content: Array.isArray(result.content) ? result.content : [],
      structuredContent: isRecord(result.structuredContent) ? result.structuredContent : undefined,
      meta: undefined
    }, redactions)
    shown.result = {
      content: parts.content,
      ...(parts.structuredContent === undefined ? {} : { structuredContent: parts.structuredContent }),
      ...(result.isError === true ? { isError: true } : {})
    }
  }
  if (got.status === "failed") {
    const error = isRecord(got.error) ? got.error : {}
    shown.error = {
      code: typeof error.code === "number" ? error.code : INTERNAL,
      message: redactText(typeof error.message === "string" ? error.message : "the task failed", redactions)
    }
  }
  return shown
}

/** How a task the server reports ended, for its call's row; undefined while it runs. */
const endingOf = (got: JsonObject): TaskEnding | undefined => {
  if (!TERMINAL.has(String(got.status))) return undefined
  if (got.status === "cancelled") return { outcome: "cancelled" }
  if (got.status === "failed") return { outcome: "failed", error: "the task failed" }
  const result = isRecord(got.result) ? got.result : {}
  return {
    outcome: "ok",
    result: {
      content: Array.isArray(result.content) ? result.content : [],
      structuredContent: result.structuredContent,
      isError: result.isError === true
    }
  }
}

/** Completes the task's call row once (a failure to write it is the audit store's to report). */
const settle = (task: GatewayTask, ending: TaskEnding | undefined) => {
  if (ending === undefined || task.settled || task.audit.settle === undefined) return Effect.void
  task.settled = true
  return Effect.ignore(task.audit.settle(ending))
}

const taskIdParams: StandardSchemaV1<unknown, { readonly taskId: string }> = {
  "~standard": {
    version: 1,
    vendor: "interlock",
    validate: (
      value
    ) => (isRecord(value) && typeof value.taskId === "string"
      ? { value: { taskId: value.taskId } }
      : { issues: [{ message: "taskId must be a string" }] })
  }
}

/** The server's failure as the host sees it: an unknown task stays unknown, anything else names no detail. */
const hostError = (error: { readonly _tag: string; readonly code?: number }) =>
  error._tag === "ProtocolError" && error.code === INVALID_PARAMS
    ? new WireError(INVALID_PARAMS, "Interlock: unknown task")
    : new WireError(INTERNAL, "Interlock: the server could not answer for the task")

/**
 * Registers tasks/get, tasks/update and tasks/cancel on a 2026-07-28 front server. A host that did not declare the
 * extension is answered -32021; a task id that is not this principal's is -32602, exactly as an unknown one is, and
 * nothing is sent to the server. What the host gets of a task (result, status message, error message, input requests)
 * is redacted with the tool's redactions.
 */
export const registerTaskMethods = (
  server: Server,
  deps: TaskDeps,
  principal: string,
  redactionsOf: () => ReadonlyArray<Redaction>,
  run: <A, E>(effect: Effect.Effect<A, E>, signal: AbortSignal) => Promise<A>
): void => {
  const method = (
    name: TaskMethod,
    answer: (
      task: GatewayTask,
      id: string,
      ctx: ServerContext
    ) => Effect.Effect<Record<string, unknown>, { readonly _tag: string; readonly code?: number }>
  ) =>
    server.setRequestHandler(name, { params: taskIdParams }, (params, ctx) => {
      if (!hostTakesTasks(ctx)) {
        throw new WireError(MISSING_CAPABILITY, "Missing required client capability", {
          requiredCapabilities: TASKS_CAPABILITY
        })
      }
      const task = deps.registry.find(params.taskId, principal)
      if (task === undefined) throw new WireError(INVALID_PARAMS, "Interlock: unknown task")
      return run(Effect.result(answer(task, params.taskId, ctx)), ctx.mcpReq.signal).then((result) => {
        if (result._tag === "Failure") throw hostError(result.failure)
        return result.success
      })
    })
  const get = (task: GatewayTask) => deps.request(task.serverId, "tasks/get", { taskId: task.downstreamId })
  method("tasks/get", (task, id) =>
    Effect.tap(get(task), (got) => settle(task, endingOf(got))).pipe(
      Effect.map((got) => detailedTask(id, got, redactionsFor(redactionsOf(), task.serverId, task.tool)))
    ))
  method(
    "tasks/update",
    (task, _id, ctx) =>
      Effect.as(
        deps.request(task.serverId, "tasks/update", {
          taskId: task.downstreamId,
          inputResponses: (ctx.mcpReq.inputResponses ?? {}) as JsonObject
        }),
        { resultType: "complete" }
      )
  )
  // The row says cancelled unless the server reports that the task had already ended otherwise.
  method("tasks/cancel", (task) =>
    deps.request(task.serverId, "tasks/cancel", { taskId: task.downstreamId }).pipe(
      Effect.andThen(Effect.orElseSucceed(get(task), () => ({ status: "cancelled" } as JsonObject))),
      Effect.tap((got) => settle(task, endingOf(got) ?? { outcome: "cancelled" })),
      Effect.as({ resultType: "complete" })
    ))
}
