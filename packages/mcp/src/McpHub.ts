/**
 * McpHub: several MCP servers keyed by serverId, each with its own transport, tools filter and lifetime, served to
 * core as one ToolTransport. Connections live in the Layer's scope: closing it closes them all and ends every child.
 *   Interlock.layer({ hooks, policy }).pipe(Layer.provide(McpHub.layer({ servers: { fs: { stdio: { command } } } })))
 */
import {
  Canonical,
  ConfigError,
  type JsonObject,
  type PromptResult,
  ProtocolError,
  type ResourceContents,
  Timeout,
  type Tool,
  ToolTransport,
  type ToolTransportShape,
  type TransportCallOptions,
  type TransportFailure
} from "@interlock/core"
import { Clock, Context, Deferred, Effect, FiberSet, Layer, Metric, Option, type Scope } from "effect"
import { type Caller, LazyOperation } from "./Caller.ts"
import { toPromptResult, toResourceContents, toToolResult } from "./Convert.ts"
import { type Credential, CurrentCredential } from "./Credential.ts"
import { type ExtensionRequest, makeExtensionRequest } from "./ExtensionRequest.ts"
import { Elicitation, Roots, Sampling } from "./HostRequests.ts"
import { compileHub, type HubOptions } from "./HubConfig.ts"
import { type HubFeaturesShape, makeHubFeatures } from "./HubFeatures.ts"
import type { HubListener } from "./HubNotification.ts"
import { requestMeta, withMeta } from "./RequestMeta.ts"
import { withResume } from "./RoundTrip.ts"
import { type ListCacheHint, noSuchServer, ServerSlot } from "./ServerSlot.ts"
import { NO_SDK_TIMEOUT, type Session } from "./Session.ts"
import { SharedPins } from "./SharedPins.ts"
import { makeTaskRequest, type TaskRequest } from "./TaskRequests.ts"
import { type ToolChange, ToolPins } from "./ToolPins.ts"
import { currentCaller } from "./TracedCaller.ts"

/** What the hub knows about one server's connection. */
export interface ServerStatus {
  readonly serverId: string
  readonly connected: boolean
  /** `<era>/<version>` of the latest session, for example `legacy/2025-11-25`. */
  readonly era: string | undefined
  /** The pid of the server process (stdio), while connected. */
  readonly pid: number | undefined
}

/** What McpHub provides besides the ToolTransport. */
export interface McpHubShape {
  /** The configured server ids, in config order. */
  readonly serverIds: ReadonlyArray<string>
  /** Connects a server now (a no-op when connected). */
  readonly connect: (serverId: string) => Effect.Effect<void, TransportFailure>
  /** A server's connection status, or undefined for an unknown id. */
  readonly status: (serverId: string) => ServerStatus | undefined
  /** The transport the hub serves to core. */
  readonly transport: ToolTransportShape
  /** Resources, prompts, completion, subscriptions, logging and notifications, forwarded per server. */
  readonly features: HubFeaturesShape
  /** The cache hints of a server's latest tools/list, when a 2026-07-28 session gave them. */
  readonly toolsCacheHint: (serverId: string) => ListCacheHint | undefined
  /** Sends a tasks method (SEP-2663) to a server's 2026-07-28 session, for the current caller (TaskRequests.ts). */
  readonly task: TaskRequest
  /**
   * Sends an extension's own method (such as `interceptors/list`) to a server's shared session (ExtensionRequest.ts).
   */
  readonly request: ExtensionRequest
}

/** The name of the counter of tool definitions that changed after they were pinned. */
export const TOOL_CHANGES_METRIC = "interlock_mcp_tool_changes_total"

const notExposed = (serverId: string, name: string) =>
  new ProtocolError({
    serverId,
    code: -32602,
    detail: `tool ${JSON.stringify(name)} is not exposed by this server (hub tools filter)`
  })

const promptArguments = (serverId: string, args: JsonObject): Record<string, string> | ProtocolError => {
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(args)) {
    if (typeof value !== "string") {
      return new ProtocolError({
        serverId,
        code: -32602,
        detail: `prompt argument ${JSON.stringify(key)} must be a string`
      })
    }
    out[key] = value
  }
  return out
}

/** The request's own headers (its Credential's), as SDK request options. */
const headersOf = (credential: Credential | undefined) =>
  credential?.headers === undefined ? {} : { headers: credential.headers }

/**
 * The SDK request options of a call: core's deadline as the SDK timeout, progress as configured, the credential's
 * headers.
 */
