/**
 * The caller of each governed call, as the hub sees it (mcp's Caller): a server's own requests within a call are
 * attributed to exactly that call's host. A host with a server-to-client channel (a 2025 session) is asked at once
 * (HostSessions' `askHost`); a 2026-07-28 host gets a round, checked on its retry (`makeInputRelay`). Tool calls,
 * resource reads and prompt gets are relayed alike (`relayed` for the latter two).
 */
import { type OperationOptions, TransportError, type TransportFailure } from "@interlock/core"
import {
  type Caller,
  CurrentCaller,
  type HostRequest,
  type InputRound,
  type Operation,
  type Relay,
  type Resume
} from "@interlock/mcp"
import { Effect, Option } from "effect"
import { redactHostRequest } from "../governance/RedactingHostRequests.ts"
import type { Redaction } from "../governance/Redactor.ts"
import { type SealRefused, StateSeal } from "../state/StateSeal.ts"
import { UsedStates } from "../state/UsedStates.ts"
import { CurrentHostMeta, withHostSpan } from "./HostMeta.ts"
import {
  askHost,
  CurrentHostSession,
  HOSTLESS,
  type HostSession,
  HostSessions,
  type HostSessionsShape,
  withChannel
} from "./HostSessions.ts"
import { CurrentHostInput, type GrantedApproval, grantedApproval, type HostInput, InputRequired } from "./InputRound.ts"
import { type StateRefusal, StateRefused } from "./StateRefused.ts"

/** The purpose relayed states are sealed for (a state sealed for another purpose is not one). */
export const RELAY_PURPOSE = "relay"

/** How long the host has to answer a relayed round. */
export const RELAY_TTL_MS = 10 * 60_000

/** The longest requestState of a server the gateway carries through a host. */
export const MAX_RELAYED_STATE = 64 * 1024

/** One call's caller, and the round it left for its host, if any. */
export interface RelayedCall {
  /** Runs the call with its caller in context (and, for a host without a channel, marked in flight). */
  readonly provide: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** The InputRequired the call ended with, when a round was left for the host. */
  readonly raised: () => InputRequired | undefined
  /** Why the host's retry was refused before the server saw it, when its state failed a check. */
  readonly refused: () => StateRefused | undefined
}

/** The relay of one gateway. */
export interface InputRelayShape {
  /**
   * The caller of a call to `serverId` with these options, for the current request's host (its
   * connection, `_meta` keys and input). `frontMarked` says the front has put a request of a host
   * without a channel in flight itself (it does for tools/call, not for reads and gets).
   */
  readonly begin: (
    serverId: string,
    options: OperationOptions | undefined,
    frontMarked?: boolean
  ) => Effect.Effect<RelayedCall>
}

/** The seal's refusal as the relay's: a state it cannot open was not sealed by this gateway, or was changed. */
const sealRefusal = (error: SealRefused): StateRefusal => (error.reason === "malformed" ? "tampered" : error.reason)

/**
 * The fields of a relayed state: server, method, digest, principal, the server's state, rounds so far, the keys asked.
 */
interface Sealed {
  readonly s: string
  readonly m: string
  readonly d: string
  readonly p: string | null
  readonly r: string | null
  readonly n: number
  readonly k: ReadonlyArray<string>
  /** The approval the host gave earlier in this call (ApprovalRound reads it), or null. */
  readonly a: GrantedApproval | null
}

const isSealed = (u: Readonly<Record<string, unknown>>): u is Readonly<Record<string, unknown>> & Sealed =>
  typeof u.s === "string" && typeof u.m === "string" && typeof u.d === "string" &&
  (u.p === null || typeof u.p === "string") &&
  (u.r === null || typeof u.r === "string") && typeof u.n === "number" && Array.isArray(u.k) && u.k.every((key) =>
    typeof key === "string"
  )

/**
 * Which binding of a relayed state differs from the retried operation and principal, or undefined when it binds exactly
 * them.
 */
const bindingMismatch = (payload: Sealed, op: Operation, principal: string | null): StateRefusal | undefined => {
  if (payload.p !== principal) return "principal"
  if (payload.s !== op.serverId || payload.m !== op.method || payload.d !== op.digest) return "call"
  return undefined
}

