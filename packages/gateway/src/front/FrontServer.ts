/**
 * The MCP server one host connection talks to. Every tools/call goes through GatewayCalls (hooks, policy, approvals,
 * audit) with the connection's principal; one it refuses first (unknown tool, arguments not an object) is audited too.
 * Progress flows back to the host, whose cancellation cancels the downstream request. Resources, prompts, completion
 * and logging go through the FeatureForwarder (FrontFeatures). One server serves one era (RequestEra).
 */
import type { Principal, Progress, Tool } from "@interlock/core"
import { ProtocolError as WireError, Server, type ServerContext } from "@modelcontextprotocol/server"
import { Effect, Result } from "effect"
import { CurrentApprovalProgress } from "../calls/ApprovalProgress.ts"
import { CurrentElicit, type Elicit } from "../calls/Approver.ts"
import type { CacheHint } from "../calls/CacheHints.ts"
import type { FeatureForwarderShape } from "../calls/FeatureForwarder.ts"
import { type GatewayCallError, type GatewayCallsShape, type RefusedCall, UNROUTED } from "../calls/GatewayCalls.ts"
import { CurrentHostToolUseId, hostToolUseId } from "../calls/HostClient.ts"
import { CurrentHostSession, type HostSessionsShape } from "../calls/HostSessions.ts"

import { CurrentTaskAudit, type TaskAudit } from "../calls/TaskAudit.ts"
import { orderTools } from "../calls/ToolOrder.ts"
import { exposeContentUris, exposeTool } from "../governance/AppUris.ts"
import { redactDefinition } from "../governance/ContentRedaction.ts"
import type { Namespace } from "../governance/Namespace.ts"
import { type Redaction, redactionsFor } from "../governance/Redactor.ts"
import { admitted, FRONT_CAPABILITIES, registerFeatures } from "./FrontFeatures.ts"
import { type DoorLimits, MAX_NAME_LENGTH } from "./http/DoorLimits.ts"
import {
  type Era,
  hostTakesUrlElicitation,
  inputRequiredCall,
  isInputRequired,
  requestLogLevel,
  withRequest
} from "./RequestEra.ts"
import { requestNotify } from "./RequestLog.ts"
import type { Runner } from "./Runner.ts"
import { createdTaskResult, hostTakesTasks, registerTaskMethods, type TaskDeps, TASKS_CAPABILITY } from "./TaskFront.ts"
import { CALL_ID_META, CONNECT_INPUT, failureToWire, toWireResult, toWireTool } from "./WireConvert.ts"

/** Runs an Effect for a request (Runner.ts). */
export type { Runner } from "./Runner.ts"

/** What every front server of a gateway shares. */
export interface FrontDeps {
  readonly calls: GatewayCallsShape
  readonly features: FeatureForwarderShape
  readonly namespace: Namespace
  readonly hosts: HostSessionsShape
  readonly run: Runner
  readonly version: string
  /** The caps every request meets before its handler runs. */
  readonly limits: DoorLimits
  /** The config's redactions, for the tool definitions a listing shows. */
  readonly redactions: ReadonlyArray<Redaction>
  /** The cache hints of the merged tools/list a 2026-07-28 host gets (CacheHints.ts); CACHE_HINTS' without it. */
  readonly toolsCacheHint?: () => CacheHint
  /** The io.modelcontextprotocol/tasks extension toward 2026-07-28 hosts (TaskFront.ts); not offered without it. */
  readonly tasks?: TaskDeps
}

const INVALID_PARAMS = -32602

const isObject = (value: unknown): value is Record<string, never> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

type Target = NonNullable<ReturnType<Namespace["resolve"]>>

const failure = (
  error: GatewayCallError,
  callId?: string,
  era: Era = "legacy",
  urlElicitation = false
) => {
  const wire = failureToWire(error, callId, era, urlElicitation)
  if (wire instanceof WireError) throw wire
  return wire
}

/**
 * The call's server, tool and arguments; or, when it is refused before the pipeline, why (with what its row records).
 */
const admit = (
  deps: FrontDeps,
  name: unknown,
  args: unknown
): { readonly refused: RefusedCall } | { readonly target: Target; readonly args: Record<string, never> } => {
  const target = typeof name === "string" ? deps.namespace.resolve(name) : undefined
  const shown = typeof name === "string" ? name : "(no name)"
  const routed = { serverId: target?.serverId ?? UNROUTED, name: target?.name ?? shown.slice(0, MAX_NAME_LENGTH), args }
  if (target === undefined) return { refused: { ...routed, reason: `Unknown tool: ${shown}` } }
  return isObject(args) ? { target, args } : { refused: { ...routed, reason: "arguments must be an object" } }
}

