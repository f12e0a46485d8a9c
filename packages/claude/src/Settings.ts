/**
 * Claude Code's settings.json `hooks` section as Interlock hooks:
 *   {"hooks": {"PreToolUse": [{"matcher": "Bash|mcp__fs__.*", "hooks": [{"type": "command", "command": "..."}]}]}}
 * Only command hooks (`timeout` in seconds, `async` allowed). An unknown event or another hook type is a
 * SettingsError unless `ignoreUnknown` is set: a hook the user believes in must not be dropped silently.
 */
import type { HooksConfig } from "@interlock/core"
import { Effect, Predicate } from "effect"
import { SettingsError } from "./ClaudeErrors.ts"
import { CLAUDE_EVENTS, isClaudeEvent } from "./ClaudeEvent.ts"
import { type ClaudeHooksConfig, type ClaudeMatcherGroup, compile, type CompiledClaudeHooks } from "./ClaudeHook.ts"
import { command, type CommandOptions } from "./CommandHook.ts"
import { entriesOf } from "./ToolHooks.ts"

/** Options of {@link fromSettings}. */
export interface SettingsOptions {
  /** Skip events Interlock does not speak and non-command hooks instead of failing; default false. */
  readonly ignoreUnknown?: boolean
  /** Passed to every command hook. */
  readonly command?: Pick<CommandOptions, "cwd" | "env" | "maxOutputBytes">
}

const HOOK_KEYS = new Set(["type", "command", "timeout", "async"])

const readHook = (
  raw: unknown,
  path: string,
  options: SettingsOptions
): ReturnType<typeof command> | SettingsError | undefined => {
  const error = (detail: string, where = path) => new SettingsError({ path: where, detail })
  if (!Predicate.isObject(raw)) return error("a hook must be an object { type, command, timeout? }")
  if (raw.type !== "command") {
    return options.ignoreUnknown === true
      ? undefined
      : error(
        `only "command" hooks can run here, got type ${JSON.stringify(String(raw.type)).slice(0, 40)}`,
        `${path}.type`
      )
  }
  for (const key of Object.keys(raw)) if (!HOOK_KEYS.has(key)) return error(`unknown key "${key.slice(0, 40)}"`)
  if (typeof raw.command !== "string" || raw.command.trim().length === 0) {
    return error("must be a non-empty string", `${path}.command`)
  }
  if (
    raw.timeout !== undefined && (typeof raw.timeout !== "number" || !Number.isFinite(raw.timeout) || raw.timeout <= 0)
  ) {
    return error("must be a positive number of seconds", `${path}.timeout`)
  }
  if (raw.async !== undefined && typeof raw.async !== "boolean") return error("must be a boolean", `${path}.async`)
  return command({
    ...options.command,
    command: raw.command,
    ...(raw.timeout === undefined ? {} : { timeout: (raw.timeout as number) * 1000 }),
    ...(raw.async === true ? { async: true } : {})
  })
}

/** Reads a settings object (or its `hooks` section) into a Claude-style hooks config of command hooks. */
export const fromSettings = (
  settings: unknown,
  options: SettingsOptions = {}
): Effect.Effect<ClaudeHooksConfig, SettingsError> =>
  Effect.suspend(() => {
    if (!Predicate.isObject(settings)) {
      return Effect.fail(new SettingsError({ path: "settings", detail: "must be a JSON object" }))
    }
    const section = "hooks" in settings ? settings.hooks : settings
    if (!Predicate.isObject(section)) {
      return Effect.fail(new SettingsError({ path: "hooks", detail: "must be an object of events" }))
    }
    const config: Record<string, Array<ClaudeMatcherGroup>> = {}
    for (const [event, groups] of Object.entries(section)) {
      const where = `hooks.${event.slice(0, 40)}`
      if (!isClaudeEvent(event)) {
        if (options.ignoreUnknown === true) continue
        return Effect.fail(
          new SettingsError({
            path: where,
            detail: `Interlock does not run this event; the events are ${CLAUDE_EVENTS.join(", ")}`
          })
        )
      }
      if (!Array.isArray(groups)) {
        return Effect.fail(new SettingsError({ path: where, detail: "must be an array of { matcher, hooks }" }))
      }
      config[event] = []
      for (let g = 0; g < groups.length; g++) {
        const group: unknown = groups[g]
        const path = `${where}[${g}]`
        if (!Predicate.isObject(group) || !Array.isArray(group.hooks)) {
          return Effect.fail(new SettingsError({ path, detail: "must be { matcher?, hooks: [...] }" }))
        }
        if (group.matcher !== undefined && typeof group.matcher !== "string") {
          return Effect.fail(new SettingsError({ path: `${path}.matcher`, detail: "must be a string" }))
        }
        const hooks = []
        for (let h = 0; h < group.hooks.length; h++) {
          const hook = readHook(group.hooks[h], `${path}.hooks[${h}]`, options)
          if (hook instanceof SettingsError) return Effect.fail(hook)
          if (hook !== undefined) hooks.push(hook)
        }
        config[event].push({ ...(group.matcher === undefined ? {} : { matcher: group.matcher }), hooks })
      }
    }
    return Effect.succeed(config as ClaudeHooksConfig)
  })

/** Compiled Claude-style hooks from settings (for the bridge's agent events and for approvers). */
export const compileSettings = (
  settings: unknown,
  options: SettingsOptions = {}
): Effect.Effect<CompiledClaudeHooks, SettingsError> => Effect.flatMap(fromSettings(settings, options), compile)

/** Interlock hooks (preToolCall, postToolCall, toolCallFailed) from settings, for `Interlock.layer({ hooks })`. */
export const settingsHooks = (
  settings: unknown,
  options: SettingsOptions = {}
): Effect.Effect<HooksConfig, SettingsError> => Effect.map(compileSettings(settings, options), entriesOf)
