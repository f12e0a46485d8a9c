/**
 * The Gateway service: everything one running gateway shares, assembled from a plan. The hub, the audit store, the
 * approval queue and the host sessions live as long as the gateway; the audited calls and what else a config
 * decides are a generation (ConfigGeneration.ts), which a reload replaces in one swap (`apply`). On shutdown,
 * in-flight calls finish (up to a deadline) before the servers are closed.
 */
import { type ConfigError, Principal, type TransportFailure } from "@interlock/core"
import { McpHub, type McpHubShape, type ServerAuth, type ServerConfig as HubServer } from "@interlock/mcp"
import { Context, Effect, FiberSet, Layer } from "effect"
import { auditLayer } from "../audit/AuditLayer.ts"
import { type AuditError, AuditStore, type AuditStoreShape } from "../audit/AuditStore.ts"
import { cacheHintOf, listsPerPrincipal, mergeCacheHints } from "../calls/CacheHints.ts"
import { makeFeatureForwarder } from "../calls/FeatureForwarder.ts"
import { makeGatewayTasks } from "../calls/GatewayTasks.ts"
import { hostRequestsLayer, HostSessions } from "../calls/HostSessions.ts"
import { mergedListing } from "../calls/MergedListing.ts"
import type { Plan, ServerPlan } from "../config/Plan.ts"
import { CredentialBroker, type CredentialBrokerShape } from "../credentials/CredentialBroker.ts"
import { withCredential } from "../credentials/CredentialTransport.ts"
import type { FrontDeps } from "../front/FrontServer.ts"
import { DEFAULT_MAX_ARG_BYTES } from "../front/http/DoorLimits.ts"
import { makeNamespace } from "../governance/Namespace.ts"
import { redactingHostRequestsLayer } from "../governance/RedactingHostRequests.ts"
import { detectAll, type Redaction, redactText } from "../governance/Redactor.ts"
import { ApprovalQueue, type ApprovalQueueShape } from "../state/ApprovalQueue.ts"
import { planSealLayer } from "../state/ApprovalStates.ts"
import type { StateError } from "../state/StateError.ts"
import { stateLayer } from "../state/StateLayer.ts"
import type { StateSeal } from "../state/StateSeal.ts"
import type { UsedStates } from "../state/UsedStates.ts"
import { type ConfigInForce, type Generation, makeConfigInForce } from "./ConfigGeneration.ts"
import { VERSION } from "./Version.ts"

export { auditLayer } from "../audit/AuditLayer.ts"
export { VERSION } from "./Version.ts"

/** How long shutdown waits for in-flight calls. */
export const DRAIN_MS = 10_000

/** What the serving layers need. */
export interface GatewayShape {
  /** The plan in force: a reload replaces it, so read it once per request. */
  readonly plan: Plan
  readonly deps: FrontDeps
  readonly hub: McpHubShape
  readonly store: AuditStoreShape
  readonly approvals: ApprovalQueueShape
  /** The credentials the gateway sends downstream (and the identity tokens' key set). */
  readonly credentials: CredentialBrokerShape
  /** Waits for in-flight calls to finish (at most DRAIN_MS). */
  readonly drain: Effect.Effect<void>
  /** Principal for a bearer token, or undefined when the token is unknown. */
  readonly principalFor: (token: string) => Principal | undefined
  /** The generation in force (its number and plan). */
  readonly generation: () => Generation
  /**
   * Builds a reloaded plan's generation (policy, hooks, approvals, ...) and, only when all of it
   * built, puts it in force; calls already running finish under theirs. A ConfigError changes nothing.
   */
  readonly apply: (next: Plan) => Effect.Effect<Generation, ConfigError>
}