/**
 * Runs a resource read or prompt get through the relay: a round its server leaves for a host
 * without a channel ends it with InputRequired, a retry whose state is refused with StateRefused.
 */
export const relayed = <A, E, R>(
  relay: InputRelayShape,
  serverId: string,
  options: OperationOptions | undefined,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | InputRequired | StateRefused, R> =>
  Effect.flatMap(
    relay.begin(serverId, options, false),
    (call) =>
      Effect.catchCause(call.provide(effect), (cause): Effect.Effect<never, E | InputRequired | StateRefused> => {
        const refusal = call.refused()
        if (refusal !== undefined) return Effect.fail(refusal)
        const asked = call.raised()
        return asked !== undefined ? Effect.fail(asked) : Effect.failCause(cause)
      })
  )

/** The resume of a first request with answers and no state: the answers go to the server; nothing else does. */
const unasked = (inputResponses: Readonly<Record<string, unknown>>): Resume | undefined =>
  Object.keys(inputResponses).length === 0 ? undefined : { inputResponses, requestState: undefined, rounds: 0 }

/**
 * Builds the relay over the gateway's seal and single-use marks (the approval states' own). A host with a channel is
 * asked through that one session, redacted, under today's refusal rules; the hub then resends the request downstream
 * within the same call. A host without one gets the round: the call fails with InputRequired, carrying the server's
 * requests (redacted) and a state sealed for RELAY_PURPOSE that binds the server, the method, the call's digest, the
 * principal and the server's requestState. The retry brings it back with the answers (CurrentHostInput); the state is
 * opened, checked against the retried call and claimed once (UsedStates) before the server sees the answers, and one
 * that fails a check ends the call with StateRefused before anything reaches the server.
 */
export const makeInputRelay = (redactions: ReadonlyArray<Redaction>) =>
  Effect.gen(function*() {
    const seal = yield* StateSeal
    const used = yield* UsedStates
    const hosts = Option.getOrUndefined(yield* Effect.serviceOption(HostSessions))

    const relayFor = (
      options: OperationOptions | undefined,
      input: HostInput | undefined,
      raise: (error: InputRequired) => void,
      refuse: (error: StateRefused) => void
    ): Relay => {
      const principal = options?.principal?.id ?? null
      // The call fails in the transport (its channel has room for nothing else); the refusal is what the host is
      // answered.
      const refused = (serverId: string, refusal: StateRefusal) => {
        refuse(new StateRefused({ of: "relayed", refusal }))
        return new TransportError({ serverId, detail: `the relayed request state was refused (${refusal})` })
      }
      const resume = (op: Operation): Effect.Effect<Resume | undefined, TransportFailure> => {
        if (input === undefined) return Effect.succeed(undefined)
        // A first request that already brings answers (no state: nothing was asked yet) carries them
        // to the server as they are; the server reads what it knows and ignores the rest.
        if (input.requestState === undefined) return Effect.succeed(unasked(input.inputResponses))
        return seal.open(RELAY_PURPOSE, input.requestState).pipe(
          Effect.map(Option.some),
          // A state sealed for another purpose (an approval's) is not a relayed round.
          Effect.catchIf((error: SealRefused) => error.reason === "purpose", () => Effect.succeed(Option.none())),
          Effect.mapError((error) => refused(op.serverId, sealRefusal(error))),
          Effect.flatMap((opened) => {
            if (Option.isNone(opened)) return Effect.succeed(undefined)
            const { id, expiresAtMs, payload } = opened.value
            if (!isSealed(payload)) return Effect.fail(refused(op.serverId, "tampered"))
            const mismatch = bindingMismatch(payload, op, principal)
            if (mismatch !== undefined) return Effect.fail(refused(op.serverId, mismatch))
            return used.claim(id, expiresAtMs).pipe(
              Effect.mapError(() => refused(op.serverId, "unrecorded")),
              Effect.flatMap((first) =>
                first
                  ? Effect.succeed<Resume>({
                    // Only the answers to what the server asked are passed on.
                    inputResponses: Object.fromEntries(
                      payload.k.filter((key) => Object.hasOwn(input.inputResponses, key)).map((
                        key
                      ) => [key, input.inputResponses[key]])
                    ),
                    requestState: payload.r ?? undefined,
                    rounds: payload.n
                  })
                  : Effect.fail(refused(op.serverId, "replayed"))
              )
            )
          })
        )
      }
      const suspend = (op: Operation, round: InputRound, rounds: number): Effect.Effect<never, TransportFailure> => {
        if ((round.requestState?.length ?? 0) > MAX_RELAYED_STATE) {
          return Effect.fail(
            new TransportError({
              serverId: op.serverId,
              detail: `the server's request state is longer than ${MAX_RELAYED_STATE} characters`
            })
          )
        }
        const keys = Object.keys(round.inputRequests)
        const sealed: Sealed = {
          s: op.serverId,
          m: op.method,
          d: op.digest,
          p: principal,
          r: round.requestState ?? null,
          n: rounds,
          k: keys,
          a: grantedApproval(input) ?? null
        }
        return Effect.flatMap(seal.seal(RELAY_PURPOSE, { ...sealed }, RELAY_TTL_MS), (state) => {
          const requests: Record<string, HostRequest> = {}
          for (const key of keys) requests[key] = redactHostRequest(round.inputRequests[key], redactions)
          raise(new InputRequired({ inputRequests: requests, requestState: state }))
          return Effect.fail(
            new TransportError({
              serverId: op.serverId,
              detail: "the server needs input from the host (input_required)"
            })
          )
        })
      }
      return { resume, suspend }
    }

    // One caller per host connection, made on its first call.
    const callers = new WeakMap<HostSession, Caller>()
    const callerOf = (host: HostSession) => {
      const known = callers.get(host)
      if (known !== undefined) return known
      const caller = askingCaller(host, redactions)
      callers.set(host, caller)
      return caller
    }
    return {
      begin: (serverId, options, frontMarked = true) =>
        Effect.gen(function*() {
          const session = yield* CurrentHostSession
          const meta = yield* CurrentHostMeta
          const input = yield* CurrentHostInput
          let raised: InputRequired | undefined
          let refusal: StateRefused | undefined
          const host = withChannel(session)
          const caller = host !== undefined
            ? { ...callerOf(host), meta }
            : {
              ...HOSTLESS_CALLER,
              relay: relayFor(options, input, (error) => (raised = error), (error) => (refusal = error)),
              meta
            }
          // A 2026-07-28 host's front has put its tools/call in flight itself (its server's notifications reach it;
          // askHost refuses it requests).
          const inFlight = frontMarked && session !== undefined ? undefined : hosts
          return {
            provide: (effect) => withHostSpan(withCaller(effect, caller, serverId, inFlight), meta),
            raised: () => raised,
            refused: () => refusal
          } satisfies RelayedCall
        })
    } satisfies InputRelayShape
  })

/** A caller that asks its host connection each of a server's requests at once (redacted). */
const askingCaller = (host: HostSession, redactions: ReadonlyArray<Redaction>): Caller => ({
  key: host,
  ask: (_serverId, request) => askHost(host, redactHostRequest(request, redactions))
})

/** A caller whose host has no channel for a server's requests, and no relay: each such request fails. */
const HOSTLESS_CALLER: Caller = {
  key: undefined,
  ask: () => Effect.fail(new Error("the calling host cannot answer a server's requests"))
}

/**
 * Runs `effect` for `caller`; a caller without a host connection is also marked in flight to `serverId` (see HOSTLESS).
 */
const withCaller = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  caller: Caller,
  serverId: string,
  hosts: HostSessionsShape | undefined
) => {
  const provided = Effect.provideService(effect, CurrentCaller, caller)
  return caller.key !== undefined || hosts === undefined ? provided : marked(hosts, serverId, provided)
}

/**
 * Runs `effect` marked in flight for a host without a channel, so that a shared session's request meanwhile is
 * attributed to nobody.
 */
const marked = <A, E, R>(hosts: HostSessionsShape, serverId: string, effect: Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(Effect.sync(() => hosts.begin(HOSTLESS, serverId)), () => effect, (end) => Effect.sync(end))
