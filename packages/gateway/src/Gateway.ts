/**
 * The Gateway service: everything one running gateway shares, assembled from a plan. The hub
 * (downstream servers), the audit store, the approval queue, the host sessions and the audited
 * calls; a runner whose fibers are drained on shutdown, so in-flight calls finish (up to a
 * deadline) before the downstream servers are closed.
 */
import { type ConfigError, Principal, type TransportFailure } from "@interlock/core"
import { McpHub, type McpHubShape, type ServerConfig as HubServer } from "@interlock/mcp"
import { Context, Effect, FiberSet, Layer } from "effect"
import { ApprovalQueue, type ApprovalQueueShape } from "./calls/ApprovalQueue.ts"
import { type AuditError, AuditStore, type AuditStoreShape } from "./audit/AuditStore.ts"
import { makeFeatureForwarder } from "./calls/FeatureForwarder.ts"
import { DEFAULT_MAX_ARG_BYTES } from "./front/http/DoorLimits.ts"
import type { FrontDeps } from "./front/FrontServer.ts"
import { GatewayCalls } from "./calls/GatewayCalls.ts"
import { HostSessions, hostRequestsLayer } from "./front/HostSessions.ts"
import { mergedListing } from "./calls/MergedListing.ts"
import { makeNamespace } from "./governance/Namespace.ts"
import type { Plan, ServerPlan } from "./config/Plan.ts"
import { redactingHostRequestsLayer } from "./front/RedactingHostRequests.ts"
import { detectAll, redactText } from "./governance/Redactor.ts"
import { auditLayer } from "./audit/AuditLayer.ts"
import { VERSION } from "./Version.ts"

export { auditLayer } from "./audit/AuditLayer.ts"
export { VERSION } from "./Version.ts"

/** How long shutdown waits for in-flight calls. */
export const DRAIN_MS = 10_000

/** What the serving layers need. */
export interface GatewayShape {
  readonly plan: Plan
  readonly deps: FrontDeps
  readonly hub: McpHubShape
  readonly store: AuditStoreShape
  readonly approvals: ApprovalQueueShape
  /** Waits for in-flight calls to finish (at most DRAIN_MS). */
  readonly drain: Effect.Effect<void>
  /** Principal for a bearer token, or undefined when the token is unknown. */
  readonly principalFor: (token: string) => Principal | undefined
}

/** One running gateway. */
export class Gateway extends Context.Service<Gateway, GatewayShape>()("@interlock/gateway/Gateway") {
  /** The whole gateway for a plan: hub, audit store, approvals, calls. Closing the scope drains calls, then stops servers. */
  static layer(plan: Plan): Layer.Layer<Gateway, ConfigError | TransportFailure | AuditError> {
    const base = Layer.mergeAll(auditLayer(plan), ApprovalQueue.layer, HostSessions.layer)
    const hub = Layer.unwrap(Effect.map(stderrLogger(plan), (onStderr) => McpHub.layer({ servers: hubServers(plan, onStderr) }))).pipe(
      Layer.provide(redactingHostRequestsLayer(plan.redactions).pipe(Layer.provide(hostRequestsLayer)))
    )
    const calls = GatewayCalls.layer(plan)
    const stack = calls.pipe(Layer.provideMerge(hub), Layer.provideMerge(base))
    return Layer.effect(Gateway, make(plan)).pipe(Layer.provide(stack))
  }
}

// The gateway speaks 2026-07-28 to a server that offers it (server/discover) and a 2025 revision
// to the rest, with no config: a 2026 server's own requests then come back within the call that
// caused them (calls/InputRelay.ts). `sessions` shares a 2025 server's session or opens one per host.
const hubServer = (server: ServerPlan, onStderr: ((tail: string) => void) | undefined): HubServer => ({
  sessions: server.sessions,
  maxSessions: server.maxSessions,
  ...(server._tag === "stdio"
    ? { stdio: { command: server.command, args: server.args, env: server.env, cwd: server.cwd, ...(onStderr === undefined ? {} : { onStderr }) } }
    : { http: { url: server.url, headers: server.headers, ...(server.token === undefined ? {} : { bearer: server.token }) } })
})

/** The hub's server configs for a plan; `stderrTo` (by server name) takes each stdio server's stderr instead of error messages. */
export const hubServers = (plan: Plan, stderrTo?: (serverId: string) => (tail: string) => void): Record<string, HubServer> =>
  Object.fromEntries([...plan.servers].map(([name, server]) => [name, hubServer(server, stderrTo?.(name))]))

/**
 * A server's stderr never reaches a host: it goes to the gateway's log (the logger of the context
 * the gateway is built in), through every configured redaction and the built-in detectors.
 */
const stderrLogger = (plan: Plan) =>
  Effect.map(Effect.context<never>(), (context) => (serverId: string) => (tail: string) => {
    const text = redactText(tail, [...plan.redactions, ...detectAll()])
    Effect.runForkWith(context)(Effect.logWarning(`MCP server process ended; its stderr: ${text}`).pipe(Effect.annotateLogs({ "interlock.server": serverId })))
  })

const make = (plan: Plan) =>
  Effect.gen(function*() {
    const calls = yield* GatewayCalls
    const hub = yield* McpHub
    const hosts = yield* HostSessions
    const store = yield* AuditStore
    const approvals = yield* ApprovalQueue
    const fibers = yield* FiberSet.make<unknown, unknown>()
    const runPromise = yield* FiberSet.runtimePromise(fibers)<never>()
    const runFork = yield* FiberSet.runtime(fibers)<never>()
    // Added after the FiberSet, so it runs first: wait for in-flight calls, then let them be interrupted.
    const drain = FiberSet.awaitEmpty(fibers).pipe(Effect.timeoutOption(DRAIN_MS), Effect.asVoid)
    yield* Effect.addFinalizer(() => drain)
    const namespace = makeNamespace(hub.serverIds, plan.namespace)
    const principals = new Map<string, Principal>()
    for (const [token, principal] of plan.listen.principals) {
      principals.set(token, new Principal({ id: principal.id, ...(principal.roles === undefined ? {} : { roles: principal.roles }) }))
    }
    const listTools = (serverId?: string, options?: Parameters<typeof calls.listTools>[1]) =>
      Effect.tap(
        serverId !== undefined ? calls.listTools(serverId, options) : mergedListing("tools/list", hub.serverIds, (id) => calls.listTools(id, options)),
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
      redactions: plan.redactions,
      fork: (effect) => void runFork(Effect.ignore(effect))
    })
    yield* Effect.addFinalizer(() => Effect.sync(stop))
    const deps: FrontDeps = {
      calls: { ...calls, listTools },
      features: forwarder,
      namespace,
      hosts,
      run: (effect, signal) => runPromise(effect, { signal }),
      version: VERSION,
      limits: { maxArgBytes: plan.loaded.config.maxArgBytes ?? DEFAULT_MAX_ARG_BYTES },
      redactions: plan.redactions
    }
    return Gateway.of({
      plan,
      deps,
      hub,
      store,
      approvals,
      drain,
      principalFor: (token) => principals.get(token)
    })
  })
