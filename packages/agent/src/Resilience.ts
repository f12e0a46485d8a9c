/**
 * Retries of model requests through a Schedule: exponential backoff with jitter, on 429, 5xx and
 * network errors, honouring Retry-After (seconds). A host `onError(info)` may decide instead
 * (retry or fail), always capped by `retries`.
 */
import { toMillis } from "@interlock/core"
import { Duration, Effect, Schedule } from "effect"
import type { AiError } from "effect/ai"
import { ModelFailed } from "./AgentErrors.ts"

/** Retry settings. */
export interface RetryOptions {
  /** Retries after the first request; default 2. */
  readonly retries?: number
  /** The first backoff delay; default 500 ms, doubling each retry. */
  readonly base?: Duration.Input
  /** The longest backoff delay (Retry-After may ask for longer); default 30 s. */
  readonly maxDelay?: Duration.Input
}

/** What `onError` is told about a failed model request. Never the request or the response body. */
export interface ModelErrorInfo {
  /** 1 for the first request. */
  readonly attempt: number
  /** The HTTP status, when the provider answered. */
  readonly status: number | undefined
  /** effect/ai's reason tag. */
  readonly reason: string
  /** Whether the default policy would retry (429, 5xx, network). */
  readonly retryable: boolean
  /** The provider's Retry-After, in ms. */
  readonly retryAfterMs: number | undefined
}

/** The host's decision for a failed model request. */
export type OnError = (info: ModelErrorInfo) => "retry" | "fail"

/** Resolved retry settings. */
export interface RetryPolicy {
  readonly retries: number
  readonly baseMs: number
  readonly maxDelayMs: number
  readonly onError: OnError | undefined
}

const statusOf = (error: AiError.AiError): number | undefined => {
  const http = (error.reason as { http?: { response?: { status?: number } } }).http
  return http?.response?.status
}

/** The info handed to onError for a failure. */
export const infoOf = (error: AiError.AiError, attempt: number): ModelErrorInfo => {
  const after = error.retryAfter
  return {
    attempt,
    status: statusOf(error),
    reason: error.reason._tag,
    retryable: error.isRetryable &&
      (error.reason._tag === "RateLimitError" || error.reason._tag === "InternalProviderError" ||
        error.reason._tag === "NetworkError"),
    retryAfterMs: after === undefined ? undefined : Duration.toMillis(after)
  }
}

const schedules = new WeakMap<RetryPolicy, Schedule.Schedule<Duration.Duration, AiError.AiError>>()

/** The backoff schedule of a policy (built once per policy). */
const scheduleOf = (policy: RetryPolicy): Schedule.Schedule<Duration.Duration, AiError.AiError> => {
  let schedule = schedules.get(policy)
  if (schedule === undefined) {
    schedule = backoff(policy)
    schedules.set(policy, schedule)
  }
  return schedule
}

/** The backoff schedule: exponential with jitter, capped, and never shorter than Retry-After. */
export const backoff = (policy: RetryPolicy): Schedule.Schedule<Duration.Duration, AiError.AiError> =>
  Schedule.exponential(Duration.millis(policy.baseMs)).pipe(
    Schedule.jittered,
    Schedule.modifyDelay(({ duration, input }) => {
      const capped = Math.min(Duration.toMillis(duration), policy.maxDelayMs)
      const after = (input as AiError.AiError | undefined)?.retryAfter
      return Effect.succeed(Duration.millis(after === undefined ? capped : Math.max(capped, Duration.toMillis(after))))
    })
  ) as Schedule.Schedule<Duration.Duration, AiError.AiError>

/**
 * Runs a model request with retries. Fails with ModelFailed, which names the status and the
 * attempts, nothing more. `canRetry` vetoes a retry (a streamed answer that already showed something).
 */
export const withRetries = <A>(
  request: Effect.Effect<A, AiError.AiError>,
  policy: RetryPolicy,
  canRetry?: () => boolean
): Effect.Effect<{ readonly value: A; readonly attempts: number }, ModelFailed> => {
  let attempts = 0
  const attempt = Effect.suspend(() => {
    attempts++
    return request
  })
  const decide = (error: AiError.AiError): boolean => {
    if (canRetry !== undefined && !canRetry()) return false
    const info = infoOf(error, attempts)
    let retry = info.retryable
    if (policy.onError !== undefined) {
      try {
        retry = policy.onError(info) === "retry"
      } catch {
        retry = false
      }
    }
    return retry && attempts <= policy.retries
  }
  // The first request runs bare; the Schedule is stepped only once a request has failed.
  const retrying = (first: AiError.AiError) =>
    Effect.gen(function*() {
      const step = yield* Schedule.toStepWithSleep(scheduleOf(policy))
      let error = first
      while (true) {
        yield* Effect.ignore(step(error))
        const again = yield* Effect.result(attempt)
        if (again._tag === "Success") return again.success
        error = again.failure
        if (!decide(error)) return yield* Effect.fail(error)
      }
    })
  return attempt.pipe(
    Effect.catch((error: AiError.AiError) => (decide(error) ? retrying(error) : Effect.fail(error))),
    Effect.matchEffect({
      onSuccess: (value) => Effect.succeed({ value, attempts }),
      onFailure: (error) =>
        Effect.fail(new ModelFailed({ reason: error.reason._tag, status: statusOf(error), attempts }))
    })
  )
}

/** Reads a duration option into ms, or undefined when it is not a finite, non-negative duration. */
export const millisOf = (input: Duration.Input | undefined, fallback: number): number | undefined => {
  if (input === undefined) return fallback
  const millis = toMillis(input)
  return Number.isFinite(millis) && millis >= 0 ? millis : undefined
}
