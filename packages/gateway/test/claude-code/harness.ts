/**
 * The real Claude Code CLI (the pinned @anthropic-ai/claude-code) run offline, for tests and the
 * benchmark: each run gets a fresh HOME and project folder with `.claude/settings.json`, and runs
 * in a new network namespace that has only loopback (`unshare -rn`, works as root and not), where
 * runner.ts starts the fake Messages API (fake-api.ts) and `claude -p`. A namespace that cannot be
 * made is an error that says so: the tests fail, they never skip.
 */
import { BRIDGE_EVENTS, bridgeSettings } from "@interlock/claude"
import { spawn } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { arch, tmpdir } from "node:os"
import * as path from "node:path"
import type { Received, Step } from "./fake-api.ts"

const ROOT = path.join(import.meta.dirname, "..", "..", "..", "..")

/** Node 24 from the workspace, with the compile cache on (scripts/test-node). */
export const NODE = path.join(ROOT, "scripts", "test-node")

/** The `interlock` bin inside this repository, run on the sources (what a user's installed bin does). */
export const INTERLOCK = [
  NODE,
  "--conditions=@interlock/source",
  path.join(ROOT, "packages", "gateway", "bin", "interlock.js")
]

/**
 * The Claude Code executable: the native binary of the registry's platform package
 * (@anthropic-ai/claude-code-<os>-<cpu>, an optional dependency of @anthropic-ai/claude-code),
 * which needs no postinstall; the wrapper's bin when the postinstall has copied it there.
 */
export const CLAUDE = (() => {
  const platform = path.join(
    ROOT,
    "node_modules",
    "@anthropic-ai",
    `claude-code-${process.platform}-${arch()}`,
    "claude"
  )
  return existsSync(platform)
    ? platform
    : path.join(ROOT, "node_modules", "@anthropic-ai", "claude-code", "bin", "claude.exe")
})()

