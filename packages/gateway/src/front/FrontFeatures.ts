/**
 * The host-facing handlers of every MCP feature beyond tools: resources (list, templates, read,
 * subscribe, unsubscribe), prompts (list, get), completion and logging/setLevel, each handed to the
 * FeatureForwarder and its answer or typed failure turned into MCP's wire shapes. Every handler of
 * a front server is registered through `admitted`, which applies the door caps (DoorLimits) first.
 */
import type { OperationOptions, ProtocolError } from "@interlock/core"
import {
  type HandlerResultTypeMap,
  ProtocolError as WireError,
  type RequestMethod,
  type RequestTypeMap,
  ResourceNotFoundError,
  type Server,
  type ServerContext
} from "@modelcontextprotocol/server"
import { Effect, Result } from "effect"
import type { FeatureForwarderShape, GateFailure } from "../calls/FeatureForwarder.ts"
import type { HostSession } from "../calls/HostSessions.ts"
import { hostErrorCode, LEGACY_RESOURCE_NOT_FOUND } from "./EraErrorCodes.ts"
import { type DoorLimits, overLimit } from "./http/DoorLimits.ts"
import { type Era, inputRequiredRead, isInputRequired } from "./RequestEra.ts"
import type { Runner } from "./Runner.ts"
import { requiredData, stateRefusedToWire } from "./WireConvert.ts"

/** The capabilities a front server declares: everything, since servers may connect later. */
export const FRONT_CAPABILITIES = {
  tools: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  completions: {},
  logging: {}
} as const

const INVALID_PARAMS = -32602

/**
 * The data of a server's error on a read, get or completion: the names of the capabilities a -32021
 * needs, and for a resource the host asked for that the server did not find, that URI (the host's
 * own, as the revision's resource-not-found error carries it). Nothing else of the server's data.
 */
const protocolErrorData = (
  error: ProtocolError,
  uri: string | undefined,
  era: Era
): Record<string, unknown> | undefined => {
  const notFound = uri !== undefined && (error.code === LEGACY_RESOURCE_NOT_FOUND || error.code === INVALID_PARAMS)
  const data = { ...requiredData(error, era), ...(notFound ? { uri } : {}) }
  return Object.keys(data).length === 0 ? undefined : data
}

/** A failed read, get, subscription or completion as the JSON-RPC error the host gets (`uri` for a resource). */
export const gateFailureToWire = (error: GateFailure, uri?: string, era: Era = "legacy"): WireError => {
  switch (error._tag) {
    case "Unrouted":
      // An unknown resource, numbered as the host's era numbers it, with the URI the host sent as data.
      return error.what === "resource" && uri !== undefined
        ? new ResourceNotFoundError(uri)
        : new WireError(INVALID_PARAMS, `Interlock: ${error.message}`)
    case "ProtocolError":
      return new WireError(hostErrorCode(error.code, era), error.detail, protocolErrorData(error, uri, era))
    case "Denied":
      return new WireError(-32600, `Interlock: ${error.message}`)
    case "StateRefused":
      return stateRefusedToWire(error)
    default:
      return new WireError(-32603, `Interlock: ${error.message}`)
  }
}

/** Registers a request handler on a front server; the request has passed the door caps when it runs. */
export type Handle = <M extends RequestMethod>(
  method: M,
  handler: (
    request: RequestTypeMap[M],
    ctx: ServerContext
  ) => HandlerResultTypeMap[M] | Promise<HandlerResultTypeMap[M]>
) => void

/** Told of a request refused at the door (the cap's message, never the value), before the host is answered. */
export type OnRefused = (
  request: { readonly method: string; readonly params?: unknown },
  reason: string,
  signal: AbortSignal
) => Promise<void>

/**
 * The registrar of a front server's handlers: a request past a cap is answered with an error naming
 * the cap, never the value, once `onRefused` (the audit of a refused call) has settled.
 */
export const admitted = (server: Server, limits: DoorLimits, onRefused?: OnRefused): Handle => (method, handler) =>
  server.setRequestHandler(method, (request, ctx) => {
    const over = overLimit(request, ctx.mcpReq.id, limits)
    if (over === undefined) return handler(request, ctx)
    // The id and the progress token make the request itself invalid; the rest are its params.
    const error = new WireError(over.limit === "MAX_ID_LENGTH" ? -32600 : INVALID_PARAMS, over.message)
    if (onRefused === undefined) throw error
    return onRefused(request, over.message, ctx.mcpReq.signal).then(() => Promise.reject(error))
  })

