/**
 * Command hooks: `Hook.command({ command, timeout })` runs a program under Claude Code's hook protocol: the event
 * JSON on stdin; exit 0 goes on (stdout may carry a JSON output), exit 2 denies or blocks with stderr as the
 * reason. Anything else fails closed, unlike in Claude Code, and the program's process group is killed (SIGKILL)
 * when the hook ends, so no process outlives it.
 */
import { JsonText } from "@interlock/core"
import { type Duration, Effect } from "effect"
import type { ChildProcess } from "node:child_process"
import { type ClaudeFailureKind, ClaudeHookFailed } from "./ClaudeErrors.ts"
import type { ClaudeEventName, ClaudeInput } from "./ClaudeEvent.ts"
import { type ClaudeHookSpec, millis } from "./ClaudeHook.ts"
import { decodeOutput } from "./ClaudeOutput.ts"
import type { ClaudeReturn } from "./ReturnValue.ts"

/** Options of {@link command}. */
export interface CommandOptions {
  /** A shell command line (run by `/bin/sh -c`), as in Claude Code's settings. */
  readonly command: string
  /** The deadline (ms or a Duration, e.g. "60 seconds"); default 60 seconds, Claude Code's default. */
  readonly timeout?: Duration.Input
  /** Names the hook; default `command`, made unique by the config. */
  readonly id?: string
  /** Run detached as an observer (Claude Code's `async`). */
  readonly async?: boolean
  /** The most stdout accepted before the program is killed and the hook fails; default 1 MiB. */
  readonly maxOutputBytes?: number
  /** Working directory; default the current one. */
  readonly cwd?: string
  /** Extra environment variables, over the current environment. */
  readonly env?: Readonly<Record<string, string>>
}

/** The default deadline of a command hook (Claude Code's). */
export const DEFAULT_COMMAND_TIMEOUT_MS = 60_000
const DEFAULT_MAX_OUTPUT = 1024 * 1024
const MAX_STDERR = 64 * 1024
const MAX_REASON = 4_000
const SAFETY_MARGIN_MS = 1_000

/** How a finished program ended, before it is read. */
type Ended =
  | { readonly _tag: "Exited"; readonly code: number | null; readonly stdout: string; readonly stderr: string }
  | { readonly _tag: "Failed"; readonly kind: ClaudeFailureKind; readonly exitCode?: number | undefined }

const killGroup = (pid: number | undefined): void => {
  if (pid === undefined) return
  try {
    process.kill(-pid, "SIGKILL")
  } catch {
    // ESRCH: the group is gone already.
  }
}

/** Runs the program once; interruption kills its process group and waits (briefly) for it to close. */
const runProgram = (options: CommandOptions, stdin: string, maxOutput: number): Effect.Effect<Ended> =>
  Effect.callback<Ended>((resume) => {
    let stdoutBytes = 0
    let tooBig = false
    const stdout: Array<Buffer> = []
    const stderr: Array<Buffer> = []
    let stderrBytes = 0
    let settled = false
    let closed = false
    const closeWaiters: Array<() => void> = []
    const finish = (ended: Ended) => {
      if (settled) return
      settled = true
      resume(Effect.succeed(ended))
    }
    let child: ChildProcess
    try {
      // child_process (with net and dgram) is loaded on the first command, not with this module.
      child = process.getBuiltinModule("node:child_process").spawn("/bin/sh", ["-c", options.command], {
        detached: true,
        stdio: ["pipe", "pipe", "pipe"],
        cwd: options.cwd,
        env: options.env === undefined ? process.env : { ...process.env, ...options.env }
      })
    } catch {
      finish({ _tag: "Failed", kind: "spawn" })
      return Effect.void
    }
    const pid = child.pid
    child.on("error", () => {
      killGroup(pid)
      finish({ _tag: "Failed", kind: "spawn" })
    })
    child.stdout?.on("data", (chunk: Buffer) => {
      if (tooBig) return
      stdoutBytes += chunk.length
      if (stdoutBytes > maxOutput) {
        // Reported once the killed group has closed its pipes.
        tooBig = true
        stdout.length = 0
        killGroup(pid)
        return
      }
      stdout.push(chunk)
    })
    child.stderr?.on("data", (chunk: Buffer) => {
      if (stderrBytes >= MAX_STDERR) return
      stderrBytes += chunk.length
      stderr.push(chunk)
    })
    // Once the program exits, whatever it left running in its group goes with it, so that a
    // leftover child holding stdout open cannot keep the hook waiting.
    child.on("exit", () => killGroup(pid))
    child.on("close", (code) => {
      closed = true
      killGroup(pid)
      for (const wake of closeWaiters) wake()
      if (tooBig) return finish({ _tag: "Failed", kind: "bad_output" })
      finish({
        _tag: "Exited",
        code,
        stdout: Buffer.concat(stdout).toString("utf8"),
        stderr: Buffer.concat(stderr).toString("utf8").slice(0, MAX_STDERR)
      })
    })
    // A program that does not read its stdin may close it early: that is not a failure.
    child.stdin?.on("error", () => {})
    child.stdin?.end(stdin)
    return Effect.callback<void>((done) => {
      settled = true
      killGroup(pid)
      if (closed || pid === undefined) return done(Effect.void)
      closeWaiters.push(() => done(Effect.void))
    }).pipe(Effect.timeoutOption(2_000), Effect.asVoid)
  })

