/** What one Interlock client holds while it runs: its hooks, services and settings. Internal. */
import { HookContext } from "../hooks/HookContext.ts"
import type { HookEvent } from "../hooks/HookEvent.ts"
import type { ResolvedHook } from "../hooks/Hooks.ts"
import type { ApprovalsShape } from "../policy/Approvals.ts"
import type { PolicyShape } from "../policy/Policy.ts"
import type { OperationOptions } from "../program/ToolCalls.ts"
import type { ToolTransportShape } from "../program/TransportShape.ts"
import { type BoundedCache, makeBoundedCache } from "./BoundedCache.ts"
import type { RunnerEnv } from "./HookChain.ts"
import { makeTrusted } from "./Trusted.ts"

/** One client: the services and settings that every operation uses. */
export interface ClientState {
  readonly name: string
  readonly env: RunnerEnv
  /** The hooks of an event that select (serverId, name), in run order. */
  readonly select: (event: HookEvent, serverId: string, name: string) => ReadonlyArray<ResolvedHook>
  readonly byEvent: { readonly [E in HookEvent]: ReadonlyArray<ResolvedHook> }
  readonly policy: PolicyShape
  readonly approvals: ApprovalsShape
  readonly transport: ToolTransportShape
  /** Default deadline of a transport call, in ms. */
  readonly callTimeoutMs: number
  /** Deadline of a policy decision that does not answer at once, in ms. */
  readonly policyTimeoutMs: number
  /** Drop from listings the tools the policy would deny outright. */
  readonly hideDenied: boolean
  /** Deny calls to tools whose definition changed since it was pinned. */
  readonly pinTools: boolean
  /** The client's tools filter: false hides the tool (calls are Denied, listings drop it). */
  readonly exposed: (serverId: string, name: string) => boolean
  /** The shared hook context per server, for operations without a principal or assigns. */
  readonly contexts: BoundedCache<HookContext>
}

/** The context cache's bound: 1 MiB (estimated). It is keyed by the serverId a caller sends. */
export const CONTEXT_CACHE_BYTES = 1024 * 1024

/** ServerIds longer than this (UTF-16 code units) get a fresh context every time, never cached. */
export const CONTEXT_CACHE_MAX_KEY_LENGTH = 256

/** A client's per-server context cache, bounded by bytes. */
export const makeContextCache = (): BoundedCache<HookContext> =>
  // costOf: a context's estimated bytes beyond its key (it holds the client name and small constants).
  makeBoundedCache({ maxBytes: CONTEXT_CACHE_BYTES, maxKeyLength: CONTEXT_CACHE_MAX_KEY_LENGTH, costOf: () => 200 })

const EMPTY_ASSIGNS: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>

/**
 * The hook context of an operation on `serverId` ("*" for a listing of every server). Operations
 * without a principal or assigns share one context per server (it is immutable), which spares a
 * Schema construction on every call.
 */
export const hookContext = (
  client: ClientState,
  serverId: string,
  options: OperationOptions | undefined
): HookContext => {
  const era = serverId === "*" ? undefined : client.transport.era(serverId)
  if (options?.principal !== undefined || options?.assigns !== undefined) {
    return makeTrusted(HookContext, {
      client: client.name,
      serverId,
      era,
      assigns: options.assigns ?? EMPTY_ASSIGNS,
      principal: options.principal
    })
  }
  let ctx = client.contexts.get(serverId)
  if (ctx === undefined || ctx.era !== era) {
    ctx = makeTrusted(HookContext, { client: client.name, serverId, era, assigns: EMPTY_ASSIGNS, principal: undefined })
    client.contexts.set(serverId, ctx)
  }
  return ctx
}
