/**
 * One framework tool's run for the bridge's transport, under the call's deadline: the tool gets a signal that aborts
 * at the deadline or when the call is interrupted, and the call fails with core's Timeout at the deadline whether or
 * not the tool stops. One timer and no fiber per call, so the pipeline sets none (`enforcesDeadline`).
 */
import { Timeout, type ToolResult } from "@interlock/core"
import { Effect } from "effect"

/** What the tool did: its value (a framework's preliminary results reduced to the last), or what it threw. */
export type Outcome = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown }

/** A tool's output, settled: the last value of an async iterable (a framework's preliminary results), or the value. */
const settle = async (output: unknown): Promise<unknown> => {
  const value = await output
  if (value === null || typeof value !== "object" || !(Symbol.asyncIterator in value)) return value
  let last: unknown
  for await (const item of value as AsyncIterable<unknown>) last = item
  return last
}

/**
 * Runs `run` with a signal, and maps what it did with `toResult`. A `run` that throws at once is an outcome like a
 * rejection; `timeoutMs` undefined or not finite sets no timer.
 */
export const runTool = (
  run: (signal: AbortSignal) => unknown,
  timeoutMs: number | undefined,
  toResult: (outcome: Outcome) => ToolResult
): Effect.Effect<ToolResult, Timeout> =>
  Effect.callback<ToolResult, Timeout>((resume) => {
    const controller = new AbortController()
    let done = false
    let timer: ReturnType<typeof setTimeout> | undefined
    const end = (effect: Effect.Effect<ToolResult, Timeout>) => {
      if (done) return
      done = true
      if (timer !== undefined) clearTimeout(timer)
      resume(effect)
    }
    const outcome = (value: Outcome) => end(Effect.sync(() => toResult(value)))
    if (timeoutMs !== undefined && Number.isFinite(timeoutMs)) {
      timer = setTimeout(() => {
        const timeout = new Timeout({ millis: timeoutMs })
        end(Effect.fail(timeout))
        controller.abort(timeout)
      }, timeoutMs)
    }
    let output: unknown
    try {
      output = run(controller.signal)
    } catch (error) {
      outcome({ ok: false, error })
      return
    }
    settle(output).then((value) => outcome({ ok: true, value }), (error) => outcome({ ok: false, error }))
    return Effect.sync(() => {
      done = true
      if (timer !== undefined) clearTimeout(timer)
      controller.abort()
    })
  })
