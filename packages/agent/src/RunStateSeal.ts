/**
 * The seal of a suspended run's state: HMAC-SHA256 over the canonical JSON (RFC 8785) of the
 * state without its seal, under the agent's state key. An agent seals every state it hands out
 * and resumes only a state whose seal verifies, so whoever can edit a saved state cannot change
 * a pending call's arguments, digests or the transcript and have it approved on resume.
 */
import { Canonical, makeTrusted } from "@interlock/core"
import { Effect, Redacted, Schema } from "effect"
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import { InvalidRunState, UntrustedRunState } from "./AgentErrors.ts"
import { RunState } from "./RunState.ts"

/** The key a state is sealed with. */
export type StateKey = Redacted.Redacted<string>

/** The shortest state key accepted, in characters. */
export const MIN_KEY_LENGTH = 32

// A domain label, so that a seal can never be replayed as another HMAC of the same key.
const LABEL = "@interlock/agent/RunState/v1\n"

const encodeJson = Schema.encodeEffect(Schema.fromJsonString(RunState))

/** A fresh random key, for an agent that has no `stateKey`: its states resume on that agent only. */
export const ephemeralKey = (): StateKey => Redacted.make(randomBytes(32).toString("base64url"))

/** The seal of a state's content (its `seal` field left out); InvalidRunState when it cannot be encoded. */
const sealOf = (key: StateKey, state: RunState): Effect.Effect<string, InvalidRunState> =>
  encodeJson(state).pipe(
    Effect.mapError(() => new InvalidRunState({ detail: "the state cannot be encoded" })),
    Effect.flatMap((json) => {
      const { seal: _, ...content } = JSON.parse(json) as Record<string, unknown>
      const text = Canonical.canonicalJson(content)
      if (typeof text !== "string") return Effect.fail(new InvalidRunState({ detail: "the state is not JSON" }))
      return Effect.succeed(createHmac("sha256", Redacted.value(key)).update(LABEL).update(text).digest("hex"))
    })
  )

/** The state with its seal set. */
export const seal = (key: StateKey, state: RunState): Effect.Effect<RunState, InvalidRunState> =>
  Effect.map(sealOf(key, state), (value) => makeTrusted(RunState, { ...state, seal: value }))

const sameHex = (a: string, b: string): boolean => {
  const left = Buffer.from(a, "utf8")
  const right = Buffer.from(b, "utf8")
  return left.length === right.length && timingSafeEqual(left, right)
}

/** Succeeds with the state when its seal verifies under `key`; UntrustedRunState otherwise. */
export const verify = (
  key: StateKey,
  state: RunState
): Effect.Effect<RunState, InvalidRunState | UntrustedRunState> => {
  if (!(state instanceof RunState)) {
    return Effect.fail(new InvalidRunState({ detail: "not a run state of this version" }))
  }
  const given = state.seal
  if (typeof given !== "string" || given.length === 0) return Effect.fail(new UntrustedRunState({ reason: "unsealed" }))
  return Effect.flatMap(
    sealOf(key, state),
    (expected) =>
      sameHex(given, expected) ? Effect.succeed(state) : Effect.fail(new UntrustedRunState({ reason: "seal_mismatch" }))
  )
}
