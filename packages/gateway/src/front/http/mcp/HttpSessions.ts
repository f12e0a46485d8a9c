/**
 * The live Streamable HTTP sessions of the HTTP face, bounded: a cap in total and one per principal, checked before a
 * session is created, and an idle expiry. A session is idle while none of its connections is open (no event stream, no
 * unanswered POST); one idle for longer than the limit is closed, which cancels its calls and releases its
 * subscriptions, and its host then gets 404 for the id, as for any unknown session.
 */
import { Effect, Schema } from "effect"
import type { SessionLimits } from "../../../config/Plan.ts"

/** A new session was refused because a cap is reached; nothing was created. */
export class SessionCapReached extends Schema.TaggedError<SessionCapReached>()("SessionCapReached", {
  cap: Schema.Literals(["maxSessions", "maxSessionsPerPrincipal"]),
  limit: Schema.Number
}) {
  override get message(): string {
    const whose = this.cap === "maxSessions" ? "the gateway has" : "this principal has"
    return `Too many sessions: ${whose} ${this.limit} open (listen.${this.cap}); no session was created. End a ` +
      `session (DELETE) or wait for an idle one to expire`
  }

  /** The HTTP status: 429 when the caller's own sessions fill its cap, 503 when the gateway is full. */
  get status(): 429 | 503 {
    return this.cap === "maxSessions" ? 503 : 429
  }
}

/** What the table needs of a session. */
export interface LiveSession {
  /** Whether a connection of the session is open (an event stream, an unanswered POST). */
  readonly busy: boolean
  /** Ends the session: its streams close and its calls are cancelled. */
  readonly close: () => Promise<void>
}

/** A place held against the caps for a session being created, until it opens or is given up. */
export interface Reservation {
  readonly principal: string | undefined
  settled: boolean
}

interface Entry<S> {
  readonly session: S
  readonly principal: string | undefined
  lastActive: number
}

/** How often idle sessions are looked for (ms): a quarter of the idle limit, between 1 s and 1 min. */
export const sweepIntervalMs = (limits: SessionLimits): number =>
  Math.min(60_000, Math.max(1_000, Math.floor(limits.idleMs / 4)))

/** The open sessions by id, with their principals and when each was last active. */
export class SessionTable<S extends LiveSession> {
  private readonly limits: SessionLimits
  private readonly now: () => number
  private readonly entries = new Map<string, Entry<S>>()
  private readonly perPrincipal = new Map<string | undefined, number>()
  private held = 0

  constructor(limits: SessionLimits, now: () => number) {
    this.limits = limits
    this.now = now
  }

  /** How many sessions are open (reservations not counted). */
  get size(): number {
    return this.entries.size
  }

  /** Holds a place for a new session of `principal`, or says which cap is reached. */
  reserve(principal: string | undefined): Reservation | SessionCapReached {
    const mine = this.perPrincipal.get(principal) ?? 0
    if (mine >= this.limits.maxPerPrincipal) {
      return new SessionCapReached({ cap: "maxSessionsPerPrincipal", limit: this.limits.maxPerPrincipal })
    }
    if (this.held >= this.limits.maxSessions) {
      return new SessionCapReached({ cap: "maxSessions", limit: this.limits.maxSessions })
    }
    this.perPrincipal.set(principal, mine + 1)
    this.held++
    return { principal, settled: false }
  }

  /** The reserved session opened with this id. */
  open(reservation: Reservation, id: string, session: S): void {
    if (reservation.settled) return
    reservation.settled = true
    this.entries.set(id, { session, principal: reservation.principal, lastActive: this.now() })
  }

  /** The reserved session never opened (its initialize was turned down): its place is free again. */
  release(reservation: Reservation): void {
    if (reservation.settled) return
    reservation.settled = true
    this.free(reservation.principal)
  }

  /** The session with this id and its principal; a lookup counts as activity. */
  get(id: string): { readonly session: S; readonly principal: string | undefined } | undefined {
    const entry = this.entries.get(id)
    if (entry !== undefined) entry.lastActive = this.now()
    return entry
  }

  /** Forgets a session that ended; a no-op for an unknown id. */
  remove(id: string): void {
    const entry = this.entries.get(id)
    if (entry === undefined) return
    this.entries.delete(id)
    this.free(entry.principal)
  }

  /** Forgets the sessions idle for longer than the limit and returns them, for the caller to close. */
  takeExpired(): ReadonlyArray<S> {
    const now = this.now()
    const expired: Array<S> = []
    for (const [id, entry] of this.entries) {
      if (entry.session.busy) entry.lastActive = now
      else if (now - entry.lastActive > this.limits.idleMs) {
        this.remove(id)
        expired.push(entry.session)
      }
    }
    return expired
  }

  /** Every open session. */
  all(): ReadonlyArray<S> {
    return [...this.entries.values()].map((entry) => entry.session)
  }

  private free(principal: string | undefined): void {
    const left = (this.perPrincipal.get(principal) ?? 1) - 1
    if (left > 0) this.perPrincipal.set(principal, left)
    else this.perPrincipal.delete(principal)
    this.held--
  }
}

/**
 * Closes the table's idle sessions every sweep interval, forever (fork it in the HTTP face's scope); a close is not
 * waited for.
 */
export const sweepIdle = <S extends LiveSession>(table: SessionTable<S>, limits: SessionLimits): Effect.Effect<never> =>
  Effect.sleep(sweepIntervalMs(limits)).pipe(
    Effect.andThen(Effect.sync(() => {
      for (const session of table.takeExpired()) void session.close().catch(() => undefined)
    })),
    Effect.forever
  )