const callOptions = (slot: ServerSlot, options: TransportCallOptions, credential: Credential | undefined) => {
  const timeout = options.timeoutMs ?? NO_SDK_TIMEOUT
  const onProgress = options.onProgress
  const progress = slot.config.progress
  if (onProgress === undefined && !progress.extendsDeadline) return { timeout, ...headersOf(credential) }
  return {
    timeout,
    ...headersOf(credential),
    onprogress: (p: { progress: number; total?: number; message?: string }) =>
      onProgress?.({ progress: p.progress, total: p.total, message: p.message }),
    ...(progress.extendsDeadline ? { resetTimeoutOnProgress: true, maxTotalTimeout: progress.maxCallMs } : {})
  }
}

/** The digest an operation's relayed state is bound to: SHA-256 of its canonical JSON. */
const digestOf = (value: JsonObject): string => {
  const digest = Canonical.digestJson(value)
  return typeof digest === "string" ? digest : ""
}

/** The current caller and the current request's credential. */
const currentRequest = Effect.zip(currentCaller, Effect.service(CurrentCredential))

/**
 * Runs `use` on the session a request of the current caller goes to (its per-host one, or its
 * principal's, when the server has them), with that caller and the request's credential.
 */
const withCallerSession = <A, E>(
  slots: ReadonlyMap<string, ServerSlot>,
  serverId: string,
  use: (
    slot: ServerSlot,
    session: Session,
    caller: Caller | undefined,
    credential: Credential | undefined
  ) => Effect.Effect<A, E>
): Effect.Effect<A, E | TransportFailure> =>
  Effect.flatMap(currentRequest, ([caller, credential]) => {
    const slot = slots.get(serverId)
    const useFor = (slot: ServerSlot, session: Session) => use(slot, session, caller, credential)
    if (slot === undefined) return Effect.fail(noSuchServer(serverId))
    return Effect.flatMap(slot.route(caller, credential), (target) =>
      Effect.flatMap(target.acquire(), (session) => useFor(target, session)))
  })