/** One running gateway. */
export class Gateway extends Context.Service<Gateway, GatewayShape>()("@interlock/gateway/Gateway") {
  /**
   * The whole gateway for a plan: hub, audit store, approvals, calls. Closing the scope drains calls, then stops
   * servers. `states` replaces the plan's approval-state seal (tests pass a seal with one UsedStates shared between
   * replicas).
   */
  static layer(
    plan: Plan,
    states: Layer.Layer<StateSeal> | Layer.Layer<StateSeal | UsedStates> = planSealLayer(plan)
  ): Layer.Layer<Gateway, ConfigError | TransportFailure | AuditError | StateError> {
    return Layer.unwrap(Effect.sync(() => {
      // The hub outlives generations: what it redacts follows the generation in force, once there is one.
      const held: { inForce?: ConfigInForce } = {}
      const redactions = () => held.inForce?.current().plan.redactions ?? plan.redactions
      // The state replicas share (Postgres) or this process's own: approvals, pins, rate limits, used
      // states; opened after the audit store, so a database both use that cannot be opened is an AuditError.
      const base = Layer.mergeAll(
        stateLayer(plan).pipe(Layer.provideMerge(auditLayer(plan))),
        HostSessions.layer,
        // The broker seals connect links with the gateway's own seal (one instance: Layers are shared by reference).
        CredentialBroker.layer(plan).pipe(Layer.provide(states)),
        states
      )
      // The hub's sessions take their credentials from the broker that prepares each operation's.
      const hub = Layer.unwrap(
        Effect.map(
          Effect.all([stderrLogger(redactions), Effect.service(CredentialBroker)]),
          ([onStderr, broker]) => McpHub.layer({ servers: hubServers(plan, onStderr, broker.sessionAuth) })
        )
      ).pipe(
        Layer.provide(redactingHostRequestsLayer(redactions).pipe(Layer.provide(hostRequestsLayer)))
      )
      const stack = hub.pipe(Layer.provideMerge(base))
      return Layer.effect(Gateway, make(plan, held)).pipe(Layer.provide(stack))
    }))
  }
}

// By default the gateway speaks 2026-07-28 to a server that offers it (server/discover) and a 2025
// revision to the rest: a 2026 server's own requests then come back within the call that caused
// them (calls/InputRelay.ts). `sessions` shares a 2025 server's session or opens one per host.
const hubServer = (
  server: ServerPlan,
  onStderr: ((tail: string, ended: { readonly stopped: boolean }) => void) | undefined,
  auth: ServerAuth | undefined
): HubServer => ({
  sessions: server.sessions,
  maxSessions: server.maxSessions,
  ...(auth === undefined ? {} : { auth }),
  protocol: server.protocol === "2026-07-28" ? { pin: "2026-07-28" } : server.protocol,
  ...(server._tag === "stdio"
    ? {
      stdio: {
        command: server.command,
        args: server.args,
        env: server.env,
        cwd: server.cwd,
        ...(onStderr === undefined ? {} : { onStderr })
      }
    }
    : {
      http: {
        url: server.url,
        headers: server.headers,
        ...(server.token === undefined ? {} : { bearer: server.token })
      }
    })
})

/**
 * The hub's server configs for a plan; `stderrTo` (by server name) takes each stdio server's
 * stderr instead of error messages, and `authOf` gives a server's sessions their credentials.
 */
export const hubServers = (
  plan: Plan,
  stderrTo?: (serverId: string) => (tail: string, ended: { readonly stopped: boolean }) => void,
  authOf?: (serverId: string) => ServerAuth | undefined
): Record<string, HubServer> =>
  Object.fromEntries(
    [...plan.servers].map(([name, server]) => [name, hubServer(server, stderrTo?.(name), authOf?.(name))])
  )

/**
 * A server's stderr never reaches a host: it goes to the gateway's log (the logger of the context
 * the gateway is built in), through every configured redaction and the built-in detectors.
 */
