/**
 * Checks a Claude Code settings.json for bridge hooks that could fail open: Claude Code lets a
 * tool run when its hook exits 1, is killed at its `timeout` or cannot start, unless the hook sets
 * `"onFailure": "block"` (which older Claude Codes ignore: see the README), and it never blocks on an async
 * hook. `checkSettings` is pure: the caller reads the file and says which paths exist.
 */
import { Exit, Schema } from "effect"
import { deadlineMillis, DEFAULT_HOOK_TIMEOUT_SECONDS, parseTimeout } from "./HookDeadline.ts"

const Rest = [Schema.Record(Schema.String, Schema.Unknown)] as const

/** One hook of a settings file, as far as the check reads it. */
const HookEntry = Schema.StructWithRest(
  Schema.Struct({
    type: Schema.String,
    command: Schema.optional(Schema.String),
    timeout: Schema.optional(Schema.Number),
    onFailure: Schema.optional(Schema.String),
    async: Schema.optional(Schema.Boolean)
  }),
  Rest
)

/** A settings file, as far as the check reads it. */
const SettingsFile = Schema.StructWithRest(
  Schema.Struct({
    disableAllHooks: Schema.optional(Schema.Boolean),
    hooks: Schema.optional(
      Schema.Record(
        Schema.String,
        Schema.Array(
          Schema.StructWithRest(
            Schema.Struct({ matcher: Schema.optional(Schema.String), hooks: Schema.Array(HookEntry) }),
            Rest
          )
        )
      )
    )
  }),
  Rest
)

/** One thing the check found: where (a JSON path in the file), how bad, and what to do. */
export interface Finding {
  readonly path: string
  readonly level: "error" | "warning"
  readonly message: string
}

/** The events a bridge hook must cover for every tool: without PreToolUse no call is governed. */
const TOOL_EVENTS = ["PreToolUse", "PermissionRequest", "PostToolUse", "PostToolUseFailure"] as const

/** Splits a command line into words, honouring single and double quotes (enough to find flags). */
export const words = (command: string): ReadonlyArray<string> => {
  const out: Array<string> = []
  let word: string | undefined
  let quote: string | undefined
  for (const ch of command) {
    if (quote !== undefined) {
      if (ch === quote) quote = undefined
      else word = (word ?? "") + ch
    } else if (ch === "'" || ch === `"`) {
      quote = ch
      word = word ?? ""
    } else if (/\s/.test(ch)) {
      if (word !== undefined) out.push(word)
      word = undefined
    } else word = (word ?? "") + ch
  }
  if (word !== undefined) out.push(word)
  return out
}

/** The value after `flag` (`--flag V` or `--flag=V`) among `argv`, if any. */
const flagValue = (argv: ReadonlyArray<string>, flag: string): string | undefined => {
  const index = argv.findIndex((word) => word === flag || word.startsWith(`${flag}=`))
  if (index < 0) return undefined
  const word = argv[index]
  return word.includes("=") ? word.slice(flag.length + 1) : argv[index + 1]
}

/** Whether a hook command runs the bridge (`... claude-hook ...`). */
export const runsBridge = (command: string): boolean => words(command).includes("claude-hook")

/** Whether a command runs a bare `npx interlock`, which resolves an unrelated package of that name. */
const bareNpx = (argv: ReadonlyArray<string>): boolean => {
  const npx = argv.findIndex((word) => word === "npx" || word.endsWith("/npx"))
  return npx >= 0 && argv.slice(npx + 1).find((word) => !word.startsWith("-")) === "interlock"
}

/** Whether a matcher covers every tool (absent, "", "*"). */
const coversAll = (matcher: string | undefined): boolean => matcher === undefined || matcher === "" || matcher === "*"

