/** The compaction settings of a run (`compaction`) and what a compactor is told; Compaction.ts runs them. */
import type { Prompt } from "effect/ai"

/** What a compactor is told. */
export interface CompactionInfo {
  readonly maxMessages: number
  /** Instructions added by preCompact hooks (AddContext), joined by newlines; "" when none. */
  readonly instructions: string
  readonly turn: number
}

/** Compaction settings. */
export interface CompactionOptions {
  /** Compact when the transcript has more messages than this. */
  readonly maxMessages: number
  /** Trims the history; default {@link keepRecent}. Must return messages (a throw fails the run closed). */
  readonly compact?:
    | ((messages: ReadonlyArray<Prompt.Message>, info: CompactionInfo) => ReadonlyArray<Prompt.Message>)
    | undefined
}
