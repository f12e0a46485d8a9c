/**
 * Runs the tool calls of one model turn through core's ToolCalls, concurrently (bounded), and
 * gives their answers back in call order. An unknown tool is "Tool not found: NAME"; a denied or
 * failed call is an isError result carrying its message and receipt; an Ask with no approver
 * suspends the call (pending) when the agent suspends.
 */
import {
  type CallError,
  type Canonical,
  type JsonObject,
  makeTrusted,
  ToolCall,
  type ToolCallsShape,
  type ToolResult
} from "@interlock/core"
import { Effect, type Result } from "effect"

type Json = Canonical.Json
import { AgentToolCall } from "./AgentToolCall.ts"
import { type CallWatch, CurrentCall, type StartedCall } from "./CallWatch.ts"
import type { AgentTool, Catalog } from "./Catalog.ts"
import { emit, type MetricsSink } from "./Metrics.ts"
import { PendingCall } from "./RunState.ts"

/** A tool call as the model asked for it. */
export interface ModelCall {
  readonly id: string
  readonly name: string
  readonly params: unknown
}

/** A call's answer: settled, or waiting for approval. */
export type Slot =
  | { readonly _tag: "settled"; readonly call: AgentToolCall; readonly recorded?: boolean }
  | { readonly _tag: "pending"; readonly pending: PendingCall }

/** What executing a turn needs. */
export interface ExecEnv {
  readonly toolCalls: ToolCallsShape
  readonly catalog: Catalog
  /** Suspend (pending) on an Ask that no approver answered, rather than answering with a denial. */
  readonly suspend: boolean
  readonly concurrency: number
  readonly metrics: MetricsSink | undefined
}

const isPlainObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value) &&
  Object.getPrototypeOf(value) === Object.prototype

/** Whether a decoded value can be recorded as JSON (anything else is recorded as null). */
export const isJsonLike = (value: unknown): value is Json =>
  value === null || typeof value === "string" || typeof value === "number" || typeof value === "boolean" ||
  typeof value === "object"

/** The text the model gets for a result. */
export const outputOf = (result: ToolResult): string => {
  if (result.content.some((block) => block.type === "text")) return result.text
  if (result.structuredContent !== undefined) return JSON.stringify(result.structuredContent)
  return JSON.stringify(result.content)
}

const isSuspension = (error: CallError): boolean =>
  error._tag === "Denied" && error.reason._tag === "ApprovalDenied" && error.receipt?.approval?.source === "none"

/** The digest of a call as the model asked for it (before any pre-hook). */
export const requestDigest = (serverId: string, name: string, args: JsonObject): string =>
  new ToolCall({ serverId, name, args, callId: "-", meta: undefined }).digest

const settled = (
  call: ModelCall,
  turn: number,
  output: string,
  isError: boolean,
  result?: { readonly receipt?: AgentToolCall["receipt"] }
): Slot => ({
  _tag: "settled",
  call: makeTrusted(AgentToolCall, {
    id: call.id,
    name: call.name,
    // Params come decoded from the provider's JSON; anything else is recorded as null.
    args: isJsonLike(call.params) ? call.params : null,
    output,
    isError,
    turn,
    receipt: result?.receipt
  })
})

/** Turns the pipeline's answer (result or error) into the call's slot. */
const slotOf = (
  env: ExecEnv,
  call: ModelCall,
  tool: AgentTool,
  args: JsonObject,
  turn: number,
  answer: Result.Result<ToolResult, CallError>,
  durationMs: number
): Slot => {
  const record = (outcome: string, isError: boolean) =>
    emit(env.metrics, {
      type: "tool",
      name: call.name,
      serverId: tool.serverId,
      callId: call.id,
      turn,
      isError,
      outcome,
      durationMs
    })
  if (answer._tag === "Success") {
    const result = answer.success
    const isError = result.isError === true
    record(result.receipt?.outcome ?? (isError ? "tool_error" : "ok"), isError)
    return settled(call, turn, outputOf(result), isError, result)
  }
  const error = answer.failure
  if (env.suspend && isSuspension(error)) {
    record("pending", false)
    const asked = requestDigest(tool.serverId, tool.toolName, args)
    return {
      _tag: "pending",
      pending: new PendingCall({
        id: call.id,
        name: call.name,
        serverId: tool.serverId,
        toolName: tool.toolName,
        args,
        digest: error.receipt?.digest ?? asked,
        requestDigest: asked,
        reason: error.message
      })
    }
  }
  record(error.receipt?.outcome ?? "failed", true)
  return settled(call, turn, error.message, true, error)
}

/** Runs one call through the pipeline. Never fails. */
export const execCall = (
  env: ExecEnv,
  active: ReadonlySet<string>,
  call: ModelCall,
  turn: number,
  watch: CallWatch
): Effect.Effect<Slot> => {
  const tool = active.has(call.name) ? env.catalog.byName.get(call.name) : undefined
  const refuse = (serverId: string, outcome: string, output: string) => {
    emit(env.metrics, {
      type: "tool",
      name: call.name,
      serverId,
      callId: call.id,
      turn,
      isError: true,
      outcome,
      durationMs: 0
    })
    return told(watch, settled(call, turn, output, true))
  }
  if (tool === undefined) return refuse("", "not_found", `Tool not found: ${call.name}`)
  // A plain object is passed on; core checks that it is JSON before anything runs.
  if (!isPlainObject(call.params)) {
    return refuse(tool.serverId, "invalid_args", `Invalid arguments for ${call.name}: expected a JSON object`)
  }
  const args = call.params
  return Effect.clockWith((clock) => {
    const start = clock.currentTimeMillisUnsafe()
    const started: StartedCall = {
      id: call.id,
      name: call.name,
      serverId: tool.serverId,
      toolName: tool.toolName,
      args,
      turn,
      sent: false
    }
    watch.started.add(started)
    const request = env.toolCalls.callTool({ serverId: tool.serverId, name: tool.toolName, args, callId: call.id })
    return Effect.flatMap(Effect.result(Effect.provideService(request, CurrentCall, started)), (answer) => {
      // An interrupted call never gets here: it stays in `started`, for the cancelled run's record.
      watch.started.delete(started)
      return told(watch, slotOf(env, call, tool, args, turn, answer, clock.currentTimeMillisUnsafe() - start))
    })
  })
}

/** Tells the watch of a settled slot. */
const told = (watch: CallWatch, slot: Slot): Effect.Effect<Slot> => {
  if (slot._tag !== "settled") return Effect.succeed(slot)
  watch.done.push(slot.call)
  return watch.settled === undefined ? Effect.succeed(slot) : Effect.as(watch.settled(slot.call), slot)
}

/** Runs a turn's calls, at most `concurrency` at a time, answers in call order. */
export const execTurn = (
  env: ExecEnv,
  active: ReadonlySet<string>,
  calls: ReadonlyArray<ModelCall>,
  turn: number,
  watch: CallWatch
): Effect.Effect<Array<Slot>> =>
  calls.length === 1
    ? Effect.map(execCall(env, active, calls[0], turn, watch), (slot) => [slot])
    : Effect.forEach(calls, (call) => execCall(env, active, call, turn, watch), { concurrency: env.concurrency })