const makeTransport = (slots: ReadonlyMap<string, ServerSlot>, pins: ToolPins): ToolTransportShape => {
  // A listing goes where the request's calls would: a per-principal server lists its principal's tools.
  const listOne = (slot: ServerSlot) =>
    Effect.flatMap(Effect.service(CurrentCredential), (credential) => slot.forPrincipal(credential?.principal)).pipe(
      Effect.flatMap((target) => Effect.flatMap(target.acquire(), (session) => target.fetchTools(session))),
      Effect.map((tools) => tools.filter((tool) => slot.config.exposed(tool.name)))
    )
  return {
    callTool: (call, options) => {
      const slot = slots.get(call.serverId)
      if (slot === undefined) return Effect.fail(noSuchServer(call.serverId))
      if (!slot.config.exposed(call.name)) return Effect.fail(notExposed(call.serverId, call.name))
      const millis = options.timeoutMs ?? NO_SDK_TIMEOUT
      const send = (
        target: ServerSlot,
        session: Session,
        timeout: number,
        caller: Caller | undefined,
        credential: Credential | undefined
      ) => {
        const requestOptions = callOptions(slot, options, credential)
        const params = withMeta(
          { name: call.name, arguments: call.args },
          requestMeta(caller, session.modern, call.meta, target.loggingLevel)
        )
        return target.exchange(
          session,
          new LazyOperation(call.serverId, "tools/call", () => call.digest),
          caller,
          "during tools/call",
          (resume, signal, left, on) =>
            on.modern
              ? on.client.callTool(withResume(params, resume), {
                ...requestOptions,
                timeout: left ?? timeout,
                signal,
                allowInputRequired: true
              })
              : on.client.callTool(params, { ...requestOptions, timeout: left ?? timeout, signal }),
          timeout
        ).pipe(Effect.map(toToolResult))
      }
      const connectThenSend = (target: ServerSlot, caller: Caller | undefined, credential: Credential | undefined) => {
        const live = target.session
        if (live?.alive) return send(target, live, millis, caller, credential)
        // Connecting first: the call's deadline covers the connection, and the request gets what is left.
        return Effect.flatMap(Clock.currentTimeMillis, (started) =>
          target.acquire().pipe(
            Effect.timeoutOrElse({ duration: millis, orElse: () => Effect.fail(new Timeout({ millis })) }),
            Effect.flatMap((session) =>
              Effect.flatMap(
                Clock.currentTimeMillis,
                (now) => send(target, session, Math.max(1, millis - (now - started)), caller, credential)
              )
            )
          ))
      }
      return Effect.flatMap(currentRequest, ([caller, credential]) =>
        slot.config.sessions === "shared"
          ? connectThenSend(slot, caller, credential)
          : Effect.flatMap(slot.route(caller, credential), (target) => connectThenSend(target, caller, credential)))
    },
    listTools: (serverId) => {
      if (serverId !== undefined) {
        const slot = slots.get(serverId)
        return slot === undefined ? Effect.fail(noSuchServer(serverId)) : listOne(slot)
      }
      return Effect.forEach([...slots.values()], listOne, { concurrency: "unbounded" }).pipe(
        Effect.map((lists): ReadonlyArray<Tool> => lists.flat())
      )
    },
    // Reads and gets pass no deadline to `exchange`, so it cannot fail with Timeout: the casts below narrow its error
    // type.
    readResource: (serverId, uri) =>
      withCallerSession(slots, serverId, (slot, session, caller, credential) =>
        slot.exchange(
          session,
          new LazyOperation(serverId, "resources/read", () => digestOf({ serverId, uri })),
          caller,
          "during resources/read",
          (resume, signal, _left, on) =>
            on.client.readResource(
              withResume(withMeta({ uri }, requestMeta(caller, session.modern, undefined, slot.loggingLevel)), resume),
              {
                signal,
                timeout: slot.config.requestTimeoutMs,
                cacheMode: "bypass",
                allowInputRequired: true,
                ...headersOf(credential)
              }
            )
        ).pipe(
          Effect.flatMap((result) => {
            const contents = toResourceContents(serverId, result)
            return contents instanceof ProtocolError ? Effect.fail(contents) : Effect.succeed(contents)
          })
        ) as Effect.Effect<ResourceContents, TransportFailure>),
    getPrompt: (serverId, name, args) => {
      const stringArgs = promptArguments(serverId, args)
      if (stringArgs instanceof ProtocolError) return Effect.fail(stringArgs)
      return withCallerSession(slots, serverId, (slot, session, caller, credential) =>
        slot.exchange(
          session,
          new LazyOperation(serverId, "prompts/get", () => digestOf({ serverId, name, args: stringArgs })),
          caller,
          "during prompts/get",
          (resume, signal, _left, on) =>
            on.client.getPrompt(
              withResume(
                withMeta(
                  { name, arguments: stringArgs },
                  requestMeta(caller, session.modern, undefined, slot.loggingLevel)
                ),
                resume
              ),
              { signal, timeout: slot.config.requestTimeoutMs, allowInputRequired: true, ...headersOf(credential) }
            )
        ).pipe(
          Effect.flatMap((result) => {
            const prompt = toPromptResult(serverId, result)
            return prompt instanceof ProtocolError ? Effect.fail(prompt) : Effect.succeed(prompt)
          })
        ) as Effect.Effect<PromptResult, TransportFailure>)
    },
    era: (serverId) => {
      const slot = slots.get(serverId)
      return slot?.latestEra
    },
    enforcesDeadline: true,
    toolChanged: (serverId, name) => {
      const slot = slots.get(serverId)
      if (slot === undefined) return false
      // While a refresh after tools/list_changed is in flight, nothing is known: fail closed.
      if (slot.session?.toolsStale === true) return true
      return pins.changed(serverId, name)
    },
    describeTool: (serverId, name) => {
      const slot = slots.get(serverId)
      if (slot === undefined || !slot.config.exposed(name)) return undefined
      if (pins.has(serverId) && slot.session?.toolsStale !== true) return pins.describe(serverId, name)
      // Never listed (not connected yet), or a refresh after tools/list_changed in flight: connect,
      // which lists, or wait for the refresh. A server that cannot be reached fails the call, unsent.
      return Effect.flatMap(currentRequest, ([caller, credential]) => slot.route(caller, credential)).pipe(
        Effect.flatMap((target) => target.acquire()),
        Effect.flatMap((session) => session.toolsStale ? Deferred.await(session.refreshed) : Effect.void),
        Effect.map(() => pins.describe(serverId, name))
      )
    }
  }
}

const reportChange = (change: ToolChange) =>
  Metric.update(Metric.counter(TOOL_CHANGES_METRIC, { attributes: { server: change.serverId, tool: change.name } }), 1)
    .pipe(
      Effect.andThen(Effect.logWarning("MCP tool definition changed since it was pinned")),
      Effect.annotateLogs({ "interlock.server": change.serverId, "interlock.tool": change.name })
    )

