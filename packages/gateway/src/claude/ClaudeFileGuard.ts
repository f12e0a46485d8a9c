/**
 * Redaction for Claude Code's Read, before it runs. Claude Code cannot replace a built-in's output, so the bridge
 * reads the file itself (on the same machine, in Claude Code's working directory) and denies the Read when a
 * redaction for `claude/Read` would change its text; an unreadable file is left to Claude Code, one too large to
 * check denied. A Grep that would print lines is denied when one applies to `claude/Grep`.
 */
import { type HookContext, type HooksConfig, type ToolCall, Verdict } from "@interlock/core"
import * as fs from "node:fs"
import * as path from "node:path"
import { promisify } from "node:util"
import { type Redaction, redactionsFor, redactText } from "../governance/Redactor.ts"

// fs's callbacks, not node:fs/promises, whose module loads readline's and the REPL's with it on every hook event.
const stat = promisify(fs.stat)
const readFile = promisify(fs.readFile)

/** The largest file the guard reads; a larger one is denied, as unchecked. */
export const MAX_CHECKED_BYTES = 16 * 1024 * 1024

/** The file a Read names, resolved against Claude Code's working directory (the event's `cwd`). */
const targetOf = (call: ToolCall, ctx: HookContext): string | undefined => {
  const file = call.args.file_path
  if (typeof file !== "string" || file === "") return undefined
  const cwd = (ctx.assigns.claude as { cwd?: unknown } | undefined)?.cwd
  return path.resolve(typeof cwd === "string" ? cwd : process.cwd(), file)
}

/** Whether the file's text would change under `redactions`; undefined when it cannot be read. */
const wouldRedact = async (
  file: string,
  redactions: ReadonlyArray<Redaction>
): Promise<boolean | "too large" | undefined> => {
  try {
    const info = await stat(file)
    if (!info.isFile()) return undefined
    if (info.size > MAX_CHECKED_BYTES) return "too large"
    const text = await readFile(file, "utf8")
    return redactText(text, redactions) !== text
  } catch {
    return undefined
  }
}

/** The guard's verdict on one Read under `redactions` (those that apply to `claude/Read`). */
export const readGuard =
  (redactions: ReadonlyArray<Redaction>) =>
  async (call: ToolCall, ctx: HookContext): Promise<Verdict.PreToolCallVerdict> => {
    const file = targetOf(call, ctx)
    const found = file === undefined ? undefined : await wouldRedact(file, redactions)
    if (found === "too large") {
      return Verdict.deny(
        `Interlock: this file is over ${MAX_CHECKED_BYTES} bytes, too large to check for text it redacts, so it is ` +
          `not read`
      )
    }
    return found === true
      ? Verdict.deny(
        "Interlock: this file holds text that Interlock redacts, and Claude Code cannot redact a built-in tool's " +
          "output, so it is not read"
      )
      : Verdict.continue
  }

/**
 * The guard on one Grep: its `content` mode prints the matching lines of any file, which Claude Code
 * cannot redact afterwards, so it is denied; the other modes print only paths and counts.
 */
export const grepGuard = (call: ToolCall): Verdict.PreToolCallVerdict =>
  call.args.output_mode === "content"
    ? Verdict.deny(
      "Interlock: Grep's matching lines cannot be redacted, so output_mode content is refused; search with " +
        "files_with_matches and Read the files"
    )
    : Verdict.continue

/**
 * The bridge's preToolCall guards on `claude/Read` and `claude/Grep`, each when a redaction applies to it (else none).
 */
export const fileGuardHooks = (redactions: ReadonlyArray<Redaction>): HooksConfig => {
  const read = redactionsFor(redactions, "claude", "Read")
  const grep = redactionsFor(redactions, "claude", "Grep")
  if (read.length === 0 && grep.length === 0) return {}
  return {
    preToolCall: [
      ...(read.length === 0
        ? []
        : [{ match: "claude/Read", id: "redact-read", kind: "guard" as const, run: readGuard(read) }]),
      ...(grep.length === 0
        ? []
        : [{ match: "claude/Grep", id: "redact-grep", kind: "guard" as const, run: grepGuard }])
    ]
  }
}
