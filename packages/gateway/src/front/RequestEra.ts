/**
 * What the protocol era of a host's request changes in the front: the request's own data the call path gets in its
 * context (`withRequest`: client info and the `_meta` keys to pass on; for a 2026-07-28 request, the answers and state
 * of a multi-round-trip retry), and how a call that fails with InputRequired is answered: `input_required` to a
 * 2026-07-28 host, a refusal to a 2025 host, whose revision cannot carry it.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  type InputRequests,
  inputRequired,
  type InputRequiredResult,
  LOG_LEVEL_META_KEY,
  ProtocolError as WireError,
  type Server,
  type ServerContext
} from "@modelcontextprotocol/server"
import { Effect } from "effect"
import { CurrentHostClient, type HostClient } from "../calls/HostClient.ts"
import { ASKED, CurrentHostMeta, hostMeta, pickHostMeta, RELAYED } from "../calls/HostMeta.ts"
import { CurrentHostInput, type HostInput, type InputRequired } from "../calls/InputRound.ts"
import type { Era } from "./Era.ts"
import { CALL_ID_META, ERROR_META } from "./WireConvert.ts"

/** The protocol era a front server serves (Era.ts). */
export type { Era } from "./Era.ts"

/** The longest client name or version passed on (the host chooses them). */
const MAX_CLIENT_FIELD = 200

const field = (value: unknown): string | undefined =>
  typeof value === "string" ? value.slice(0, MAX_CLIENT_FIELD) : undefined

/**
 * The host's client info as hooks see it: legacy from initialize, modern from the request's
 * envelope (over HTTP the SDK also seeds the server with it per request; on stdio it does not).
 */
export const hostClient = (server: Server, ctx?: ServerContext): HostClient | undefined => {
  // The SDK types the envelope as `{}`; the SDK validated its clientInfo as an Implementation, and `field` reads only
  // strings.
  const envelope: Readonly<Record<string, unknown>> | undefined = ctx?.mcpReq.envelope
  const info = (server.getClientVersion() ?? envelope?.[CLIENT_INFO_META_KEY]) as {
    readonly name?: unknown
    readonly version?: unknown
  } | undefined
  const name = field(info?.name)
  return name === undefined ? undefined : { name, version: field(info?.version) ?? "" }
}

/**
 * The host's client capabilities: from the request's envelope (2026-07-28, which stdio does not seed into the server),
 * else from initialize.
 */
const hostCapabilities = (server: Server, ctx: ServerContext): unknown => {
  const envelope: Readonly<Record<string, unknown>> | undefined = ctx.mcpReq.envelope
  return envelope?.[CLIENT_CAPABILITIES_META_KEY] ?? server.getClientCapabilities()
}

/**
 * What a 2026-07-28 request carries for the call path (InputRound.ts's signal): the answers and
 * state of a retry (none on a first request), and whether the host declared form elicitation in
 * the request's client capabilities (`elicitation: {}` alone means form).
 */
export const hostInputOf = (server: Server, ctx: ServerContext): HostInput => {
  const requestState = ctx.mcpReq.requestState<unknown>()
  const elicitation = (hostCapabilities(server, ctx) as
    | { readonly elicitation?: { readonly form?: unknown; readonly url?: unknown } }
    | undefined)?.elicitation
  return {
    inputResponses: ctx.mcpReq.inputResponses ?? {},
    requestState: typeof requestState === "string" ? requestState : undefined,
    elicitation: elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined)
  }
}

/** Whether the host declared URL-mode elicitation (`elicitation: { url: {} }`), per request or at initialize. */
export const hostTakesUrlElicitation = (server: Server, ctx: ServerContext): boolean =>
  (hostCapabilities(server, ctx) as { readonly elicitation?: { readonly url?: unknown } } | undefined)?.elicitation
    ?.url !== undefined

/** The log level a 2026-07-28 request's envelope asks for (the SDK checked it is one), if any. */
export const requestLogLevel = (ctx: ServerContext): unknown =>
  (ctx.mcpReq.envelope as Readonly<Record<string, unknown>> | undefined)?.[LOG_LEVEL_META_KEY]

/**
 * Runs `effect` with what a request hands its call path: the host's client info, what passes on to
 * the server (HostMeta.ts: capabilities, client info, trace context, log level), and in the modern
 * era the host's input.
 */
export const withRequest = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  server: Server,
  ctx: ServerContext,
  era: Era
): Effect.Effect<A, E, R> => {
  const client = hostClient(server, ctx)
  // A 2025 request has no per-request log level (its host sets one with logging/setLevel).
  const picked = pickHostMeta(ctx.mcpReq._meta, era === "modern" ? requestLogLevel(ctx) : undefined)
  const meta = {
    ...hostMeta(hostCapabilities(server, ctx), client, era === "modern" ? RELAYED : ASKED, era === "modern"),
    ...picked
  }
  const provided = effect.pipe(
    Effect.provideService(CurrentHostClient, client),
    Effect.provideService(CurrentHostMeta, meta)
  )
  return era === "modern" ? Effect.provideService(provided, CurrentHostInput, hostInputOf(server, ctx)) : provided
}

/** Whether a call's failure is InputRequired (the call path's multi-round-trip request). */
export const isInputRequired = (failure: unknown): failure is InputRequired =>
  typeof failure === "object" && failure !== null && "_tag" in failure && failure._tag === "InputRequired"

/** The message a 2025 host gets for a call that needs input its revision cannot carry. */
export const NEEDS_MODERN =
  "Interlock: this request needs input from the host that only the 2026-07-28 revision can carry, so it was refused"

/**
 * A tools/call that failed with InputRequired, for the host: `input_required` (its requests and sealed state) in the
 * modern era; in the legacy era an isError result, as a denial is (it never reaches the wire as a success).
 */
export const inputRequiredCall = (
  failure: InputRequired,
  era: Era,
  callId: string
): InputRequiredResult | {
  readonly content: Array<{ type: "text"; text: string }>
  readonly isError: true
  readonly _meta: Record<string, string>
} =>
  era === "modern"
    // The requests are built by the gateway's own call path in MCP's embedded-request shapes.
    ? inputRequired({ inputRequests: failure.inputRequests as InputRequests, requestState: failure.requestState })
    : {
      content: [{ type: "text", text: NEEDS_MODERN }],
      isError: true,
      _meta: { [ERROR_META]: "InputRequired", [CALL_ID_META]: callId }
    }

/**
 * A prompts/get or resources/read that failed with InputRequired: `input_required` in the modern era, else a JSON-RPC
 * error.
 */
export const inputRequiredRead = (failure: InputRequired, era: Era): InputRequiredResult => {
  if (era === "legacy") throw new WireError(-32600, NEEDS_MODERN)
  return inputRequired({ inputRequests: failure.inputRequests as InputRequests, requestState: failure.requestState })
}