// A 2026-07-28 server cannot send the host a request of its own: an approval then asks another way.
const hostElicit = (server: Server, era: Era): Elicit | undefined =>
  era === "modern" || server.getClientCapabilities()?.elicitation === undefined
    ? undefined
    : (params) => server.elicitInput({ mode: "form", message: params.message, requestedSchema: params.requestedSchema })

/**
 * The 2026-07-28 cache hints of the gateway's cacheable results: none may be kept (`ttlMs: 0`), and
 * only by the requesting host (`private`). A listing is the gateway's view for one principal (a
 * Cedar policy hides the tools it may not call), and a downstream server or a reload can change it at
 * any moment; a listening host hears of list changes, a cached copy would not. server/discover
 * depends on nothing but this gateway's version, so a host may keep it for a minute. A merged
 * tools/list to a 2026-07-28 host carries its servers' own hints instead, merged so they only
 * tighten (calls/CacheHints.ts).
 */
export const CACHE_HINTS = {
  "tools/list": { ttlMs: 0, cacheScope: "private" },
  "prompts/list": { ttlMs: 0, cacheScope: "private" },
  "resources/list": { ttlMs: 0, cacheScope: "private" },
  "resources/templates/list": { ttlMs: 0, cacheScope: "private" },
  "resources/read": { ttlMs: 0, cacheScope: "private" },
  "server/discover": { ttlMs: 60_000, cacheScope: "private" }
} as const

/**
 * A server's tool as a host's listing shows it: under its host-side name, redacted; undefined when redaction hides it.
 */
export const listedTool = (deps: FrontDeps, tool: Tool) => {
  const listed = redactDefinition(
    toWireTool(tool, deps.namespace.expose(tool.serverId, tool.name)),
    redactionsFor(deps.redactions, tool.serverId, tool.name)
  )
  // MCP Apps: the tool's UI resource URI as the host reads it through the gateway.
  return listed === undefined ? undefined : exposeTool(deps.namespace, tool.serverId, listed)
}

/**
 * Builds the MCP server for one host connection, or (`connection` false) for one request; `principal` is who it
 * authenticated as, `era` the revision it serves. It is a connected host (HostSessions) unless it serves one request of
 * a 2026-07-28 host over HTTP, whose unsolicited notifications go through `subscriptions/listen` (ListenBridge.ts); a
 * modern server asks its host nothing.
 */
