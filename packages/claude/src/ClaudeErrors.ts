/**
 * The typed errors of @interlock/claude. None carries what a hook printed or raised, nor the
 * arguments or results of a call: those may hold secrets.
 */
import { Schema } from "effect"

/** An event that could not be read: not JSON, not an object, an unknown event, or a bad field. */
export class BadEvent extends Schema.TaggedError<BadEvent>()("BadEvent", {
  /** What is wrong, in one line: field names and expected types, never values. */
  detail: Schema.String
}) {
  override get message(): string {
    return this.detail
  }
}

/** How a Claude-style hook failed. */
export const ClaudeFailureKind = Schema.Literals([
  /** The hook threw, rejected or failed. */
  "raise",
  /** A command hook exited with a code other than 0 or 2, or was killed by a signal. */
  "exit",
  /** The hook did not answer before its deadline (a command's whole process group is killed). */
  "timeout",
  /** A command hook could not be started (missing executable, no shell). */
  "spawn",
  /** A command hook printed something that is not a JSON hook output, or too much of it. */
  "bad_output"
])

/** How a Claude-style hook failed. */
export type ClaudeFailureKind = typeof ClaudeFailureKind.Type

/** A Claude-style hook (a function or a command) failed. Interlock treats it as a HookFailed: fail closed. */
export class ClaudeHookFailed extends Schema.TaggedError<ClaudeHookFailed>()("ClaudeHookFailed", {
  hookId: Schema.String,
  kind: ClaudeFailureKind,
  /** For kind "exit": the exit code, or undefined when a signal ended the process. */
  exitCode: Schema.optional(Schema.Number)
}) {
  override get message(): string {
    const code = this.kind === "exit" && this.exitCode !== undefined ? ` (exit code ${this.exitCode})` : ""
    return `hook ${this.hookId} failed: ${this.kind}${code}`
  }
}

/** A Claude Code settings `hooks` section (or a Claude-style hooks config) was rejected. */
export class SettingsError extends Schema.TaggedError<SettingsError>()("SettingsError", {
  /** Where: for example `hooks.PreToolUse[0].hooks[1].command`. */
  path: Schema.String,
  detail: Schema.String
}) {
  override get message(): string {
    return `invalid Claude hooks config at ${this.path}: ${this.detail}`
  }
}
