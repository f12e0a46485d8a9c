/**
 * Redaction for Claude Code's Bash, before it runs. Claude Code cannot replace a built-in tool's output, so when a
 * redaction applies to `claude/Bash` the bridge rewrites the command (PreToolUse's `updatedInput`, after the
 * policy decided on the command as written) into POSIX sh that pipes its stdout and stderr through `interlock
 * redact`, keeping its status, `exit` and working directory. `run_in_background` too.
 */
import type { JsonObject, ToolCall } from "@interlock/core"
import { type Redaction, redactionsFor } from "../governance/Redactor.ts"

/** A POSIX shell word that stands for `text` exactly (single quotes; a quote inside becomes '\''). */
export const shellQuote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`

/**
 * `text` on one line for printf's `%b`: backslash and newline escaped. On one line, the command's
 * line numbers in bash's messages are its own (bash counts an eval's lines from the word's last line).
 */
const oneLine = (text: string): string => text.replaceAll("\\", "\\\\").replaceAll("\n", "\\n")

/**
 * What the rewrite starts with (a no-op, for whoever reads the command). Never trusted: a command may start with it
 * too.
 */
export const REWRITE_MARK = ": interlock redacts the output of this command; "

/** Whether `command` parses as a whole shell program: `bash -n` on it exits 0 and warns of nothing (no bash: no). */
export const parsesWhole = (command: string): boolean => {
  // child_process (with net and dgram) is loaded here, on the first check, not with this module: most hook events run
  // no command.
  const result = process.getBuiltinModule("node:child_process").spawnSync("bash", ["-n"], {
    input: command,
    encoding: "utf8",
    timeout: 5_000
  })
  return result.status === 0 && result.stderr === ""
}

/** What runs instead of a command that does not parse as a whole: a refusal on stderr, exit status 2. */
export const REFUSAL =
  `printf '%s\\n' 'interlock: this command does not parse as a whole shell program, so it was not run (its output ` +
  `must pass the redactor)' >&2; (exit 2)`

/**
 * `command` rewritten so that its output passes through `filter` (a shell command line). The command is one
 * single-quoted word (escaped for printf's `%b`, which gives it back byte for byte) given to `eval`, in a subshell
 * whose stdout and stderr go to the filter. Its EXIT trap writes its status and directory to descriptor 8 (the
 * filter writes to descriptor 9), and the outer shell `cd`s there, exits if the command called `exit`, and leaves
 * its status as `$?`. A failing filter loses the output, never shows it, and its status is the result. The
 * command is repeated, as written, in an `if false` block, so that Claude Code's permission rules see its words.
 */
export const throughFilter = (command: string, filter: string): string =>
  // The eval is on the first line, so that bash's error messages give the command's own line numbers.
  `${REWRITE_MARK}{ __il_r=$( { ( trap '__il_s=$?; printf "%s %s %s" "$__il_s" "$__il_how" "$(pwd -P)" >&8' EXIT; __il_how=exit; __il_c=$(printf '%b.' ${
    shellQuote(oneLine(command))
  }); eval "\${__il_c%.}"
  __il_s=$?; __il_how=end; exit "$__il_s"
) 2>&1 | ${filter} >&9; } 8>&1 ); } 9>&1
__il_f=$?
__il_s=\${__il_r%% *}; __il_r=\${__il_r#* }; __il_how=\${__il_r%% *}; __il_d=\${__il_r#* }
if [ "$__il_f" -ne 0 ] || [ -z "$__il_s" ]; then exit "$(( __il_f == 0 ? 1 : __il_f ))"; fi
[ -n "$__il_d" ] && cd -P -- "$__il_d" >/dev/null 2>&1
[ "$__il_how" = exit ] && exit "$__il_s"
# The command as written, never run: Claude Code's own permission rules check this (rewritten) input and see its commands.
if false; then :
${command}
fi
(exit "$__il_s")`

/** The filter command line: this process's own bin (`interlock redact`) on `config`, for `claude/Bash`. */
export const filterCommand = (
  config: string,
  bin: ReadonlyArray<string> = [process.execPath, ...process.execArgv, process.argv[1] ?? ""]
): string => [...bin, "redact", "--config", config, "--tool", "claude/Bash"].map(shellQuote).join(" ")

/**
 * The bridge's last rewrite of a Bash call it lets run, when a redaction applies to `claude/Bash`
 * (else undefined): the command through `filter`, or REFUSAL when it does not parse whole (a stray
 * `fi` or an unended here-document could close the `if false` copy and run outside the filter).
 */
export const bashRewrite = (redactions: ReadonlyArray<Redaction>, filter: string) => {
  if (redactionsFor(redactions, "claude", "Bash").length === 0) return undefined
  return (call: ToolCall): JsonObject | undefined => {
    const command = call.args.command
    // A command that looks rewritten is rewritten all the same: the model chooses its command, mark and all.
    if (call.serverId !== "claude" || call.name !== "Bash" || typeof command !== "string") return undefined
    return { ...call.args, command: parsesWhole(command) ? throughFilter(command, filter) : REFUSAL }
  }
}
