/**
 * The events one HTTP session sent on its event streams, kept in memory so that a host that lost a
 * stream can resume it with Last-Event-ID. Event ids are the session's sequence numbers; each event
 * belongs to one stream. Bounded by count and bytes: the oldest events go first, and an id that is
 * gone (or never was) cannot be resumed from.
 */

/** The most events one session keeps. */
export const MAX_LOGGED_EVENTS = 1_000

/** The most bytes of message data one session keeps. */
export const MAX_LOGGED_BYTES = 4 * 1024 * 1024

/** One logged event: its id, its stream, and its message as JSON (undefined for a priming event). */
export interface LoggedEvent {
  readonly id: string
  readonly stream: number
  readonly data: string | undefined
  readonly bytes: number
}

/** Caps of an {@link EventLog}. */
export interface EventLogOptions {
  readonly maxEvents?: number
  readonly maxBytes?: number
}

/** A session's recent events, oldest first, within its caps. */
export class EventLog {
  private readonly maxEvents: number
  private readonly maxBytes: number
  private readonly events: Array<LoggedEvent> = []
  /** The sequence number of events[0]. */
  private first = 0
  private total = 0

  constructor(options: EventLogOptions = {}) {
    this.maxEvents = options.maxEvents ?? MAX_LOGGED_EVENTS
    this.maxBytes = options.maxBytes ?? MAX_LOGGED_BYTES
  }

  /** How many events and bytes the log holds now. */
  get size(): { readonly events: number; readonly bytes: number } {
    return { events: this.events.length, bytes: this.total }
  }

  /** Logs an event on `stream` (`data` undefined: a priming event) and returns its id. */
  append(stream: number, data?: string): string {
    const id = String(this.first + this.events.length)
    const bytes = data === undefined ? 0 : Buffer.byteLength(data)
    this.events.push({ id, stream, data, bytes })
    this.total += bytes
    while (this.events.length > this.maxEvents || (this.total > this.maxBytes && this.events.length > 0)) {
      this.total -= this.events.shift()?.bytes ?? 0
      this.first++
    }
    return id
  }

  /** The event with this id, while the log still holds it. */
  find(id: string): LoggedEvent | undefined {
    if (!/^(?:0|[1-9]\d{0,15})$/.test(id)) return undefined
    return this.events[Number(id) - this.first]
  }

  /**
   * The events of `id`'s stream after `id`, oldest first (priming events left out); undefined for an id the log does
   * not hold.
   */
  after(id: string): { readonly stream: number; readonly events: ReadonlyArray<LoggedEvent> } | undefined {
    const event = this.find(id)
    if (event === undefined) return undefined
    const later: Array<LoggedEvent> = []
    for (let i = Number(id) - this.first + 1; i < this.events.length; i++) {
      const next = this.events[i]
      if (next.stream === event.stream && next.data !== undefined) later.push(next)
    }
    return { stream: event.stream, events: later }
  }
}
