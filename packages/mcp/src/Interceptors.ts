/**
 * Interlock as an interceptor host (SEP-1763): interceptor servers, reached as hub servers are, are read once with
 * `interceptors/list`, and each interceptor becomes a hook on the core events it hooks. Stricter than the SEP: a
 * failure fails closed unless the operator honours a declared failOpen.
 * Use: `Interceptors.layer({ servers })` merged with the policy and approvals under `Interlock.layerFromServices()`.
 */
import { ConfigError, Hooks, type HooksConfig, isDeadline, toMillis } from "@interlock/core"
import { type Duration, Effect, Layer, type Scope } from "effect"
import type { HubOptions, ServerConfig } from "./HubConfig.ts"
import { listInterceptors } from "./InterceptorClient.ts"
import { InterceptorsUnavailable } from "./InterceptorErrors.ts"
import {
  type BoundInterceptor,
  interceptorHooks,
  type Unsupported,
  type VerdictRecord,
  withInterceptorHooks
} from "./InterceptorHooks.ts"
import type { InterceptorDescriptor } from "./InterceptorWire.ts"
import { McpHub } from "./McpHub.ts"

export type { Unsupported, VerdictRecord } from "./InterceptorHooks.ts"
export { withInterceptorHooks } from "./InterceptorHooks.ts"

/** Whether a declared `failOpen: true` is honoured (`as-declared`) or treated as fail-closed (`never`, the default). */
export type FailOpenSetting = "never" | "as-declared"

/** One interceptor server and which of its interceptors run where. */
export interface InterceptorServer {
  /** How it is reached: the hub's server config (`stdio`, `http` or `memory`, reconnect backoff, deadlines). */
  readonly server: ServerConfig
  /** Only these interceptors (by name); default all it lists. Each must be listed. */
  readonly only?: ReadonlyArray<string>
  /** Only on these SEP events (such as `tools/call`); default every event each interceptor hooks. */
  readonly events?: ReadonlyArray<string>
  /** Default `never`. */
  readonly failOpen?: FailOpenSetting
}

/** Options of {@link make} and {@link layer}. */
export interface InterceptorsOptions {
  readonly servers: Readonly<Record<string, InterceptorServer>>
  /** The deadline of one invocation, which is its hook's deadline; default 5 seconds. */
  readonly timeout?: Duration.Input
  /** Told every invocation's verdict (never its payload). */
  readonly onVerdict?: (record: VerdictRecord) => void
  readonly clientInfo?: HubOptions["clientInfo"]
}

/** An interceptor in force, and whether its declared failOpen is honoured. */
export interface InterceptorInForce {
  readonly serverId: string
  readonly descriptor: InterceptorDescriptor
  /** Honoured: declared and allowed by the operator. */
  readonly failOpen: boolean
  /** Declared failOpen that the operator's `never` treats as fail-closed. */
  readonly failOpenRefused: boolean
}

/** What {@link make} gives. */
export interface InterceptorsShape {
  /** The interceptors' hooks, to merge with other hooks by {@link withInterceptorHooks}. */
  readonly hooks: HooksConfig
  readonly interceptors: ReadonlyArray<InterceptorInForce>
  /** What they name that Interlock has no hook for (not run there). */
  readonly unsupported: ReadonlyArray<Unsupported>
}

/** The default deadline of one invocation, core's default hookTimeout. */
export const DEFAULT_TIMEOUT_MS = 5_000

const unavailable = (serverId: string, detail: string) => new InterceptorsUnavailable({ serverId, detail })

/** Reads every server's interceptors (in the current scope, which keeps their connections) and builds their hooks. */
export const make = (
  options: InterceptorsOptions
): Effect.Effect<InterceptorsShape, ConfigError | InterceptorsUnavailable, Scope.Scope> =>
  Effect.gen(function*() {
    const timeoutMs = options.timeout === undefined ? DEFAULT_TIMEOUT_MS : toMillis(options.timeout)
    if (!isDeadline(timeoutMs)) {
      return yield* new ConfigError({ path: "interceptors.timeout", detail: "must be a positive, finite duration" })
    }
    const entries = Object.entries(options.servers)
    const hub = yield* McpHub.make({
      servers: Object.fromEntries(entries.map(([id, entry]) => [id, entry.server])),
      ...(options.clientInfo === undefined ? {} : { clientInfo: options.clientInfo })
    }).pipe(Effect.catchTag(["TransportError", "ProtocolError"], (error) =>
      Effect.fail(unavailable(error.serverId, error.detail))))
    const inForce: Array<InterceptorInForce> = []
    const members: Array<BoundInterceptor> = []
    const owner = new Map<string, string>()
    for (const [serverId, entry] of entries) {
      const listed = yield* listInterceptors(hub.request, serverId)
      const missing = entry.only?.find((name) =>
        !listed.some((d) => d.name === name)
      )
      if (missing !== undefined) {
        return yield* unavailable(serverId, `only names ${JSON.stringify(missing)}, which the server does not list`)
      }
      for (const descriptor of listed) {
        if (entry.only !== undefined && !entry.only.includes(descriptor.name)) continue
        const other = owner.get(descriptor.name)
        if (other !== undefined) {
          return yield* unavailable(
            serverId,
            `lists ${JSON.stringify(descriptor.name)}, which ${other} lists too: interceptor names must be unique`
          )
        }
        owner.set(descriptor.name, serverId)
        const declared = descriptor.failOpen === true
        const failOpen = declared && entry.failOpen === "as-declared"
        inForce.push({ serverId, descriptor, failOpen, failOpenRefused: declared && !failOpen })
        members.push({
          serverId,
          descriptor,
          failOpen,
          events: entry.events === undefined ? undefined : new Set(entry.events)
        })
      }
    }
    const built = interceptorHooks(members, { request: hub.request, timeoutMs, onVerdict: options.onVerdict })
    return { hooks: built.hooks, interceptors: inForce, unsupported: built.unsupported }
  })

/**
 * core's Hooks from interceptor servers, after `hooks` (a hooks config of your own) where {@link withInterceptorHooks}
 * puts them.
 */
export const layer = (
  options: InterceptorsOptions & { readonly hooks?: HooksConfig }
): Layer.Layer<Hooks, ConfigError | InterceptorsUnavailable> =>
  Layer.unwrap(
    Effect.map(make(options), (shape) => Hooks.layer(withInterceptorHooks(options.hooks ?? {}, shape.hooks)))
  )