/** Builds the hub in the current scope. */
const make = (options: HubOptions) =>
  Effect.gen(function*() {
    const compiled = compileHub(options)
    if (compiled instanceof ConfigError) return yield* compiled
    const sampling = Option.getOrUndefined(yield* Effect.serviceOption(Sampling))
    const elicitation = Option.getOrUndefined(yield* Effect.serviceOption(Elicitation))
    const roots = Option.getOrUndefined(yield* Effect.serviceOption(Roots))
    const fibers = yield* FiberSet.make<unknown, unknown>()
    const runFork = yield* FiberSet.runtime(fibers)<never>()
    const runPromise = yield* FiberSet.runtimePromise(fibers)<never>()
    let closed = false
    const pins = new ToolPins(Option.getOrUndefined(yield* Effect.serviceOption(SharedPins)))
    const slots = new Map<string, ServerSlot>()
    const listeners = new Set<HubListener>()
    const runtime = {
      clientInfo: compiled.clientInfo,
      pins,
      host: {
        sampling,
        elicitation,
        roots,
        run: <A>(_serverId: string, run: () => Effect.Effect<A, unknown>) => runPromise(Effect.suspend(run))
      },
      fork: (effect: Effect.Effect<unknown, unknown>) => {
        if (closed) return false
        runFork(effect)
        return true
      },
      reportChanges: (changes: ReadonlyArray<ToolChange>) => {
        if (!closed) runFork(Effect.forEach(changes, reportChange, { discard: true }))
      },
      isClosed: () => closed,
      notify: (notification: Parameters<HubListener>[0]) => {
        if (closed) return
        for (const listener of listeners) listener(notification)
      }
    }
    for (const server of compiled.servers.values()) slots.set(server.id, new ServerSlot(server, runtime))
    // Runs before the FiberSet's own finalizer (finalizers run in reverse): stop new work, then
    // interrupt connection attempts, then close every session and wait for child processes to exit.
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        closed = true
      }).pipe(
        Effect.andThen(FiberSet.clear(fibers)),
        Effect.andThen(Effect.promise(() => Promise.all([...slots.values()].map((slot) => slot.closeAll()))))
      )
    )
    const transport = makeTransport(slots, pins)
    const connect = (serverId: string) => {
      const slot = slots.get(serverId)
      return slot === undefined ? Effect.fail(noSuchServer(serverId)) : Effect.asVoid(slot.acquire())
    }
    const eager = [...slots.values()].filter((slot) => slot.config.eager)
    yield* Effect.forEach(eager, (slot) => slot.acquire(), { concurrency: "unbounded", discard: true })
    return McpHub.of({
      serverIds: [...slots.keys()],
      connect,
      status: (serverId) => {
        const slot = slots.get(serverId)
        if (slot === undefined) return undefined
        const session = slot.session
        const connected = session?.alive === true
        const pid = connected ? (session.transport as { pid?: unknown }).pid : undefined
        return {
          serverId,
          connected,
          era: session?.era ?? slot.lastEra,
          pid: typeof pid === "number" ? pid : undefined
        }
      },
      transport,
      features: makeHubFeatures(slots, listeners),
      toolsCacheHint: (serverId) => slots.get(serverId)?.toolsCacheHint,
      task: makeTaskRequest((serverId, use) =>
        withCallerSession(slots, serverId, (slot, session) => use(slot, session))
      ),
      request: makeExtensionRequest(slots)
    })
  })

/** Several MCP servers behind one ToolTransport. Provide Sampling, Elicitation or Roots to answer server requests. */
export class McpHub extends Context.Service<McpHub, McpHubShape>()("@interlock/mcp/McpHub") {
  /**
   * The hub alone, in the current scope (no ToolTransport in context): for servers reached for an extension's methods.
   */
  static readonly make: (
    options: HubOptions
  ) => Effect.Effect<McpHubShape, ConfigError | TransportFailure, Scope.Scope> = make
  /**
   * The hub and the ToolTransport it serves. Eager servers connect while the Layer is built (a
   * failure there fails the build with its TransportError); lazy ones on first use.
   */
  static layer(options: HubOptions): Layer.Layer<McpHub | ToolTransport, ConfigError | TransportFailure> {
    return Layer.effectContext(
      Effect.map(make(options), (hub) => Context.make(McpHub, hub).pipe(Context.add(ToolTransport, hub.transport)))
    )
  }
}