/** A shell-quoted command line. */
export const shell = (argv: ReadonlyArray<string>): string =>
  argv.map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`)).join(" ")

/**
 * The bridge's settings (@interlock/claude's `bridgeSettings`, the README's snippet) with every
 * hook's command replaced by `command`; `events` keeps only some events, `onFailure: "unset"`
 * drops the hooks' `"onFailure": "block"` (to show what Claude Code does without it).
 */
export const settingsFor = (
  command: string,
  options: {
    readonly timeout?: number
    readonly onFailure?: "block" | "unset"
    readonly events?: ReadonlyArray<string>
  } = {}
) => {
  const base = bridgeSettings({ bin: "", config: "", timeout: options.timeout })
  const events = options.events ?? BRIDGE_EVENTS
  return {
    hooks: Object.fromEntries(
      Object.entries(base.hooks).filter(([event]) => events.includes(event)).map(([event, groups]) => [
        event,
        groups.map((group) => ({
          ...group,
          hooks: group.hooks.map(({ onFailure, ...hook }) => ({
            ...hook,
            command,
            ...(options.onFailure === "unset" ? {} : { onFailure })
          }))
        }))
      ])
    )
  }
}

/**
 * The settings snippet of @interlock/claude's README (its first JSON block with `claude-hook`),
 * with every hook's command replaced by `command`: what the tests run is what users are told to write.
 */
export const readmeSettings = (
  command: string
): { readonly hooks: Record<string, Array<{ hooks: Array<Record<string, unknown>> }>> } => {
  const readme = readFileSync(path.join(ROOT, "packages", "claude", "README.md"), "utf8")
  const snippet = [...readme.matchAll(/```json\n([\s\S]*?)\n```/g)].map((match) => match[1]!).find((block) =>
    block.includes("claude-hook")
  )
  if (snippet === undefined) throw new Error("packages/claude/README.md has no settings snippet with claude-hook")
  const settings = JSON.parse(snippet)
  for (const groups of Object.values(settings.hooks) as Array<Array<{ hooks: Array<{ command: string }> }>>) {
    for (const group of groups) for (const hook of group.hooks) hook.command = command
  }
  return settings
}

/** The bridge's hook command for a config file, with `--timeout` matching the settings' timeout, run by `interlock`. */
export const bridgeCommand = (config: string, timeout = 30, interlock: ReadonlyArray<string> = INTERLOCK): string =>
  shell([...interlock, "claude-hook", "--config", config, "--timeout", String(timeout)])

/** What one run gives. */
export interface Run {
  /** The run's project folder (the CLI's working directory) and its HOME. */
  readonly project: string
  readonly home: string
  /** The CLI's exit code (null when killed at the run's limit), stdout (JSON) and stderr. */
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
  readonly durationMs: number
  /** Every request the fake API received. */
  readonly received: ReadonlyArray<Received>
  /** The network devices inside the namespace. */
  readonly interfaces: ReadonlyArray<string>
  /** The tool_result blocks the model got, in order: what the model saw of each tool call. */
  readonly toolResults: ReadonlyArray<
    { readonly tool_use_id: string; readonly is_error?: boolean; readonly content: unknown }
  >
}

/** A tool result's content as text (a string, or its text blocks joined, tool references as `ref:NAME`). */
export const resultText = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.map((
      block: { type?: string; text?: string; tool_name?: string }
    ) => (block.type === "tool_reference" ? `ref:${block.tool_name}` : block.text ?? "")).join("")
    : JSON.stringify(content)

/** Options of one run. */
export interface RunOptions {
  /** The model's turns; `{project}` in a tool's input stands for the run's project folder. */
  readonly script: ReadonlyArray<Step>
  /** `.claude/settings.json` of the project. */
  readonly settings: unknown
  /** Extra CLI arguments (`--allowedTools`, `--mcp-config`, ...). */
  readonly args?: ReadonlyArray<string>
  /** Files to write in the project folder first (relative path to text). */
  readonly files?: Readonly<Record<string, string>>
  readonly prompt?: string
  /** The run's limit; the CLI is killed past it. */
  readonly timeoutMs?: number
}

/** The tool_result blocks of the last request of the agent's loop: every result so far, in order. */
const toolResultsOf = (received: ReadonlyArray<Received>) => {
  const loop = received.filter((request) => Array.isArray(request.body.tools) && request.body.tools.length > 0)
  const last = loop.at(-1)?.body.messages ?? []
  return last.flatMap((message) =>
    message.role === "user" && Array.isArray(message.content)
      ? message.content.filter((block: { type?: string }) => block.type === "tool_result")
      : []
  )
}

/** The folders of the runs so far, removed by {@link removeRuns}. */
const made: Array<string> = []

/** Removes every run's folder (HOME, project, spec and report); call it once the runs were inspected. */
export const removeRuns = (): void => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
}

/** Runs `claude -p` once, offline, in a new network namespace. */
export const runClaude = (options: RunOptions): Promise<Run> => {
  const dir = mkdtempSync(path.join(tmpdir(), "interlock-claude-code-"))
  made.push(dir)
  const home = path.join(dir, "home")
  const project = path.join(dir, "project")
  mkdirSync(home)
  mkdirSync(path.join(project, ".claude"), { recursive: true })
  writeFileSync(path.join(project, ".claude", "settings.json"), JSON.stringify(options.settings, null, 2))
  for (const [file, text] of Object.entries(options.files ?? {})) writeFileSync(path.join(project, file), text)
  const timeoutMs = options.timeoutMs ?? 60_000
  const spec = {
    claude: CLAUDE,
    prompt: options.prompt ?? "Do the task.",
    args: options.args ?? [],
    cwd: project,
    timeoutMs,
    script: JSON.parse(JSON.stringify(options.script).replaceAll("{project}", project)),
    env: {
      PATH: "/usr/local/bin:/usr/bin:/bin",
      HOME: home,
      ANTHROPIC_API_KEY: "sk-ant-test-offline",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_TELEMETRY: "1",
      DISABLE_ERROR_REPORTING: "1"
    }
  }
  const specFile = path.join(dir, "spec.json")
  const reportFile = path.join(dir, "report.json")
  writeFileSync(specFile, JSON.stringify(spec))
  const runner = path.join(import.meta.dirname, "runner.ts")
  return new Promise((resolve, reject) => {
    const child = spawn("unshare", [
      "-rn",
      "sh",
      "-c",
      `ip link set lo up && exec "$@"`,
      "sh",
      NODE,
      runner,
      specFile,
      reportFile
    ], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { PATH: `/usr/sbin:/usr/bin:/sbin:/bin:${process.env.PATH ?? ""}` }
    })
    let stderr = ""
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.on(
      "error",
      (error) => reject(new Error(`cannot make a network namespace with only loopback (unshare -rn): ${error.message}`))
    )
    child.on("close", (code) => {
      if (code !== 0 || !existsSync(reportFile)) {
        return reject(
          new Error(
            `cannot run Claude Code in a network namespace with only loopback (unshare -rn, ip link set lo up): ` +
              `exit ${code}: ${stderr.trim()}`
          )
        )
      }
      const report = JSON.parse(readFileSync(reportFile, "utf8"))
      resolve({ ...report, project, home, toolResults: toolResultsOf(report.received) })
    })
  })
}