// Core types a resource's contents and a prompt's messages as JSON records; they are a server's
// answer that mcp's client validated against these very shapes (Convert.ts), so the casts only
// restore what the SDK already checked.
type WireContents = Extract<HandlerResultTypeMap["resources/read"], { readonly contents: unknown }>["contents"]
type WireMessages = Extract<HandlerResultTypeMap["prompts/get"], { readonly messages: unknown }>["messages"]

const noCursor = (params: { readonly cursor?: unknown } | undefined) => {
  // Listings are answered whole (every server, every page), so no cursor of ours exists.
  if (params?.cursor !== undefined) {
    throw new WireError(INVALID_PARAMS, "Interlock: unknown cursor (listings are not paginated)")
  }
}

const withMeta = <A extends Record<string, unknown>>(body: A, meta: unknown): A =>
  meta === undefined ? body : { ...body, _meta: meta }

/** Runs a request's Effect with what the request hands the call path (RequestEra's `withRequest`). */
export type WithRequest = <A, E>(effect: Effect.Effect<A, E>, ctx: ServerContext) => Effect.Effect<A, E>

/**
 * Registers the handlers on one host's server; `options` are its requests' (their principal),
 * `withRequest` gives each request's Effect that request's own values.
 */
export const registerFeatures = (
  handle: Handle,
  host: HostSession,
  forwarder: FeatureForwarderShape,
  run: Runner,
  options: OperationOptions,
  withRequest: WithRequest,
  era: Era = "legacy"
): void => {
  const answer = <A>(effect: Effect.Effect<A, GateFailure>, ctx: ServerContext, uri?: string): Promise<A> =>
    run(Effect.result(withRequest(effect, ctx)), ctx.mcpReq.signal).then(
      (result) => {
        if (Result.isSuccess(result)) return result.success
        // A read or get that needs the host's input (the multi-round-trip request of the 2026-07-28 revision).
        if (isInputRequired(result.failure)) return inputRequiredRead(result.failure, era) as A
        throw gateFailureToWire(result.failure, uri, era)
      },
      () => {
        // A defect or an interruption: say nothing about it beyond that it failed.
        throw new WireError(-32603, "Interlock: the request failed")
      }
    )

  handle("resources/list", (request, ctx) => {
    noCursor(request.params)
    return answer(
      Effect.map(forwarder.listResources(options), (resources) => ({ resources: [...resources] })),
      ctx
    )
  })
  handle("resources/templates/list", (request, ctx) => {
    noCursor(request.params)
    return answer(
      Effect.map(forwarder.listResourceTemplates(options), (templates) => ({ resourceTemplates: [...templates] })),
      ctx
    )
  })
  handle("resources/read", (request, ctx) =>
    answer(
      Effect.map(forwarder.readResource(request.params.uri, options), (read) =>
        withMeta({ contents: [...read.contents] as WireContents }, read.meta)),
      ctx,
      request.params.uri
    ))
  handle(
    "resources/subscribe",
    (request, ctx) =>
      answer(Effect.as(forwarder.subscribe(host, request.params.uri, options), {}), ctx, request.params.uri)
  )
  handle(
    "resources/unsubscribe",
    (request, ctx) => answer(Effect.as(forwarder.unsubscribe(host, request.params.uri), {}), ctx)
  )
  handle("prompts/list", (request, ctx) => {
    noCursor(request.params)
    return answer(Effect.map(forwarder.listPrompts(options), (prompts) => ({ prompts: [...prompts] })), ctx)
  })
  handle("prompts/get", (request, ctx) =>
    answer(
      Effect.map(forwarder.getPrompt(request.params.name, request.params.arguments ?? {}, options), (prompt) =>
        withMeta({
          ...(prompt.description === undefined ? {} : { description: prompt.description }),
          messages: [...prompt.messages] as WireMessages
        }, prompt.meta)),
      ctx
    ))
  handle("completion/complete", (request, ctx) => answer(forwarder.complete(request.params, options), ctx))
  handle(
    "logging/setLevel",
    (request, ctx) => answer(Effect.as(forwarder.setLoggingLevel(host, request.params.level), {}), ctx)
  )
}
