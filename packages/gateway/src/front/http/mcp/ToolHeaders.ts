/**
 * The `Mcp-Param-*` gate of one principal's 2026-07-28 front (ModernRoute.ts): it learns the headers each tool declares
 * from the listings that principal's hosts are shown (as listed, after namespacing and redaction), and refuses a
 * tools/call whose headers disagree with its body (ParamHeaders.ts) before the SDK's handler, the pipeline or the audit
 * see it. A call to a server not yet listed: `makeToolHeaders`.
 */
import type { Principal } from "@interlock/core"
import { Effect } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import { type FrontDeps, listedTool } from "../../FrontServer.ts"
import { rpcRefusal } from "./McpWire.ts"
import {
  checkParamHeaders,
  declaredHeaders,
  HEADER_MISMATCH,
  type HeaderMismatch,
  type ParamHeader
} from "./ParamHeaders.ts"

/** The gate of one principal's front. */
export interface ToolHeaders {
  /** The front deps its servers use: the same deps, whose tool listings teach the gate. */
  readonly deps: FrontDeps
  /**
   * Why a tools/call (its body parsed) is refused for its headers; undefined when they agree. The gate runs before the
   * SDK's own checks, so a call that also fails its standard headers or envelope is answered here.
   */
  readonly refusal: (req: IncomingMessage, body: Record<string, unknown>) => Promise<HeaderMismatch | undefined>
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * The gate for `principal`'s front over the gateway's `deps`. A call to a server none of whose listings it has seen
 * lists that server first (one listing at a time). When that listing fails the call goes on unchecked: the gateway acts
 * on the body alone, and a server that cannot list its tools fails the call on its own path, audited.
 */
export const makeToolHeaders = (deps: FrontDeps, principal: Principal | undefined): ToolHeaders => {
  // By server, then tool (its own name): the declared headers of the tools that declare any.
  const servers = new Map<string, Map<string, ReadonlyArray<ParamHeader>>>()
  const pending = new Map<string, Promise<void>>()

  const learn = (serverId: string | undefined, tools: ReadonlyArray<Parameters<typeof listedTool>[1]>) => {
    // A listing of every server is the whole view; one of a single server replaces that server's.
    if (serverId === undefined) servers.clear()
    else servers.set(serverId, new Map())
    for (const tool of tools) {
      const table = servers.get(tool.serverId) ?? new Map()
      servers.set(tool.serverId, table)
      // Redaction only rewrites what a schema says: one that declares nothing before it declares nothing after.
      const declared = declaredHeaders(tool.inputSchema).length === 0
        ? []
        : declaredHeaders(listedTool(deps, tool)?.inputSchema)
      if (declared.length > 0) table.set(tool.name, declared)
    }
  }

  const listTools: FrontDeps["calls"]["listTools"] = (serverId, options) =>
    Effect.tap(deps.calls.listTools(serverId, options), (tools) => Effect.sync(() => learn(serverId, tools)))
  // Read through to the gateway's deps (their getters follow config reloads); only the listing is wrapped.
  const taught: FrontDeps = Object.assign(Object.create(deps) as FrontDeps, { calls: { ...deps.calls, listTools } })

  // Not bound to the asking request: one that goes away must not leave the others waiting on it unchecked.
  const listed = (serverId: string): Promise<void> => {
    const known = pending.get(serverId)
    if (known !== undefined) return known
    const listing = deps.run(
      Effect.ignore(listTools(serverId, principal === undefined ? {} : { principal })),
      new AbortController().signal
    )
      .catch(() => undefined)
      .finally(() => pending.delete(serverId))
    pending.set(serverId, listing)
    return listing
  }

  const declarations = async (name: unknown): Promise<ReadonlyArray<ParamHeader>> => {
    const target = typeof name === "string" ? deps.namespace.resolve(name) : undefined
    if (target === undefined) return []
    if (!servers.has(target.serverId)) await listed(target.serverId)
    return servers.get(target.serverId)?.get(target.name) ?? []
  }

  return {
    deps: taught,
    refusal: async (req, body) => {
      const params = isObject(body.params) ? body.params : {}
      const declared = await declarations(params.name)
      return declared.length === 0
        ? undefined
        : checkParamHeaders(declared, params.arguments, (header) => req.headersDistinct[header])
    }
  }
}

/** Answers a refused call: HTTP 400 with HeaderMismatch, under the request's id. */
export const refuseCall = (res: ServerResponse, id: unknown, refusal: HeaderMismatch): void =>
  rpcRefusal(res, id, { code: HEADER_MISMATCH, message: refusal.message, data: { header: refusal.header } })