const reasonOf = (stderr: string, id: string): string => {
  const text = stderr.trim()
  return text.length === 0 ? `blocked by hook ${id}` : text.slice(0, MAX_REASON)
}

/** Exit 2: the event's deny or block, with stderr as the reason. */
const exitTwo = (event: ClaudeEventName, reason: string): ClaudeReturn =>
  event === "PreToolUse"
    ? ["deny", { permissionDecisionReason: reason }]
    : event === "PermissionRequest"
    ? ["deny", { message: reason }]
    : ["block", { reason }]

/** Reads what the program printed on exit 0: nothing is no opinion; otherwise a JSON output of the event. */
const readStdout = (stdout: string, event: ClaudeEventName): ClaudeReturn | undefined => {
  const text = stdout.trim()
  if (text.length === 0) return "ok"
  let json: unknown
  try {
    json = JsonText.parse(text)
  } catch {
    return undefined
  }
  return decodeOutput(json, event)
}

/**
 * A Claude-style hook that runs `options.command`. The result is a hook spec for a Claude hooks
 * config (`{ matcher, hooks: [Hook.command(...)] }`). Its run fails with ClaudeHookFailed
 * (spawn, exit, timeout, bad_output); what the program printed is never put in the error.
 */
export const command = (options: CommandOptions): ClaudeHookSpec => {
  const id = options.id ?? "command"
  const timeoutMs = options.timeout === undefined ? DEFAULT_COMMAND_TIMEOUT_MS : millis(options.timeout)
  const maxOutput = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT
  const failed = (kind: ClaudeFailureKind, exitCode?: number) => new ClaudeHookFailed({ hookId: id, kind, exitCode })
  // Options that can never run fail every run as a spawn failure; they are checked once, here.
  const runnable = typeof options.command === "string" && options.command.trim().length > 0 &&
    timeoutMs !== undefined && maxOutput > 0
  const run = (input: ClaudeInput): Effect.Effect<ClaudeReturn, ClaudeHookFailed> => {
    if (!runnable) return Effect.fail(failed("spawn"))
    return runProgram(options, JSON.stringify(input), maxOutput).pipe(
      // A safety net: whoever runs the hook (the pipeline, `invoke`) applies `timeout` itself and
      // reports it as a timeout; this one only makes sure a program run directly cannot hang.
      Effect.timeoutOption(timeoutMs + SAFETY_MARGIN_MS),
      Effect.flatMap((ended): Effect.Effect<ClaudeReturn, ClaudeHookFailed> => {
        if (ended._tag === "None") return Effect.fail(failed("timeout"))
        const end = ended.value
        if (end._tag === "Failed") return Effect.fail(failed(end.kind, end.exitCode))
        if (end.code === 0) {
          const answer = readStdout(end.stdout, input.hook_event_name)
          return answer === undefined ? Effect.fail(failed("bad_output")) : Effect.succeed(answer)
        }
        if (end.code === 2) return Effect.succeed(exitTwo(input.hook_event_name, reasonOf(end.stderr, id)))
        // 126 and 127 are the shell's "not executable" and "not found": the program never ran.
        if (end.code === 126 || end.code === 127) return Effect.fail(failed("spawn", end.code))
        return Effect.fail(failed("exit", end.code ?? undefined))
      })
    )
  }
  return {
    run,
    ...(options.id === undefined ? {} : { id: options.id }),
    // An invalid timeout is passed on as written, so compiling the config rejects it by name.
    timeout: timeoutMs ?? options.timeout ?? Number.NaN,
    ...(options.async === true ? { async: true } : {})
  }
}
