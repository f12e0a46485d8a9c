/**
 * Interlock: assembles hooks, policy, approvals and a transport into the `ToolCalls` service, or, for an app that
 * does not use Effect, into a client with Promise methods:
 *   Interlock.layer({ hooks, policy: Policy.rules({ ... }) }).pipe(Layer.provide(transportLayer))
 *   const client = Interlock.client({ hooks, policy, transport: transportLayer })
 */
import { type Duration, Effect, Layer, Result } from "effect"
import type { HooksConfig, NoHooks } from "../hooks/HookConfig.ts"
import { Hooks, type HooksRequirements } from "../hooks/Hooks.ts"
import * as CallProgram from "../internal/CallProgram.ts"
import { type ClientState, makeContextCache } from "../internal/ClientState.ts"
import * as Gates from "../internal/Gates.ts"
import { makeSelector } from "../internal/HookChain.ts"
import * as Supervisor from "../internal/Supervisor.ts"
import { ConfigError } from "../model/Errors.ts"
import { isDeadline, toMillis } from "../model/Millis.ts"
import { Approvals } from "../policy/Approvals.ts"
import { type Matcher, type MatcherInput, parseMatcher, restricts } from "../policy/Matcher.ts"
import { Policy } from "../policy/Policy.ts"
import * as PromiseClient from "./PromiseClient.ts"
import { ToolCalls } from "./ToolCalls.ts"
import { ToolTransport } from "./ToolTransport.ts"

/** Which tools a client exposes: `allow` (if given) must match, `deny` must not. Names compare loosely. */
export interface ToolsFilter {
  readonly allow?: ReadonlyArray<MatcherInput>
  readonly deny?: ReadonlyArray<MatcherInput>
}

/** Settings of a client, apart from its services. */
export interface Settings {
  /** The client's name, passed to hooks as `ctx.client`; default "interlock". */
  readonly client?: string
  /** Default hook deadline; default 5 seconds. */
  readonly hookTimeout?: Duration.Input
  /** Default deadline of a transport call; default 60 seconds. */
  readonly callTimeout?: Duration.Input
  /** Deadline of a custom policy decision; default the hookTimeout. A policy that misses it denies. */
  readonly policyTimeout?: Duration.Input
  /** Tools hidden from this client are Denied (not exposed) and dropped from listings. */
  readonly tools?: ToolsFilter
  /** Deny calls to a tool whose definition changed since first seen (needs a transport that pins tools). */
  readonly pinTools?: boolean
  /**
   * Drop from listings the tools the policy would deny whatever the arguments (one policy over
   * listings and calls), so a model is not offered tools it can never use. Default false.
   */
  readonly hideDenied?: boolean
}

/** Options of {@link layer}: settings plus the hooks config and the policy and approvals Layers. */
export interface Options<C extends HooksConfig, PE, PR, AE, AR> extends Settings {
  /**
   * The hooks config. For hooks compiled ahead with `Hooks.compile`, or swapped per test, use
   * {@link layerFromServices} with `Hooks.layer(compiled)`.
   */
  readonly hooks?: C
  /** The only allow authority. Required: there is no implicit allow. */
  readonly policy: Layer.Layer<Policy, PE, PR>
  /** Answers the policy's Ask; default `Approvals.none` (every Ask is denied). */
  readonly approvals?: Layer.Layer<Approvals, AE, AR>
}

const positiveMillis = (path: string, input: Duration.Input | undefined, fallback: number): number | ConfigError => {
  if (input === undefined) return fallback
  const millis = toMillis(input)
  return isDeadline(millis) ? millis : new ConfigError({ path, detail: "must be a positive, finite duration" })
}

const compileFilter = (
  filter: ToolsFilter | undefined
): ((serverId: string, name: string) => boolean) | ConfigError => {
  if (filter === undefined) return () => true
  const compile = (key: "allow" | "deny"): Array<Matcher> | ConfigError | undefined => {
    const list = filter[key]
    if (list === undefined) return undefined
    if (!Array.isArray(list)) return new ConfigError({ path: `tools.${key}`, detail: "must be an array of matchers" })
    const out: Array<Matcher> = []
    for (let i = 0; i < list.length; i++) {
      const matcher = parseMatcher(list[i])
      if (Result.isFailure(matcher)) return new ConfigError({ path: `tools.${key}[${i}]`, detail: matcher.failure })
      out.push(matcher.success)
    }
    return out
  }
  const allow = compile("allow")
  if (allow instanceof ConfigError) return allow
  const deny = compile("deny") ?? []
  if (deny instanceof ConfigError) return deny
  return (serverId, name) =>
    (allow === undefined || allow.some((m) => m.test(serverId, name))) &&
    !deny.some((m) => restricts(m, serverId, name))
}

/**
 * Builds the ToolCalls service from the Hooks, Policy, Approvals and ToolTransport services in
 * context. Hook, custom-policy and request fibers are supervised in the Layer's scope (Supervisor.ts):
 * closing it interrupts them, and waits at most the hookTimeout for them.
 */
