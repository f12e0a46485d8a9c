/**
 * The state of one server's slot (ServerSlot.ts), held in one place for the modules that work on
 * it: connecting (SlotConnect), restoring (SlotRestore), requests (SlotRequests, SlotExchange) and
 * per-host child slots (ChildSlots). Only these modules change it; the slot shows it read-only.
 */
import type { TransportFailure } from "@interlock/core"
import type { LoggingLevel } from "@modelcontextprotocol/client"
import type { Deferred, Effect } from "effect"
import type { CompiledServer } from "../HubConfig.ts"
import type { HubListener } from "../HubNotification.ts"
import type { ParkedCall } from "../ParkedCall.ts"
import type { HostHandlers, Session } from "../Session.ts"
import type { ToolChange, ToolPins } from "../ToolPins.ts"

/** What every slot shares with the hub. */
export interface HubRuntime {
  readonly clientInfo: { readonly name: string; readonly version: string }
  readonly host: HostHandlers
  readonly pins: ToolPins
  /** Runs an Effect in the hub's scope (interrupted when the hub closes); false once the hub is closed. */
  readonly fork: (effect: Effect.Effect<unknown, unknown>) => boolean
  /** Reports tools whose definition changed (telemetry). */
  readonly reportChanges: (changes: ReadonlyArray<ToolChange>) => void
  /** True once the hub's scope is closing. */
  readonly isClosed: () => boolean
  /** Hands a server's notification to the hub's listeners. */
  readonly notify: HubListener
}

/**
 * The cache hints of a 2026-07-28 list result (`ttlMs`, `cacheScope`), unchecked: whoever passes them on checks them.
 */
export interface ListCacheHint {
  readonly ttlMs?: unknown
  readonly cacheScope?: unknown
}

/** A slot's state. */
export interface SlotState {
  readonly config: CompiledServer
  readonly hub: HubRuntime
  /** The principal whose sessions this slot opens (a per-principal server's child); undefined: shared. */
  readonly principal: string | undefined
  /** The live session, if any. */
  session: Session | undefined
  /** The protocol era of the latest session, kept across reconnects. */
  lastEra: string | undefined
  /** The connection attempt under way, which concurrent callers share. */
  pending: Deferred.Deferred<Session, TransportFailure> | undefined
  /** Every session this slot opened and has not seen close. */
  readonly sessions: Set<Session>
  /** Closes still under way (a crashed child's pipes, a released child slot); closeAll waits for them. */
  readonly closing: Set<Promise<void>>
  /** Resource URIs the hub's users subscribed to; restored on every new session. */
  readonly subscriptions: Set<string>
  /** The logging level asked of this server, if any; restored on every new session. */
  loggingLevel: LoggingLevel | undefined
  /**
   * The cache hints of the latest tools/list of a 2026-07-28 session, as the server sent them (none from a 2025 one).
   */
  toolsCacheHint: ListCacheHint | undefined
  /** The requests parked on this slot's 2025 sessions for their callers' answers, by park id. */
  readonly parks: Map<string, ParkedCall<unknown>>
}

/** A fresh slot's state: nothing connected, subscribed or parked. */
export const makeSlotState = (config: CompiledServer, hub: HubRuntime, principal?: string): SlotState => ({
  config,
  hub,
  principal,
  session: undefined,
  lastEra: undefined,
  pending: undefined,
  sessions: new Set(),
  closing: new Set(),
  subscriptions: new Set(),
  loggingLevel: undefined,
  toolsCacheHint: undefined,
  parks: new Map()
})

/** Keeps `closing` until it settles, so that closeAll waits for it too. */
export const trackClosing = (state: SlotState, closing: Promise<void>): void => {
  const tracked = closing.finally(() => state.closing.delete(tracked))
  state.closing.add(tracked)
}
