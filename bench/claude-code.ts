/**
 * `npm run bench -- claude-code`: what one hook costs inside the real Claude Code CLI (the pinned
 * @anthropic-ai/claude-code, offline in a network namespace with only loopback, against the fake
 * Messages API of packages/gateway/test/claude-code). Claude is scripted to make STEPS Bash calls
 * (`true`) in one run; the fake API times each step from the end of its tool_use reply to the
 * request carrying the tool's result, so a step is Claude's own work plus the PreToolUse hook.
 * Cases, interleaved round by round: no hook (the baseline), a shell hook (`echo '{}'`), a Node.js
 * hook that only starts and prints `{}`, and the bridge (`interlock claude-hook` with a config that
 * allows `true`) from the built bin as a user runs it (it builds first) and on the sources. A hook's
 * cost is its step median less the baseline's.
 * Results go to bench/results/claude-code.json.
 */
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import {
  bridgeCommand,
  NODE,
  removeRuns,
  runClaude,
  settingsFor,
  shell
} from "../packages/gateway/test/claude-code/harness.ts"
import { median, round3 } from "./harness.ts"

const STEPS = 6
const ROUNDS = 3

const dir = mkdtempSync(join(tmpdir(), "interlock-bench-claude-code-"))
const config = join(dir, "interlock.config.json")
writeFileSync(
  config,
  JSON.stringify({
    servers: {},
    audit: { path: join(dir, "audit.db") },
    policy: {
      default: "deny",
      rules: [{
        id: "true-ok",
        match: "claude/Bash",
        decision: "allow",
        when: { args: { command: { equals: "true" } } }
      }]
    }
  })
)

/** The bin as published: without the source condition it runs the built bundle. */
const BUILT_BIN = join(dirname(fileURLToPath(import.meta.url)), "..", "packages", "gateway", "bin", "interlock.js")

const pre = (command: string) => settingsFor(command, { events: ["PreToolUse"] })
const cases: ReadonlyArray<{ readonly name: string; readonly settings: unknown }> = [
  { name: "no hook", settings: {} },
  { name: "shell hook (echo '{}')", settings: pre(`echo '{}'`) },
  { name: "node hook (node -e, prints {})", settings: pre(shell([NODE, "-e", "process.stdout.write('{}')"])) },
  {
    name: "interlock claude-hook (built bin)",
    settings: pre(shell([NODE, BUILT_BIN, "claude-hook", "--config", config, "--timeout", "30"]))
  },
  { name: "interlock claude-hook (sources)", settings: pre(bridgeCommand(config)) }
]

/** The step times (ms) of one run: from each tool_use reply's end to the next loop request. */
const steps = async (settings: unknown): Promise<ReadonlyArray<number>> => {
  const script = [
    ...Array.from({ length: STEPS }, () => ({ tool: "Bash", input: { command: "true", description: "nothing" } })),
    { text: "done" }
  ]
  const run = await runClaude({ script, settings, args: ["--allowedTools", "Bash"], timeoutMs: 120_000 })
  const loop = run.received.filter((request) => Array.isArray(request.body.tools) && request.body.tools.length > 0)
  if (loop.length !== STEPS + 1) {
    throw new Error(`expected ${STEPS + 1} model requests, got ${loop.length}: ${run.stderr.slice(0, 500)}`)
  }
  return loop.slice(1).map((request, index) => request.at - loop[index]!.repliedAt)
}

export default async (): Promise<void> => {
  execFileSync("npm", ["run", "build"], { cwd: join(dirname(fileURLToPath(import.meta.url)), ".."), stdio: "ignore" })
  const samples = new Map<string, Array<number>>(cases.map((c) => [c.name, []]))
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of cases) samples.get(c.name)!.push(...(await steps(c.settings)))
  }
  removeRuns()
  rmSync(dir, { recursive: true, force: true })
  const baseline = median(samples.get("no hook")!)
  const rows = cases.map((c) => {
    const step = median(samples.get(c.name)!)
    return { name: c.name, stepMs: round3(step), hookMs: round3(step - baseline), samples: samples.get(c.name)!.length }
  })
  console.log(
    `claude-code: one PreToolUse hook inside Claude Code (${STEPS} Bash steps x ${ROUNDS} runs per case, medians)`
  )
  for (const row of rows) {
    console.log(
      `  ${row.name.padEnd(34)} step ${row.stepMs.toFixed(1).padStart(8)} ms   hook ${
        row.hookMs.toFixed(1).padStart(8)
      } ms`
    )
  }
  const out = join(dirname(fileURLToPath(import.meta.url)), "results")
  mkdirSync(out, { recursive: true })
  writeFileSync(
    join(out, "claude-code.json"),
    `${JSON.stringify({ suite: "claude-code", steps: STEPS, rounds: ROUNDS, rows }, null, 2)}\n`
  )
}