/** The findings of one bridge hook at `at`. */
const hookFindings = (
  at: string,
  hook: typeof HookEntry.Type,
  exists: (file: string) => boolean
): ReadonlyArray<Finding> => {
  const argv = words(hook.command ?? "")
  const found: Array<Finding> = []
  const error = (message: string): void => {
    found.push({ path: at, level: "error", message })
  }
  if (hook.onFailure !== "block") {
    error(
      `no "onFailure": "block": Claude Code lets the tool run when the bridge cannot run (exit 1, killed at its ` +
        `timeout, a missing bin); Claude Code 2.1.295 and later honour it`
    )
  }
  if (hook.async === true) error(`"async": true: Claude Code never waits for an async hook, so it cannot deny`)
  if (bareNpx(argv)) {
    error(
      "a bare `npx interlock` runs an unrelated package of that name: use the installed bin's path or `npx " +
        "--no-install @interlock/gateway`"
    )
  }
  const config = flagValue(argv, "--config") ?? flagValue(argv, "-c")
  // A forwarding hook (`--gateway URL`) is answered by the gateway's own config.
  const forwards = flagValue(argv, "--gateway") !== undefined
  if (forwards) {
    if (config !== undefined) {
      error("both --gateway and --config: the forwarding client takes only --timeout, so it would deny every call")
    }
  } else if (config === undefined) {
    error("no --config: the bridge looks for interlock.config.* in Claude Code's working directory")
  } else if (!config.includes("$") && !exists(config)) {
    error(`the config ${config} does not exist: every call would be denied`)
  }
  const flag = flagValue(argv, "--timeout")
  const bridgeTimeout = parseTimeout(flag)
  if (typeof bridgeTimeout === "string") {
    return [...found, { path: at, level: "error", message: `${bridgeTimeout}: the bridge answers every call closed` }]
  }
  if (hook.timeout === undefined) {
    error(
      `no "timeout": Claude Code's default depends on its version; set one and pass the same --timeout to the bridge`
    )
  } else if (deadlineMillis(bridgeTimeout) >= hook.timeout * 1_000) {
    const given = flag === undefined
      ? `assumes ${DEFAULT_HOOK_TIMEOUT_SECONDS} s (no --timeout)`
      : `has --timeout ${flag}`
    error(
      `"timeout": ${hook.timeout} is not above the bridge's deadline (it ${given}): Claude Code would kill it ` +
        `first; pass --timeout ${hook.timeout}`
    )
  } else if (flag === undefined) {
    found.push({
      path: at,
      level: "warning",
      message:
        `no --timeout: the bridge assumes ${DEFAULT_HOOK_TIMEOUT_SECONDS} s; pass --timeout ${hook.timeout} to ` +
        `match "timeout"`
    })
  }
  return found
}

/**
 * Checks a parsed settings.json: every hook that runs the bridge, and whether the bridge covers
 * every tool in each tool event (PreToolUse above all). `exists` says whether a config path exists.
 */
export const checkSettings = (value: unknown, exists: (file: string) => boolean): ReadonlyArray<Finding> => {
  const decoded = Schema.decodeUnknownExit(SettingsFile)(value)
  if (Exit.isFailure(decoded)) {
    return [{
      path: "$",
      level: "error",
      message: "not a Claude Code settings file (hooks: { Event: [{ matcher, hooks: [...] }] })"
    }]
  }
  const settings = decoded.value
  const found: Array<Finding> = []
  if (settings.disableAllHooks === true) {
    found.push({
      path: "disableAllHooks",
      level: "error",
      message: "true: Claude Code runs no hook, so nothing is governed"
    })
  }
  const hooks = settings.hooks ?? {}
  for (const [event, groups] of Object.entries(hooks)) {
    for (const [g, group] of groups.entries()) {
      for (const [h, hook] of group.hooks.entries()) {
        if (hook.type === "command" && runsBridge(hook.command ?? "")) {
          found.push(...hookFindings(`hooks.${event}[${g}].hooks[${h}]`, hook, exists))
        }
      }
    }
  }
  for (const event of TOOL_EVENTS) {
    const bridged = (hooks[event] ?? []).filter((group) =>
      group.hooks.some((hook) => hook.type === "command" && runsBridge(hook.command ?? ""))
    )
    if (bridged.some((group) => coversAll(group.matcher))) continue
    const level = event === "PreToolUse" ? "error" : "warning"
    const what = bridged.length === 0
      ? "no hook runs the bridge"
      : `the bridge's matchers (${bridged.map((group) => JSON.stringify(group.matcher)).join(", ")}) miss tools`
    const effect = event === "PreToolUse"
      ? "calls to the tools it misses are not governed"
      : "the tools it misses skip Interlock at this event"
    found.push({ path: `hooks.${event}`, level, message: `${what}: ${effect}; use "matcher": "*"` })
  }
  return found
}
