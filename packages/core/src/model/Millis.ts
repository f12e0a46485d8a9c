/** Durations as configured (ms or an Effect Duration input) read as milliseconds, for deadlines. */
import { Duration, Option } from "effect"

/** The milliseconds of a duration input, or NaN when it is not one. Never throws. */
export const toMillis = (input: unknown): number => {
  const duration = Option.getOrUndefined(Duration.fromInput(input as Duration.Input))
  return duration === undefined ? Number.NaN : Duration.toMillis(duration)
}

/** Whether milliseconds make a usable deadline: positive and finite. */
export const isDeadline = (millis: number): boolean => millis > 0 && Number.isFinite(millis)
