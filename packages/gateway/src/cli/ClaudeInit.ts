/**
 * What `interlock init --claude` adds: a starter config's policy rules and redactions for Claude Code's built-in
 * tools, and the bridge's hooks (@interlock/claude's `bridgeSettings`) merged into the project's
 * `.claude/settings.json`: its other keys and hooks are kept, an event already wired to `claude-hook` is left as
 * it is, and a file that is not a JSON object is refused, never overwritten.
 */
import { bridgeSettings } from "@interlock/claude"
import { ConfigError } from "@interlock/core"
import * as path from "node:path"
import { shellQuote } from "../claude/ClaudeBashGuard.ts"

/** The settings file init writes, relative to the project (the working directory). */
export const CLAUDE_SETTINGS = path.join(".claude", "settings.json")

/**
 * The starter config's rules for Claude Code's built-ins (JSON lines, before the servers' ask rules); the default
 * denies the rest.
 */
export const CLAUDE_RULES: ReadonlyArray<string> = [
  `      // Claude Code's built-ins are server "claude". Reading and searching are allowed (redaction below ` +
  `guards them);`,
  `      // a Bash command runs only when a rule allows it: list yours here.`,
  ...["Read", "Glob", "Grep"].map((tool) =>
    `      { "id": "claude-${tool.toLowerCase()}", "match": "claude/${tool}", "decision": "allow" },`
  ),
  `      { "id": "claude-bash-status", "match": "claude/Bash", "decision": "allow", "when": { "args": { "command": ` +
  `{ "in": ["ls", "pwd", "git status", "git diff"] } } } },`
]

/**
 * The starter config's `redact` lines for Claude Code: secrets in Read (refused), Bash (filtered), Grep (content
 * refused) and MCP output.
 */
export const CLAUDE_REDACT: ReadonlyArray<string> = [
  "  // Secrets never reach the model: a Read of a file holding one is refused, a Bash command's output passes " +
  "`interlock redact`,",
  "  // Grep's matching lines are refused, and MCP results are redacted (see @interlock/claude's README for what " +
  "each tool gets).",
  `  "redact": [{ "match": "*", "detectors": "all" }, { "match": "claude/*", "pattern": ` +
  `"(password|secret|token)\\\\s*[=:]\\\\s*\\\\S+" }],`
]

/** A path as the hook's shell should see it: under `$CLAUDE_PROJECT_DIR` when it is inside `project`, else absolute. */
const inProject = (project: string, file: string): string => {
  const relative = path.relative(project, path.resolve(project, file))
  return relative.startsWith("..") || path.isAbsolute(relative)
    ? shellQuote(path.resolve(project, file))
    : `"$CLAUDE_PROJECT_DIR"/${shellQuote(relative)}`
}

/** The hook's bin: this CLI's own script (with this Node and its flags, when it was given any). */
export const hookBin = (project: string): string => {
  const script = process.argv[1] ?? "interlock"
  return process.execArgv.length === 0 && !path.relative(project, script).startsWith("..")
    ? inProject(project, script)
    : [process.execPath, ...process.execArgv, script].map(shellQuote).join(" ")
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * `existing` (the settings file's text, if any) with the bridge's hooks for `config` added: each
 * event's entry appended to that event's list, unless one of its hooks already runs `claude-hook`.
 */
export const mergeClaudeSettings = (
  existing: string | undefined,
  bin: string,
  config: string
): string | ConfigError => {
  let settings: unknown = {}
  if (existing !== undefined) {
    try {
      settings = JSON.parse(existing)
    } catch {
      settings = undefined
    }
  }
  if (!isObject(settings) || (settings.hooks !== undefined && !isObject(settings.hooks))) {
    return new ConfigError({
      path: CLAUDE_SETTINGS,
      detail: "is not a JSON object with an object `hooks`; init leaves it alone: fix it or move it away"
    })
  }
  const hooks: Record<string, unknown> = { ...(settings.hooks as Record<string, unknown> | undefined) }
  for (const [event, groups] of Object.entries(bridgeSettings({ bin, config }).hooks)) {
    const current = Array.isArray(hooks[event]) ? (hooks[event] as Array<unknown>) : []
    if (!JSON.stringify(current).includes("claude-hook")) hooks[event] = [...current, ...groups]
  }
  return `${JSON.stringify({ ...settings, hooks }, null, 2)}\n`
}

/** The lines printed after `init --claude`. */
export const claudeNextSteps = (settings: string, config: string, bin: string): ReadonlyArray<string> => [
  `Wrote ${settings} (the bridge's hooks, merged into what was there).`,
  "Next:",
  `  ${bin} check --claude ${settings}     # check that no hook can fail open`,
  `  claude                                  # Claude Code now asks Interlock before each tool call; edit ` +
  `${config}'s rules`
]

/** Where init puts the settings file's path, relative to `project` (for the hook: under $CLAUDE_PROJECT_DIR). */
export const claudeConfigPath = (project: string, config: string): string => inProject(project, config)