export const make = (settings: Settings = {}) =>
  Effect.gen(function*() {
    const hookTimeoutMs = positiveMillis("hookTimeout", settings.hookTimeout, 5_000)
    if (hookTimeoutMs instanceof ConfigError) return yield* hookTimeoutMs
    const callTimeoutMs = positiveMillis("callTimeout", settings.callTimeout, 60_000)
    if (callTimeoutMs instanceof ConfigError) return yield* callTimeoutMs
    const policyTimeoutMs = positiveMillis("policyTimeout", settings.policyTimeout, hookTimeoutMs)
    if (policyTimeoutMs instanceof ConfigError) return yield* policyTimeoutMs
    const exposed = compileFilter(settings.tools)
    if (exposed instanceof ConfigError) return yield* exposed
    const hooks = yield* Hooks
    const supervisor = yield* Supervisor.make(hookTimeoutMs)
    const client: ClientState = {
      name: settings.client ?? "interlock",
      env: { supervisor, hookTimeoutMs, context: hooks.context, hasContext: hooks.context.mapUnsafe.size > 0 },
      select: makeSelector(hooks.byEvent),
      byEvent: hooks.byEvent,
      policy: yield* Policy,
      approvals: yield* Approvals,
      transport: yield* ToolTransport,
      callTimeoutMs,
      policyTimeoutMs,
      pinTools: settings.pinTools === true,
      hideDenied: settings.hideDenied === true,
      exposed,
      contexts: makeContextCache()
    }
    return ToolCalls.of({
      callTool: (input, options) => CallProgram.callTool(client, input, options),
      listTools: (serverId, options) => Gates.listTools(client, serverId, options),
      readResource: (serverId, uri, options) => Gates.readResource(client, serverId, uri, options),
      getPrompt: (serverId, name, args, options) => Gates.getPrompt(client, serverId, name, args ?? {}, options),
      decideRead: (serverId, uri, options) => Gates.decideRead(client, serverId, uri, options),
      decidePrompt: (serverId, name, args, options) => Gates.decidePrompt(client, serverId, name, args ?? {}, options),
      visibleOperations: (entries, operationOf, options) =>
        Gates.visibleOperations(client, entries, operationOf, options)
    })
  })

/** ToolCalls from services in context: provide Hooks, Policy, Approvals and a ToolTransport. */
export const layerFromServices = (settings: Settings = {}): Layer.Layer<
  ToolCalls,
  ConfigError,
  Hooks | Policy | Approvals | ToolTransport
> => Layer.effect(ToolCalls, make(settings))

/**
 * ToolCalls from a hooks config, a policy Layer and (optionally) an approvals Layer. Merge it with
 * a transport Layer. Hook Effect requirements become the Layer's requirements.
 */
export function layer<const C extends HooksConfig, PE = never, PR = never, AE = never, AR = never>(
  options: Options<C, PE, PR, AE, AR> & { readonly hooks: C }
): Layer.Layer<ToolCalls, ConfigError | PE | AE, ToolTransport | HooksRequirements<C> | PR | AR>
/** ToolCalls with no hooks: the policy and approvals alone. */
export function layer<PE = never, PR = never, AE = never, AR = never>(
  options: Options<NoHooks, PE, PR, AE, AR>
): Layer.Layer<ToolCalls, ConfigError | PE | AE, ToolTransport | PR | AR>
// Overloads rather than a defaulted type parameter: a default for C would become the contextual
// type of the hook functions and cost them their inferred parameter types.
export function layer(
  options: Options<HooksConfig, unknown, unknown, unknown, unknown>
): Layer.Layer<ToolCalls, unknown, unknown> {
  return layerFromServices(options).pipe(
    Layer.provide(
      Layer.mergeAll(
        Hooks.layer(options.hooks ?? {}),
        options.policy,
        options.approvals ?? Approvals.none
      )
    )
  )
}

/** Options of {@link client}: those of {@link layer}, plus the transport. */
export interface ClientOptions<C extends HooksConfig, PE, AE, TE> extends Options<C, PE, never, AE, never> {
  /** The ToolTransport Layer: `ToolTransport.fromTools([...])`, or a transport or hub of `@interlock/mcp`. */
  readonly transport: Layer.Layer<ToolTransport, TE>
}

/** A Promise client has no way to provide services: its hooks must require none. */
type NoRequirements<C> = [HooksRequirements<C>] extends [never] ? unknown
  : { readonly hooks: "the hooks of Interlock.client must not require services: provide them inside each hook" }

/**
 * A client with Promise methods (`callTool`, `listTools`, `readResource`, `getPrompt`, `close`) for
 * apps that don't use Effect: the same hooks, policy, receipts and typed errors as {@link layer}, over
 * a ManagedRuntime. The Layers are built on first use; `close()` releases them.
 */
export function client<const C extends HooksConfig, PE = never, AE = never, TE = never>(
  options: ClientOptions<C, PE, AE, TE> & { readonly hooks: C } & NoRequirements<C>
): PromiseClient.InterlockClient
/** A Promise client with no hooks: the policy and approvals alone. */
export function client<PE = never, AE = never, TE = never>(
  options: ClientOptions<NoHooks, PE, AE, TE> & { readonly hooks?: undefined }
): PromiseClient.InterlockClient
export function client(options: ClientOptions<HooksConfig, unknown, unknown, unknown>): PromiseClient.InterlockClient {
  // An app without a type checker may pass anything: name the option that is not a Layer.
  const notLayer = (["transport", "policy", "approvals"] as const).find((key) =>
    (key !== "approvals" || options[key] !== undefined) && !Layer.isLayer(options[key])
  )
  if (notLayer !== undefined) {
    return PromiseClient.make(
      Layer.effect(ToolCalls, Effect.fail(new ConfigError({ path: notLayer, detail: "must be a Layer" })))
    )
  }
  // The overloads above reject hooks that require services, so the built Layer requires none.
  const live = layer(options).pipe(Layer.provide(options.transport)) as Layer.Layer<ToolCalls, unknown>
  return PromiseClient.make(live)
}
