/**
 * A request of a caller without a channel for the server's own requests (a 2026-07-28 host, through its Relay) on
 * a 2025 session, whose wire has no `input_required`: the request is sent once and kept running in the hub
 * (parked) while the host answers. The server requests it holds go to the caller as one round, the park's id as
 * the request state; the retry delivers the answers, and the request runs on.
 */
import { ProtocolError, Timeout, TransportError, type TransportFailure } from "@interlock/core"
import { CLIENT_CAPABILITIES_META_KEY } from "@modelcontextprotocol/client"
import { Deferred, Effect, Exit } from "effect"
import type { Caller, HostRequest, InputRound, Operation, Relay } from "./Caller.ts"
import { MAX_INPUT_ROUNDS } from "./RoundTrip.ts"
import type { Exchange, HostHandlers } from "./Session.ts"

/** How long a parked request may run in all, waiting for its host included; then it is cancelled. */
export const PARK_LIFETIME_MS = 10 * 60_000

/** The 2026-07-28 error for a request that needs a client capability the caller did not declare. */
const MISSING_CAPABILITY = -32021

/** How many requests may be parked on one server at once; the next one is refused. */
export const MAX_PARKED = 256

/** How long a round waits, once a server request is held, for the others the server sends with it. */
const GATHER = "25 millis"

const CAPABILITY: Readonly<Record<string, string>> = {
  "elicitation/create": "elicitation",
  "sampling/createMessage": "sampling",
  "roots/list": "roots"
}

/**
 * Whether the caller's host declared the capability a server request needs (a caller that sent none is not checked).
 */
const declares = (caller: Caller, method: string): boolean => {
  const declared = declaredBy(caller)
  const capability = CAPABILITY[method]
  return declared === undefined || (capability !== undefined && declared.has(capability))
}

/** The client capabilities the caller's host declared for its request, or undefined when it sent none. */
const declaredBy = (caller: Caller): ReadonlySet<string> | undefined => {
  const declared = caller.meta?.[CLIENT_CAPABILITIES_META_KEY]
  return typeof declared === "object" && declared !== null ? new Set(Object.keys(declared)) : undefined
}

/**
 * The host handlers of a session opened for one parked request (`sessions: "per-host"`): the
 * capabilities the caller's host declared, or the hub's when it declared none. The parked request
 * is that session's only one, so every server request there is held for it; none reaches these.
 */
export const callerCapabilities = (host: HostHandlers, caller: Caller): HostHandlers => {
  const declared = declaredBy(caller)
  if (declared === undefined) return host
  const unreachable = () => Effect.fail(new Error("a parked request's session holds its server's requests"))
  return {
    sampling: declared.has("sampling") ? { createMessage: unreachable } : undefined,
    elicitation: declared.has("elicitation") ? { elicit: unreachable, applyDefaults: false } : undefined,
    roots: declared.has("roots") ? { list: unreachable } : undefined,
    run: host.run
  }
}

interface Held {
  readonly request: HostRequest
  readonly answer: Deferred.Deferred<unknown, Error>
}

/**
 * One parked request: its outcome, and the server requests it holds for its host (those that arrive while it is
 * the only request in flight on its session, Session.exchanges). A held request the retry does not answer is asked
 * again in the next round (SEP-2322's re-request rule).
 */
export class ParkedCall<A> implements Exchange {
  /** The park's id, handed to the caller as the round's request state. */
  readonly id = crypto.randomUUID()
  readonly outcome = Deferred.makeUnsafe<A, TransportFailure | Timeout>()
  private readonly cancelled = Deferred.makeUnsafe<void>()
  /** Set when the server asked for a capability the caller's host did not declare: the call fails with -32021. */
  private readonly missing = Deferred.makeUnsafe<never, ProtocolError>()
  private readonly held = new Map<string, Held>()
  private arrived = Deferred.makeUnsafe<void>()
  private asked = 0
  private readonly caller: Caller
  private readonly serverId: string

  constructor(serverId: string, caller: Caller) {
    this.serverId = serverId
    this.caller = caller
  }

  /** Holds a server request for the host; the Promise is the host's answer (the session's handler returns it). */
  hold(request: HostRequest, signal: AbortSignal): Promise<unknown> {
    if (!declares(this.caller, request.method)) {
      const capability = CAPABILITY[request.method] ?? request.method
      Deferred.doneUnsafe(
        this.missing,
        Exit.fail(
          new ProtocolError({
            serverId: this.serverId,
            code: MISSING_CAPABILITY,
            detail: `the server needs the client capability ${capability}, which the calling host did not declare`,
            requiredCapabilities: [capability]
          })
        )
      )
      return Promise.reject(new Error(`the calling host did not declare ${capability}`))
    }
    const key = `${CAPABILITY[request.method] ?? "request"}-${++this.asked}`
    const answer = Deferred.makeUnsafe<unknown, Error>()
    this.held.set(key, { request, answer })
    // The server cancelled its request: it is no longer asked.
    signal.addEventListener("abort", () => {
      if (this.held.delete(key) && this.held.size === 0) this.arrived = Deferred.makeUnsafe()
    }, { once: true })
    Deferred.doneUnsafe(this.arrived, Exit.void)
    return Effect.runPromise(Deferred.await(answer))
  }