export const makeFrontServer = (
  deps: FrontDeps,
  principal: Principal | undefined,
  era: Era = "legacy",
  connection = true
): Server => {
  const server = new Server(
    { name: "interlock-gateway", version: deps.version },
    // A 2025 host never gets input_required: the SDK's shim, which would ask it in the call's stead, is off.
    {
      capabilities: era === "modern" && deps.tasks !== undefined
        ? { ...FRONT_CAPABILITIES, ...TASKS_CAPABILITY }
        : FRONT_CAPABILITIES,
      cacheHints: CACHE_HINTS,
      inputRequired: { legacyShim: false }
    }
  )
  const host = { server }
  // The connection travels with each of its requests, so that a server's own requests are asked of exactly this host.
  const run: Runner = (effect, signal) => deps.run(Effect.provideService(effect, CurrentHostSession, host), signal)
  const options = principal === undefined ? {} : { principal }
  // A tools/call refused at the door is audited too, under its name cut to the cap.
  const handle = admitted(server, deps.limits, (request, reason, signal) => {
    if (request.method !== "tools/call") return Promise.resolve()
    const name = String((request.params as { readonly name?: unknown } | undefined)?.name ?? "")
    const shown = name.length > MAX_NAME_LENGTH ? `${name.slice(0, MAX_NAME_LENGTH)}…` : name
    return run(
      Effect.ignore(deps.calls.refuse({ serverId: UNROUTED, name: shown, args: undefined, reason }, options)),
      signal
    )
  })

  handle("tools/list", (_request, ctx: ServerContext) =>
    run(
      Effect.map(deps.calls.listTools(undefined, options), (tools) => ({
        tools: orderTools(tools, deps.namespace.serverIds).flatMap((tool) => {
          const listed = listedTool(deps, tool)
          return listed === undefined ? [] : [listed]
        }),
        // Read after the listing, so the hints are those of the lists just merged.
        ...(era === "modern" && deps.toolsCacheHint !== undefined ? deps.toolsCacheHint() : {})
      })),
      ctx.mcpReq.signal
    ))

  handle("tools/call", (request, ctx: ServerContext) => {
    const params = request.params
    const checked = admit(deps, params.name, params.arguments ?? {})
    // The gateway names the call here, so that a refused or failed call can name its audit row to the host.
    const callId = crypto.randomUUID()
    if ("refused" in checked) {
      const refused = { ...checked.refused, callId }
      return run(Effect.result(deps.calls.refuse(refused, options)), ctx.mcpReq.signal).then((result) => {
        if (Result.isFailure(result)) return failure(result.failure, undefined, era)
        throw new WireError(INVALID_PARAMS, refused.reason, { [CALL_ID_META]: callId })
      })
    }
    const { target, args } = checked
    const progressToken = params._meta?.progressToken
    const end = deps.hosts.begin(
      host,
      target.serverId,
      requestNotify((notification) => ctx.mcpReq.notify(notification), era, requestLogLevel(ctx))
    )
    // Progress sent before the result must reach the host before it: the result waits for them.
    const notified: Array<Promise<unknown>> = []
    const sendProgress = progressToken === undefined ? undefined : (progress: Progress) => {
      notified.push(
        ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken, ...progress } }).catch(
          () => undefined
        )
      )
    }
    // A host that takes tasks may get the server's task, under the gateway's id; its row then waits for the task's end.
    const taskAudit: TaskAudit | undefined = era === "modern" && deps.tasks !== undefined && hostTakesTasks(ctx)
      ? {}
      : undefined
    const call = deps.calls.callTool(
      { serverId: target.serverId, name: target.name, args, callId },
      { ...options, ...(sendProgress === undefined ? {} : { onProgress: sendProgress }) }
    ).pipe(
      Effect.provideService(CurrentElicit, hostElicit(server, era)),
      Effect.provideService(CurrentHostToolUseId, hostToolUseId(params._meta)),
      Effect.provideService(CurrentTaskAudit, taskAudit),
      // While the call waits for a person, the host hears progress (its request would time out otherwise).
      Effect.provideService(CurrentApprovalProgress, sendProgress)
    )
    return run(Effect.result(withRequest(call, server, ctx, era)), ctx.mcpReq.signal)
      .then((result) => Promise.all(notified).then(() => result))
      .then((result) => {
        if (Result.isFailure(result)) {
          if (isInputRequired(result.failure)) return inputRequiredCall(result.failure, era, callId)
          // A host that takes URL elicitation is asked to open a connect link, once per call in the modern era.
          const answered = era === "modern" && Object.hasOwn(ctx.mcpReq.inputResponses ?? {}, CONNECT_INPUT)
          return failure(result.failure, callId, era, hostTakesUrlElicitation(server, ctx) && !answered)
        }
        deps.features.noteResult(target.serverId, result.success.content)
        const task = taskAudit === undefined
          ? undefined
          : createdTaskResult(deps.tasks, result.success.meta, {
            serverId: target.serverId,
            tool: target.name,
            principal: principal?.id ?? "",
            audit: taskAudit
          }, deps.redactions)
        // A CreateTaskResult is a tools/call result of the extension's, which the SDK's types do not know.
        if (task !== undefined) return task as never
        const wire = toWireResult(result.success)
        const content = exposeContentUris(deps.namespace, target.serverId, wire.content)
        return content === wire.content ? wire : { ...wire, content: [...content] }
      })
      .finally(end)
  })

  registerFeatures(
    handle,
    host,
    deps.features,
    run,
    options,
    (effect, ctx) => withRequest(effect, server, ctx, era),
    era
  )

  if (era === "modern" && deps.tasks !== undefined) {
    registerTaskMethods(server, deps.tasks, principal?.id ?? "", () => deps.redactions, deps.run)
  }

  // A server of one request is no connected host.
  const remove = connection ? deps.hosts.add(host) : () => undefined
  const previous = server.onclose
  server.onclose = () => {
    remove()
    deps.features.hostClosed(host)
    previous?.()
  }
  return server
}
