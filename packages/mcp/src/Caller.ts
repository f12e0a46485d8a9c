/**
 * Who a hub request is made for. A caller (the gateway, per call) puts a Caller in the fiber's context, and the
 * hub answers that server's own requests for that caller only: the input requests of a 2026-07-28 `input_required`
 * result (through `ask`, or suspended through `relay`), and a `per-host` 2025 session's requests. Without a
 * Caller, the hub's Sampling, Elicitation and Roots services answer.
 */
import type { TransportFailure } from "@interlock/core"
import { Context, type Effect } from "effect"

/** A server's request of the host: `elicitation/create`, `sampling/createMessage` or `roots/list`. */
export interface HostRequest {
  readonly method: string
  readonly params: Readonly<Record<string, unknown>> | undefined
}

/**
 * The request a server asked for input within: which server, which method, and its digest (SHA-256 of its canonical
 * JSON).
 */
export interface Operation {
  readonly serverId: string
  readonly method: "tools/call" | "prompts/get" | "resources/read"
  readonly digest: string
}

/** An Operation whose digest is computed on first read: only a relayed round reads it, so most requests never hash. */
export class LazyOperation implements Operation {
  readonly serverId: string
  readonly method: Operation["method"]
  private readonly digestOf: () => string
  private computed: string | undefined = undefined
  constructor(serverId: string, method: Operation["method"], digestOf: () => string) {
    this.serverId = serverId
    this.method = method
    this.digestOf = digestOf
  }
  get digest(): string {
    this.computed ??= this.digestOf()
    return this.computed
  }
}

/** One `input_required` answer: the embedded requests by key, and the server's own state to echo. */
export interface InputRound {
  readonly inputRequests: Readonly<Record<string, HostRequest>>
  readonly requestState: string | undefined
}

/** What a request leg carries back to the server: the answers by key and its state, and how many rounds came before. */
export interface Resume {
  readonly inputResponses: Readonly<Record<string, unknown>> | undefined
  readonly requestState: string | undefined
  readonly rounds: number
}

/** A caller that cannot answer within the call: it suspends a round and resumes it on a later request. */
export interface Relay {
  /** The answers a resumed request brings (checked against `op`), or undefined for a fresh request. */
  readonly resume: (op: Operation) => Effect.Effect<Resume | undefined, TransportFailure>
  /** Ends the request for now: the caller takes the round (and the count so far) to its host. Always fails. */
  readonly suspend: (op: Operation, round: InputRound, rounds: number) => Effect.Effect<never, TransportFailure>
}

/** One caller of the hub. */
export interface Caller {
  /**
   * The host connection: per-host sessions are keyed by it (compared by identity); none for a host without a
   * connection.
   */
  readonly key: object | undefined
  /**
   * Asks the host now; fails when the host cannot answer (the server's request then fails). Interrupting it cancels the
   * host's request.
   */
  readonly ask: (serverId: string, request: HostRequest) => Effect.Effect<unknown, unknown>
  /** Set when the host has no channel for the server's requests: rounds are suspended and resumed instead of asked. */
  readonly relay?: Relay | undefined
  /**
   * `_meta` keys of the host's own request that go on to the server (RequestMeta.ts): its client
   * capabilities and info, log level and trace context, as the host sent them.
   */
  readonly meta?: Readonly<Record<string, unknown>> | undefined
}

/** The caller of the current request; none outside a caller's request. */
export const CurrentCaller = Context.Reference<Caller | undefined>("@interlock/mcp/CurrentCaller", {
  defaultValue: () => undefined
})
