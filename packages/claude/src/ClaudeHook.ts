/**
 * Claude-style hooks: `(input, toolUseId) => "ok" | [action, opts] | output`, as a plain value, a
 * Promise or an Effect. A config groups them per event under Claude Code matchers (regexes on
 * Claude's tool names, or on the event's own subject). This module compiles such a config and
 * runs one hook under its deadline; what it returned becomes Claude Code's output (the seed's table).
 */
import { HookRunner, isDeadline, toMillis } from "@interlock/core"
import { type Duration, Effect, Predicate } from "effect"
import { ClaudeHookFailed, SettingsError } from "./ClaudeErrors.ts"
import { CLAUDE_EVENTS, type ClaudeEventName, type ClaudeInput, isClaudeEvent, TOOL_EVENTS } from "./ClaudeEvent.ts"
import { type ClaudeReturn, coerce, type Coerced } from "./ReturnValue.ts"

/** A Claude-style hook function. An Effect it returns may fail with ClaudeHookFailed (command hooks do). */
export type ClaudeHookFn = (
  input: ClaudeInput,
  toolUseId: string | undefined
) => ClaudeReturn | PromiseLike<ClaudeReturn> | Effect.Effect<ClaudeReturn, unknown>

/** A hook with its options. */
export interface ClaudeHookSpec {
  readonly run: ClaudeHookFn
  /** Names the hook in receipts, audit rows and errors; default `<Event>[<group>].<index>`. */
  readonly id?: string
  /** The hook's deadline (ms or a Duration); default the pipeline's hookTimeout (commands: 60 s). */
  readonly timeout?: Duration.Input
  /** Run detached as an observer: the event goes on at once and the hook's answer is ignored. */
  readonly async?: boolean
}

/** A matcher group: Claude Code's `{ matcher, hooks }`. */
export interface ClaudeMatcherGroup {
  /** A regex on the Claude tool name (anchored; `"*"`, `""` or absent match everything). */
  readonly matcher?: string
  readonly hooks: ReadonlyArray<ClaudeHookFn | ClaudeHookSpec>
}

/** A Claude-style hooks config, per Claude Code event. */
export type ClaudeHooksConfig = { readonly [E in ClaudeEventName]?: ReadonlyArray<ClaudeMatcherGroup> }

/** One compiled hook. */
export interface CompiledClaudeHook {
  readonly id: string
  readonly event: ClaudeEventName
  readonly matcher: string
  /** Whether the hook applies to this subject (tool name, trigger, notification type or agent type). */
  readonly matches: (subject: string | undefined) => boolean
  readonly run: ClaudeHookFn
  readonly timeoutMs: number | undefined
  readonly async: boolean
}

/** Compiled hooks, per event, in declaration order. */
export type CompiledClaudeHooks = { readonly [E in ClaudeEventName]: ReadonlyArray<CompiledClaudeHook> }

const GROUP_KEYS = new Set(["matcher", "hooks"])
const SPEC_KEYS = new Set(["run", "id", "timeout", "async"])

/** Compiles a Claude Code matcher: an anchored regex, or everything for `*`, `""` or absent. */
export const compileMatcher = (matcher: string | undefined): ((subject: string | undefined) => boolean) | string => {
  if (matcher === undefined || matcher === "" || matcher === "*") return () => true
  let regex: RegExp
  try {
    regex = new RegExp(`^(?:${matcher})$`, "u")
  } catch {
    return "matcher is not a valid regular expression"
  }
  return (subject) => subject !== undefined && regex.test(subject)
}

/** The subject an event's matcher is tested against. */
export const subjectOf = (input: ClaudeInput): string | undefined => {
  if (TOOL_EVENTS.has(input.hook_event_name)) return (input as { tool_name: string }).tool_name
  switch (input.hook_event_name) {
    case "PreCompact":
      return input.trigger
    case "Notification":
      return input.notification_type
    case "SubagentStart":
    case "SubagentStop":
      return input.agent_type
    default:
      return undefined
  }
}

/** A duration input (ms or a Duration) as milliseconds, or undefined unless positive and finite. */
export const millis = (value: unknown): number | undefined => {
  const ms = toMillis(value)
  return isDeadline(ms) ? ms : undefined
}

const compileHook = (
  event: ClaudeEventName,
  path: string,
  defaultId: string,
  matcher: string,
  matches: CompiledClaudeHook["matches"],
  raw: unknown,
  ids: Set<string>
): CompiledClaudeHook | SettingsError => {
  const error = (detail: string) => new SettingsError({ path, detail })
  const spec: Record<string, unknown> = typeof raw === "function" ? { run: raw } : Predicate.isObject(raw) ? raw : {}
  if (typeof spec.run !== "function") return error("a hook must be a function or { run, id?, timeout?, async? }")
  for (const key of Object.keys(spec)) if (!SPEC_KEYS.has(key)) return error(`unknown option "${key.slice(0, 40)}"`)
  if (spec.id !== undefined && (typeof spec.id !== "string" || spec.id.length === 0)) {
    return error("id must be a non-empty string")
  }
  const id = (spec.id as string | undefined) ?? defaultId
  if (ids.has(id)) return error(`duplicate hook id "${id}"`)
  const timeoutMs = spec.timeout === undefined ? undefined : millis(spec.timeout)
  if (spec.timeout !== undefined && timeoutMs === undefined) {
    return error("timeout must be a positive, finite duration (ms or a Duration)")
  }
  if (spec.async !== undefined && typeof spec.async !== "boolean") return error("async must be a boolean")
  ids.add(id)
  return { id, event, matcher, matches, run: spec.run as ClaudeHookFn, timeoutMs, async: spec.async === true }
}

