/** Streamed runs in tests: collect a run's events, pick them by tag, read the RunResult at the end. */
import { assert } from "@effect/vitest"
import { Policy } from "@interlock/core"
import { Effect, Stream } from "effect"
import { Agent, type RunResult, type StreamEvent } from "../../src/index.ts"
import { type Fake, openAi } from "./FakeLlm.ts"

type Event = StreamEvent.StreamEvent

/** Streams a run on the fake server's model (OpenAI by default) and collects its events. */
export const streamOn = (server: Fake, prompt: string, options: Record<string, unknown> = {}) =>
  Effect.map(
    Stream.runCollect(Agent.stream(prompt, { model: openAi(server), policy: Policy.allowAll, ...options })),
    (events) => Array.from(events)
  )

/** The events of one tag. */
export const only = <T extends Event["_tag"]>(events: ReadonlyArray<Event>, tag: T) =>
  events.filter((e): e is Extract<Event, { _tag: T }> => e._tag === tag)

/** The run's result: the last event. */
export const resultOf = (events: ReadonlyArray<Event>): RunResult => {
  const last = events.at(-1)
  assert.strictEqual(last?._tag, "Result")
  return (last as Extract<Event, { _tag: "Result" }>).result
}