  /** Gives each held request the host answered its answer; the unanswered stay held for the next round. */
  answer(responses: Readonly<Record<string, unknown>>): void {
    for (const [key, held] of [...this.held]) {
      if (!Object.hasOwn(responses, key)) continue
      this.held.delete(key)
      Deferred.doneUnsafe(held.answer, Exit.succeed(responses[key]))
    }
    if (this.held.size === 0) this.arrived = Deferred.makeUnsafe()
  }

  /** Cancels the request on the server (it was abandoned); its held requests fail. */
  cancel(): void {
    Deferred.doneUnsafe(this.cancelled, Exit.void)
  }

  /**
   * Runs the request (`send`, which keeps this park among its session's exchanges meanwhile, in
   * the hub's scope through `fork`) until it completes, is cancelled or has run PARK_LIFETIME_MS.
   * False when nothing could be started.
   */
  start(
    send: (exchange: Exchange) => Effect.Effect<A, TransportFailure | Timeout>,
    fork: (effect: Effect.Effect<unknown, unknown>) => boolean,
    forget: () => void
  ): boolean {
    // The error is built only if the request is abandoned: most never are, and an Error captures a stack.
    const abandoned = Effect.andThen(
      Deferred.await(this.cancelled),
      Effect.failSync(() => new TransportError({ serverId: this.serverId, detail: "the parked request was cancelled" }))
    )
    const run = Effect.raceFirst(send(this), abandoned).pipe(
      Effect.timeoutOrElse({
        duration: PARK_LIFETIME_MS,
        orElse: () => Effect.fail(new Timeout({ millis: PARK_LIFETIME_MS }))
      }),
      Effect.exit,
      Effect.flatMap((exit) => Deferred.done(this.outcome, exit)),
      Effect.ensuring(Effect.sync(() => {
        forget()
        for (const held of this.held.values()) {
          Deferred.doneUnsafe(held.answer, Exit.fail(new Error("the request the server asked within has ended")))
        }
        this.held.clear()
      }))
    )
    const started = fork(run)
    if (!started) forget()
    return started
  }

  /** The outcome, or the round of held requests, whichever comes first; within `deadlineMs` when given. */
  next(
    deadlineMs: number | undefined
  ): Effect.Effect<{ readonly done: A } | { readonly round: InputRound }, TransportFailure | Timeout> {
    const done = Effect.map(Deferred.await(this.outcome), (value) => ({ done: value }))
    const round = Deferred.await(this.arrived).pipe(
      Effect.andThen(Effect.sleep(GATHER)),
      Effect.map(() => ({ round: this.round() }))
    )
    const first = Effect.raceFirst(Effect.raceFirst(done, round), Deferred.await(this.missing))
    return deadlineMs === undefined
      ? first
      : Effect.timeoutOrElse(first, {
        duration: deadlineMs,
        orElse: () => Effect.fail(new Timeout({ millis: deadlineMs }))
      })
  }

  private round(): InputRound {
    const inputRequests: Record<string, HostRequest> = {}
    for (const [key, held] of this.held) inputRequests[key] = held.request
    return { inputRequests, requestState: this.id }
  }
}

/**
 * Drives one request of a relay's caller on a 2025 session: a fresh request is parked and started;
 * a retry whose state names a live park of this session continues it with its answers. Each host
 * request waits for the outcome or the next round, and a round is suspended through the relay.
 * A host request that ends any other way (its deadline, an interrupt) cancels the parked request.
 */
export const parkedExchange = <A>(
  parks: Map<string, ParkedCall<unknown>>,
  op: Operation,
  caller: Caller,
  relay: Relay,
  send: (exchange: Exchange) => Effect.Effect<A, TransportFailure | Timeout>,
  fork: (effect: Effect.Effect<unknown, unknown>) => boolean,
  deadlineMs: number | undefined
): Effect.Effect<A, TransportFailure | Timeout> =>
  Effect.gen(function*() {
    const resume = yield* relay.resume(op)
    let park: ParkedCall<A>
    if (resume?.requestState !== undefined) {
      const found = parks.get(resume.requestState) as ParkedCall<A> | undefined
      if (found === undefined) {
        return yield* new ProtocolError({
          serverId: op.serverId,
          code: -32603,
          detail:
            "the request these answers belong to is no longer running (it ended, or its session did); send it again " +
            "without them"
        })
      }
      park = found
      park.answer(resume.inputResponses ?? {})
    } else {
      if (parks.size >= MAX_PARKED) {
        return yield* new TransportError({
          serverId: op.serverId,
          detail: `the server already has ${MAX_PARKED} requests parked for their hosts' answers`
        })
      }
      park = new ParkedCall<A>(op.serverId, caller)
      parks.set(park.id, park as ParkedCall<unknown>)
      if (!park.start(send, fork, () => parks.delete(park.id))) {
        return yield* new TransportError({ serverId: op.serverId, detail: "the hub is closed" })
      }
    }
    const rounds = (resume?.rounds ?? 0) + 1
    const next = yield* park.next(deadlineMs).pipe(Effect.onError(() => Effect.sync(() => park.cancel())))
    if ("done" in next) return next.done
    if (rounds > MAX_INPUT_ROUNDS) {
      park.cancel()
      return yield* new ProtocolError({
        serverId: op.serverId,
        code: -32603,
        detail: `the server still asked for input after ${MAX_INPUT_ROUNDS} rounds`
      })
    }
    // The request stays parked for the retry: until then, or until PARK_LIFETIME_MS (the relay's states live as long).
    return yield* relay.suspend(op, next.round, rounds)
  })