const stderrLogger = (redactions: () => ReadonlyArray<Redaction>) =>
  Effect.map(
    Effect.context<never>(),
    (context) => (serverId: string) => (tail: string, ended?: { stopped: boolean }) => {
      const text = redactText(tail, [...redactions(), ...detectAll()])
      // A process the gateway stopped (shutdown, Ctrl-C, a reload) is no news: its stderr is a debug line.
      Effect.runForkWith(context)(
        (ended?.stopped === true
          ? Effect.logDebug(`MCP server process stopped; its stderr: ${text}`)
          : Effect.logWarning(`MCP server process ended; its stderr: ${text}`)).pipe(
            Effect.annotateLogs({ "interlock.server": serverId })
          )
      )
    }
  )

const make = (plan: Plan, held: { inForce?: ConfigInForce }) =>
  Effect.gen(function*() {
    // Made before the FiberSet, so its generations are closed after the calls are drained.
    const inForce = yield* makeConfigInForce(plan)
    held.inForce = inForce
    const calls = inForce.calls
    const redactions = () => inForce.current().plan.redactions
    const hub = yield* McpHub
    const hosts = yield* HostSessions
    const store = yield* AuditStore
    const approvals = yield* ApprovalQueue
    const credentials = yield* CredentialBroker
    const fibers = yield* FiberSet.make<unknown, unknown>()
    const runPromise = yield* FiberSet.runtimePromise(fibers)<never>()
    const runFork = yield* FiberSet.runtime(fibers)<never>()
    // Added after the FiberSet, so it runs first: wait for in-flight calls, then let them be interrupted.
    const drain = FiberSet.awaitEmpty(fibers).pipe(Effect.timeoutOption(DRAIN_MS), Effect.asVoid)
    yield* Effect.addFinalizer(() => drain)
    const namespace = makeNamespace(hub.serverIds, plan.namespace)
    const principals = new Map<string, Principal>()
    for (const [token, principal] of plan.listen.principals) {
      principals.set(
        token,
        new Principal({ id: principal.id, ...(principal.roles === undefined ? {} : { roles: principal.roles }) })
      )
    }
    const listTools = (serverId?: string, options?: Parameters<typeof calls.listTools>[1]) =>
      Effect.tap(
        serverId !== undefined
          ? calls.listTools(serverId, options)
          : mergedListing("tools/list", hub.serverIds, (id) => calls.listTools(id, options)),
        (tools) =>
          Effect.sync(() => {
            for (const tool of tools) namespace.own(tool.serverId, tool.name)
          })
      )
    const { forwarder, stop } = makeFeatureForwarder({
      serverIds: hub.serverIds,
      features: hub.features,
      calls,
      hosts,
      prompts: makeNamespace(hub.serverIds, plan.namespace),
      get redactions() {
        return redactions()
      },
      fork: (effect) => void runFork(Effect.ignore(effect)),
      authenticated: (serverId, options, effect) =>
        withCredential(credentials, serverId, options?.principal, undefined, effect)
    })
    yield* Effect.addFinalizer(() => Effect.sync(stop))
    const deps: FrontDeps = {
      calls: { ...calls, listTools },
      features: forwarder,
      namespace,
      hosts,
      run: (effect, signal) => runPromise(effect, { signal }),
      version: VERSION,
      limits: {
        get maxArgBytes() {
          return inForce.current().plan.loaded.config.maxArgBytes ?? DEFAULT_MAX_ARG_BYTES
        }
      },
      get redactions() {
        return redactions()
      },
      toolsCacheHint: () =>
        mergeCacheHints(
          hub.serverIds.map((id) => {
            const hint = hub.toolsCacheHint(id)
            return hint === undefined ? undefined : cacheHintOf(hint)
          }),
          listsPerPrincipal(inForce.current().plan)
        ),
      tasks: { registry: makeGatewayTasks(), request: hub.task }
    }
    return Gateway.of({
      get plan() {
        return inForce.current().plan
      },
      deps,
      hub,
      store,
      approvals,
      credentials,
      drain,
      principalFor: (token) => principals.get(token),
      generation: inForce.current,
      apply: inForce.apply
    })
  })
