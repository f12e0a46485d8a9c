/**
 * Compaction: when the working transcript grows past `maxMessages`, the preCompact hooks run (they
 * may block it, or add instructions), then the compactor trims the history. The default compactor
 * keeps system messages, the first user message and the most recent messages, never starting the
 * kept tail on a tool result whose call was dropped.
 */
import { Effect } from "effect"
import type { Prompt } from "effect/ai"
import { AgentHookFailed } from "./AgentErrors.ts"
import { runEvent, STOP } from "./AgentHookRunner.ts"
import type { CompactionInfo } from "./CompactionOptions.ts"
import { type End, guardEnd, hookEnv, type LoopEnv, notify, type Progress } from "./RunContext.ts"

/** What a compactor is told, and the settings (CompactionOptions.ts). */
export type { CompactionInfo, CompactionOptions } from "./CompactionOptions.ts"

/** The default compactor: system messages, the first user message, and the most recent messages. */
export const keepRecent = (
  messages: ReadonlyArray<Prompt.Message>,
  info: CompactionInfo
): ReadonlyArray<Prompt.Message> => {
  const head: Array<Prompt.Message> = messages.filter((m) => m.role === "system")
  const firstUser = messages.find((m) => m.role === "user")
  if (firstUser !== undefined) head.push(firstUser)
  const room = Math.max(1, info.maxMessages - head.length)
  let tail = messages.filter((m) => !head.includes(m)).slice(-room)
  while (tail.length > 0 && tail[0].role === "tool") tail = tail.slice(1)
  return [...head, ...tail]
}

/** Compacts the progress's transcript when it is over the limit. Returns an End when the run must stop. */
export const compactIfNeeded = (env: LoopEnv, progress: Progress): Effect.Effect<End | undefined> => {
  const options = env.compaction
  if (options === undefined || progress.messages.length <= options.maxMessages) return Effect.succeed(undefined)
  return Effect.gen(function*() {
    const pre = yield* runEvent(hookEnv(env, progress), "preCompact", {
      input: () => ({ messages: progress.messages, turn: progress.turns, trigger: "auto" }),
      apply: (
        notes: ReadonlyArray<string>,
        verdict
      ) => (verdict._tag === "AddContext" ? [...notes, verdict.text] : verdict._tag === "Block" ? STOP : notes)
    }, [] as ReadonlyArray<string>)
    if (pre._tag === "Failed") return guardEnd("preCompact", pre)
    if (pre._tag === "Stopped") return undefined
    const before = progress.messages.length
    const info: CompactionInfo = {
      maxMessages: options.maxMessages,
      instructions: pre.state.join("\n"),
      turn: progress.turns
    }
    let compacted: ReadonlyArray<Prompt.Message>
    try {
      compacted = (options.compact ?? keepRecent)(progress.messages, info)
      if (!Array.isArray(compacted)) throw new Error("not an array")
    } catch {
      return {
        status: "error",
        error: new AgentHookFailed({ hookId: "compaction", event: "preCompact", kind: "raise" })
      } as const
    }
    progress.messages = [...compacted]
    yield* notify(
      env,
      progress,
      "compacted",
      `history compacted from ${before} to ${progress.messages.length} messages`
    )
    return undefined
  })
}
