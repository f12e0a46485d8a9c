/**
 * The multi-round-trip requests of the 2026-07-28 revision, driven by the hub, not the SDK (whose driver answers
 * through the session's handlers, which do not know whose request it was): the server's requests in an
 * `input_required` result are answered for the request's caller (its `ask`, or suspended through its `relay`), and
 * the request is sent again with the answers and the state, for at most MAX_INPUT_ROUNDS rounds.
 */
import { ProtocolError, type Timeout, type TransportFailure } from "@interlock/core"
import { type InputRequiredResult, isInputRequiredResult } from "@modelcontextprotocol/client"
import { Effect } from "effect"
import { type Caller, CurrentCaller, type HostRequest, type InputRound, type Operation, type Resume } from "./Caller.ts"
import type { HostHandlers } from "./Session.ts"

/** How many `input_required` rounds one request may take; the next one fails the request. */
export const MAX_INPUT_ROUNDS = 8

/** The pause before resending a request whose `input_required` asked nothing (the server shedding load). */
const STATE_ONLY_PACING = "250 millis"

const EMBEDDED = new Set(["elicitation/create", "sampling/createMessage", "roots/list"])

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** The round an `input_required` result asks for, checked: every entry is an embedded request the revision defines. */
export const readRound = (serverId: string, result: InputRequiredResult): InputRound | ProtocolError => {
  const raw: unknown = result.inputRequests ?? {}
  const requests: Record<string, HostRequest> = {}
  if (!isRecord(raw)) {
    return new ProtocolError({ serverId, code: -32603, detail: "the server's input requests are not an object" })
  }
  for (const [key, entry] of Object.entries(raw)) {
    if (
      !isRecord(entry) || typeof entry.method !== "string" || !EMBEDDED.has(entry.method) ||
      (entry.params !== undefined && !isRecord(entry.params))
    ) {
      return new ProtocolError({
        serverId,
        code: -32603,
        detail: "the server sent an input request that is not elicitation, sampling or roots"
      })
    }
    requests[key] = { method: entry.method, params: entry.params as Record<string, unknown> | undefined }
  }
  const state = result.requestState
  if (state !== undefined && typeof state !== "string") {
    return new ProtocolError({ serverId, code: -32603, detail: "the server's request state is not a string" })
  }
  return { inputRequests: requests, requestState: state }
}

/** Answers one embedded request through the hub's Sampling, Elicitation and Roots services (no caller). */
const askServices = (host: HostHandlers, serverId: string, request: HostRequest): Effect.Effect<unknown, unknown> => {
  const params = (request.params ?? {}) as never
  switch (request.method) {
    case "elicitation/create":
      return host.elicitation === undefined
        ? Effect.fail(new Error("no elicitation service"))
        : host.elicitation.elicit(serverId, params)
    case "sampling/createMessage":
      return host.sampling === undefined
        ? Effect.fail(new Error("no sampling service"))
        : host.sampling.createMessage(serverId, params)
    default:
      return host.roots === undefined
        ? Effect.fail(new Error("no roots service"))
        : Effect.map(host.roots.list(serverId), (roots) => ({ roots: [...roots] }))
  }
}

const unanswered = (serverId: string, method: string, error: unknown) =>
  new ProtocolError({
    serverId,
    code: -32603,
    detail: `the host could not answer the server's ${method} request${
      error instanceof Error ? `: ${error.message.slice(0, 200)}` : ""
    }`
  })

/** Answers every request of a round at once; the first failure ends the others. */
const answerRound = (caller: Caller | undefined, host: HostHandlers, serverId: string, round: InputRound) =>
  Effect.map(
    Effect.forEach(Object.entries(round.inputRequests), ([key, request]) => {
      const asked = caller === undefined ? askServices(host, serverId, request) : caller.ask(serverId, request)
      return Effect.map(Effect.mapError(asked, (error) => unanswered(serverId, request.method, error)), (answer) =>
        [key, answer] as const)
    }, { concurrency: "unbounded" }),
    (entries): Record<string, unknown> =>
      Object.fromEntries(entries)
  )

/**
 * Sends `leg` (with what the caller's relay resumes, if anything) until the server's answer is
 * complete. Each `input_required` round is answered for the current caller and sent back with the
 * server's state; a relay suspends it instead. More than MAX_INPUT_ROUNDS rounds fail the request.
 */
export const roundTrip = <A>(
  op: Operation,
  host: HostHandlers,
  leg: (resume: Resume | undefined) => Effect.Effect<A | InputRequiredResult, TransportFailure | Timeout>
): Effect.Effect<A, TransportFailure | Timeout> =>
  Effect.gen(function*() {
    const caller = yield* CurrentCaller
    const relay = caller?.relay
    let resume = relay === undefined ? undefined : yield* relay.resume(op)
    let rounds = resume?.rounds ?? 0
    while (true) {
      const answer = yield* leg(resume)
      if (!isInputRequiredResult(answer)) return answer as A
      rounds += 1
      if (rounds > MAX_INPUT_ROUNDS) {
        return yield* new ProtocolError({
          serverId: op.serverId,
          code: -32603,
          detail: `the server still asked for input after ${MAX_INPUT_ROUNDS} rounds`
        })
      }
      const round = readRound(op.serverId, answer)
      if (round instanceof ProtocolError) return yield* round
      if (relay !== undefined) return yield* relay.suspend(op, round, rounds)
      if (Object.keys(round.inputRequests).length === 0) yield* Effect.sleep(STATE_ONLY_PACING)
      const responses = yield* answerRound(caller, host, op.serverId, round)
      resume = { inputResponses: responses, requestState: round.requestState, rounds }
    }
  })

/** The params of a request leg: the request's own, plus the answers and the server's state when resuming. */
export const withResume = <P extends object>(params: P, resume: Resume | undefined): P =>
  resume === undefined
    ? params
    : {
      ...params,
      ...(resume.inputResponses === undefined || Object.keys(resume.inputResponses).length === 0
        ? {}
        : { inputResponses: resume.inputResponses }),
      ...(resume.requestState === undefined ? {} : { requestState: resume.requestState })
    }