/** A table with no hooks: an empty list per event. */
export const emptyHooks = (): Record<ClaudeEventName, Array<CompiledClaudeHook>> =>
  Object.fromEntries(CLAUDE_EVENTS.map((event) => [event, [] as Array<CompiledClaudeHook>])) as Record<
    ClaudeEventName,
    Array<CompiledClaudeHook>
  >

/** Compiles a Claude-style hooks config. Fails with a SettingsError naming the event, group and hook. */
export const compile = (config: ClaudeHooksConfig): Effect.Effect<CompiledClaudeHooks, SettingsError> =>
  Effect.suspend(() => {
    const out = emptyHooks()
    if (!Predicate.isObject(config)) {
      return Effect.fail(new SettingsError({ path: "hooks", detail: "must be an object of events" }))
    }
    const ids = new Set<string>()
    for (const [event, groups] of Object.entries(config)) {
      if (groups === undefined) continue
      if (!isClaudeEvent(event)) {
        return Effect.fail(
          new SettingsError({
            path: `hooks.${event.slice(0, 40)}`,
            detail: `unknown event; the events are ${CLAUDE_EVENTS.join(", ")}`
          })
        )
      }
      if (!Array.isArray(groups)) {
        return Effect.fail(
          new SettingsError({ path: `hooks.${event}`, detail: "must be an array of { matcher, hooks }" })
        )
      }
      for (let g = 0; g < groups.length; g++) {
        const group: unknown = groups[g]
        const path = `hooks.${event}[${g}]`
        if (!Predicate.isObject(group) || !Array.isArray(group.hooks)) {
          return Effect.fail(new SettingsError({ path, detail: "must be { matcher?, hooks: [...] }" }))
        }
        for (const key of Object.keys(group)) {
          if (!GROUP_KEYS.has(key)) {
            return Effect.fail(new SettingsError({ path, detail: `unknown key "${key.slice(0, 40)}"` }))
          }
        }
        if (group.matcher !== undefined && typeof group.matcher !== "string") {
          return Effect.fail(new SettingsError({ path: `${path}.matcher`, detail: "must be a string" }))
        }
        const matcher = (group.matcher as string | undefined) ?? "*"
        const matches = compileMatcher(matcher)
        if (typeof matches === "string") {
          return Effect.fail(new SettingsError({ path: `${path}.matcher`, detail: matches }))
        }
        for (let h = 0; h < group.hooks.length; h++) {
          const hook = compileHook(
            event,
            `${path}.hooks[${h}]`,
            `${event}[${g}].${h}`,
            matcher,
            matches,
            group.hooks[h],
            ids
          )
          if (hook instanceof SettingsError) return Effect.fail(hook)
          out[event].push(hook)
        }
      }
    }
    return Effect.succeed(out)
  })

/** The hooks of an event that apply to an input. */
export const select = (hooks: CompiledClaudeHooks, input: ClaudeInput): ReadonlyArray<CompiledClaudeHook> => {
  const subject = subjectOf(input)
  return hooks[input.hook_event_name].filter((hook) => hook.matches(subject))
}

const toolUseIdOf = (input: ClaudeInput): string | undefined => {
  const id = (input as { tool_use_id?: unknown }).tool_use_id
  return typeof id === "string" ? id : undefined
}

/** A command hook's own failure, as the answer it stands for (its kind and exit code are kept). */
const commandFailure = (
  error: unknown
): ClaudeHookFailed | undefined => (error instanceof ClaudeHookFailed ? error : undefined)

/** How a Claude-style hook is called, and its answer read, under `defaultTimeoutMs` unless it has its own. */
const invocation = (
  defaultTimeoutMs: number
): HookRunner.Invocation<ClaudeInput, CompiledClaudeHook, Coerced | ClaudeHookFailed> => ({
  call: (input, hook) => hook.run(input, toolUseIdOf(input)),
  decode: (value, _input, hook) => coerce(value, hook.event),
  deadlineMs: (hook) => hook.timeoutMs ?? defaultTimeoutMs,
  // Waited for until it ends: a command hook's process group is killed when it is interrupted.
  fibers: HookRunner.beside(),
  raised: commandFailure
})

const outcome = (
  hook: CompiledClaudeHook,
  settled: HookRunner.Settled<Coerced | ClaudeHookFailed>
): Effect.Effect<Coerced, ClaudeHookFailed> => {
  if (settled.ok) {
    const answer = settled.verdict
    return answer instanceof ClaudeHookFailed
      ? Effect.fail(new ClaudeHookFailed({ hookId: hook.id, kind: answer.kind, exitCode: answer.exitCode }))
      : Effect.succeed(answer)
  }
  if (settled.kind === "exit") return Effect.interrupt
  return Effect.fail(new ClaudeHookFailed({ hookId: hook.id, kind: settled.kind === "timeout" ? "timeout" : "raise" }))
}

/**
 * Runs one hook on an input under its deadline (or `defaultTimeoutMs`) and turns its return into
 * Claude Code's output. Fails with ClaudeHookFailed (raise, timeout, or a command's own kind);
 * what the hook raised is dropped. Interrupting it interrupts the hook (a command is killed).
 */
export const invoke = (
  hook: CompiledClaudeHook,
  input: ClaudeInput,
  defaultTimeoutMs: number
): Effect.Effect<Coerced, ClaudeHookFailed> =>
  Effect.suspend(() => {
    const answer = HookRunner.invoke(invocation(defaultTimeoutMs), input, hook)
    return HookRunner.isSettled(answer)
      ? outcome(hook, answer)
      : Effect.flatMap(answer, (settled) => outcome(hook, settled))
  })
