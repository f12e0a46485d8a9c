/**
 * `interlock claude-hook` end to end, the way Claude Code runs it: the real CLI as a process per
 * event, the event JSON on stdin, the answer on stdout and the exit code, command hooks from the
 * config's `claude` section run as real scripts, and rows in the gateway's SQLite audit store.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn, spawnSync } from "node:child_process"
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import * as SqliteAuditStore from "../src/audit/SqliteAuditStore.ts"
import { BIN } from "./cli-process.ts"
import { NODE } from "./e2e.ts"

const dir = mkdtempSync(path.join(tmpdir(), "interlock-claude-hook-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const script = (name: string, body: string) => {
  const file = path.join(dir, name)
  writeFileSync(file, `#!/bin/sh\n${body}\n`)
  chmodSync(file, 0o755)
  return `sh ${file}`
}

const guard = script(
  "guard.sh",
  `input=$(cat)\ncase "$input" in *'rm -rf'*) echo "refusing rm -rf" >&2; exit 2 ;; esac\nexit 0`
)
const redact = script(
  "redact.sh",
  `cat >/dev/null\necho ` +
    `'{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedMCPToolOutput":[{"type":"text","text":"[REDACTED]"}]}}'`
)
const prompts = script(
  "prompts.sh",
  `input=$(cat)\ncase "$input" in *'prod'*) echo '{"decision":"block","reason":"not on prod"}' ;; *) exit 0 ;; esac`
)
const stop = script(
  "stop.sh",
  `input=$(cat)\ncase "$input" in *'"stop_hook_active":true'*) exit 0 ;; esac\necho "the tests are red" >&2; exit 2`
)
const budget = script("budget.sh", `cat >/dev/null; echo '{"continue":false,"stopReason":"budget exhausted"}'`)
const compact = script(
  "compact.sh",
  `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PreCompact","customInstructions":"keep the ` +
    `TODO list"}}'`
)
const reviewer = script(
  "reviewer.sh",
  `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"SubagentStart","additionalContext":"be strict"}}'`
)
const broken = script("broken.sh", "exit 1")

const db = path.join(dir, "audit.db")
const config = path.join(dir, "interlock.config.json")
writeFileSync(
  config,
  JSON.stringify({
    servers: {},
    audit: { path: db },
    policy: {
      default: "allow",
      rules: [
        { id: "read-ok", match: "fs/read_file", decision: "allow" },
        { id: "no-fetch", match: "claude/WebFetch", decision: "deny", reason: "no network" },
        { id: "ask-writes", match: "fs/write_*", decision: "ask", reason: "writes need a human" }
      ]
    },
    claude: {
      hooks: {
        PreToolUse: [{ matcher: "Bash|mcp__fs__.*", hooks: [{ type: "command", command: guard, timeout: 20 }] }],
        PostToolUse: [{ matcher: "mcp__vault__.*", hooks: [{ type: "command", command: redact }] }],
        UserPromptSubmit: [{ hooks: [{ type: "command", command: prompts }] }],
        Stop: [{ hooks: [{ type: "command", command: stop }] }],
        Notification: [{ hooks: [{ type: "command", command: broken }] }],
        SubagentStop: [{ hooks: [{ type: "command", command: budget }] }],
        PreCompact: [{ matcher: "auto", hooks: [{ type: "command", command: compact }] }],
        SubagentStart: [{ matcher: "code-reviewer", hooks: [{ type: "command", command: reviewer }] }]
      }
    }
  })
)

/** Runs `interlock claude-hook` once, as Claude Code would. */
const hook = (event: unknown) => {
  const result = spawnSync(NODE, [BIN, "claude-hook", "--config", config], {
    cwd: dir,
    input: typeof event === "string" ? event : JSON.stringify(event),
    encoding: "utf8",
    timeout: 60_000
  })
  return {
    code: result.status,
    stdout: result.stdout,
    stderr: result.stderr,
    json: result.stdout ? JSON.parse(result.stdout) : undefined
  }
}

/** The audit rows written so far, oldest first (read from the store the CLI wrote to). */
const rows = () => {
  const store = SqliteAuditStore.open(db)
  try {
    return [...Effect.runSync(store.query({ limit: 1000 }))].reverse()
  } finally {
    store.close()
  }
}

const base = { session_id: "s-cli", transcript_path: "/t.jsonl", cwd: "/repo", permission_mode: "default" }

describe("interlock claude-hook (the real CLI)", () => {
  it("PreToolUse and PermissionRequest: hooks deny, rules allow, deny or ask explicitly, no rule is {}", () => {
    const denied = hook({
      ...base,
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "rm -rf /" },
      tool_use_id: "t1"
    })
    assert.strictEqual(denied.code, 0)
    assert.deepStrictEqual(denied.json.hookSpecificOutput, {
      hookEventName: "PreToolUse",
      permissionDecision: "deny",
      permissionDecisionReason: "refusing rm -rf"
    })
    assert.strictEqual(
      hook({ ...base, hook_event_name: "PreToolUse", tool_name: "mcp__fs__read_file", tool_input: { path: "a" } }).json
        .hookSpecificOutput.permissionDecision,
      "allow"
    )
    assert.deepInclude(
      hook({ ...base, hook_event_name: "PreToolUse", tool_name: "WebFetch", tool_input: { url: "x" } }).json
        .hookSpecificOutput,
      { permissionDecision: "deny", permissionDecisionReason: "no network" }
    )
    assert.strictEqual(
      hook({ ...base, hook_event_name: "PreToolUse", tool_name: "mcp__fs__write_file", tool_input: { path: "a" } }).json
        .hookSpecificOutput.permissionDecision,
      "ask"
    )
    assert.strictEqual(
      hook({ ...base, hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" } }).stdout,
      "{}\n"
    )
    const permission = hook({
      ...base,
      hook_event_name: "PermissionRequest",
      tool_name: "WebFetch",
      tool_input: { url: "x" }
    })
    assert.deepStrictEqual(permission.json, {
      hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "deny", message: "no network" } }
    })
    const audited = rows()
    assert.deepInclude(audited[0], { callId: "t1", claudeDecision: "deny" })
    assert.notInclude(JSON.stringify(audited), "rm -rf /", "audit rows hold decisions, never arguments")
  }, 120_000)

  it("a relative Cedar policy is found beside its config, wherever Claude Code runs the hook from", () => {
    const folder = path.join(dir, "cedar-config")
    mkdirSync(folder, { recursive: true })
    writeFileSync(
      path.join(folder, "policy.cedar"),
      [
        `permit(principal, action == Interlock::Action::"callTool", resource);`,
        `@id("no-fetch") @reason("no network")`,
        `forbid(principal, action == Interlock::Action::"callTool", resource == Interlock::Tool::"claude/webfetch");`
      ].join("\n")
    )
    const cedarConfig = path.join(folder, "interlock.config.json")
    writeFileSync(
      cedarConfig,
      JSON.stringify({ servers: {}, audit: { path: path.join(folder, "audit.db") }, policy: { cedar: "policy.cedar" } })
    )
    // Run from the parent folder: a policy looked up against the working folder would not be found.
    const run = (tool: string) =>
      spawnSync(NODE, [BIN, "claude-hook", "--config", cedarConfig], {
        cwd: dir,
        input: JSON.stringify({ ...base, hook_event_name: "PreToolUse", tool_name: tool, tool_input: { url: "x" } }),
        encoding: "utf8",
        timeout: 60_000
      })
    const fetch = run("WebFetch")
    assert.strictEqual(fetch.status, 0, fetch.stderr)
    assert.deepInclude(JSON.parse(fetch.stdout).hookSpecificOutput, {
      permissionDecision: "deny",
      permissionDecisionReason: "no network"
    })
    assert.strictEqual(JSON.parse(run("Read").stdout).hookSpecificOutput.permissionDecision, "allow")
  }, 120_000)

  it("PostToolUse redacts MCP output; PostToolUseFailure is recorded", () => {
    const post = hook({
      ...base,
      hook_event_name: "PostToolUse",
      tool_name: "mcp__vault__get",
      tool_input: {},
      tool_response: [{ type: "text", text: "sk-123" }]
    })
    assert.deepStrictEqual(post.json, {
      hookSpecificOutput: { hookEventName: "PostToolUse", updatedMCPToolOutput: [{ type: "text", text: "[REDACTED]" }] }
    })
    const failure = hook({
      ...base,
      hook_event_name: "PostToolUseFailure",
      tool_name: "Bash",
      tool_input: {},
      error: "boom"
    })
    assert.strictEqual(failure.code, 0)
    assert.strictEqual(failure.stdout, "{}\n")
    const outcomes = rows().map((row) => row.claudeDecision)
    assert.includeMembers(outcomes, ["replace", "continue"])
    assert.notInclude(JSON.stringify(rows()), "sk-123")
  }, 120_000)

  it("UserPromptSubmit and Stop block with a reason; Notification stays an observer", () => {
    assert.deepStrictEqual(hook({ ...base, hook_event_name: "UserPromptSubmit", prompt: "ship it to prod" }).json, {
      decision: "block",
      reason: "not on prod"
    })
    assert.strictEqual(hook({ ...base, hook_event_name: "UserPromptSubmit", prompt: "fix the test" }).stdout, "{}\n")
    assert.deepStrictEqual(hook({ ...base, hook_event_name: "Stop", stop_hook_active: false }).json, {
      decision: "block",
      reason: "the tests are red"
    })
    assert.strictEqual(hook({ ...base, hook_event_name: "Stop", stop_hook_active: true }).stdout, "{}\n")
    const note = hook({ ...base, hook_event_name: "Notification", message: "idle" })
    assert.strictEqual(note.code, 0)
    assert.strictEqual(note.stdout, "{}\n")
    assert.includeMembers(rows().map((row) => row.claudeDecision), ["block", "keep_going"])
  }, 120_000)

  it("SubagentStart, SubagentStop and PreCompact", () => {
    assert.deepStrictEqual(
      hook({ ...base, hook_event_name: "SubagentStart", agent_id: "a1", agent_type: "code-reviewer" }).json,
      { hookSpecificOutput: { hookEventName: "SubagentStart", additionalContext: "be strict" } }
    )
    assert.deepStrictEqual(
      hook({
        ...base,
        hook_event_name: "SubagentStop",
        agent_id: "a1",
        agent_type: "code-reviewer",
        stop_hook_active: false
      }).json,
      { continue: false, stopReason: "budget exhausted" }
    )
    assert.deepStrictEqual(
      hook({ ...base, hook_event_name: "PreCompact", trigger: "auto", custom_instructions: null }).json,
      { hookSpecificOutput: { hookEventName: "PreCompact", customInstructions: "keep the TODO list" } }
    )
    assert.strictEqual(hook({ ...base, hook_event_name: "PreCompact", trigger: "manual" }).stdout, "{}\n")
  }, 120_000)

  it("bad stdin exits 2 (Claude Code blocks) with one line on stderr and writes no row", () => {
    const before = rows().length
    for (const stdin of ["{oops", `{"hook_event_name":"Bogus"}`]) {
      const result = hook(stdin)
      assert.strictEqual(result.code, 2)
      assert.strictEqual(result.stdout, "")
      assert.match(result.stderr, /^interlock claude-hook: [^\n]+\n$/)
    }
    assert.strictEqual(rows().length, before)
  }, 120_000)

  it("a flag the CLI's parser rejects exits 2 too, not 1", () => {
    const result = spawnSync(NODE, [BIN, "claude-hook", "--config", config, "--bogus"], {
      cwd: dir,
      input: "{}",
      encoding: "utf8",
      timeout: 60_000
    })
    assert.strictEqual(result.status, 2, result.stderr)
    assert.strictEqual(result.stdout.includes("allow"), false)
  }, 120_000)

  it("stdin that never closes: at the deadline the watchdog exits 2; a bad --timeout answers closed", async () => {
    // Claude Code keeps the pipe open: the bridge must not wait for it past its deadline (--timeout 2 leaves 1 s).
    const child = spawn(NODE, [BIN, "claude-hook", "--config", config, "--timeout", "2"], {
      cwd: dir,
      stdio: ["pipe", "pipe", "pipe"]
    })
    let stderr = ""
    child.stderr.on("data", (chunk) => (stderr += chunk))
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve))
    child.stdin.destroy()
    assert.strictEqual(code, 2)
    assert.include(stderr, "no event on stdin before the deadline")
    const bad = spawnSync(NODE, [BIN, "claude-hook", "--config", config, "--timeout", "soon"], {
      cwd: dir,
      input: JSON.stringify({
        ...base,
        hook_event_name: "PreToolUse",
        tool_name: "Bash",
        tool_input: { command: "ls" }
      }),
      encoding: "utf8",
      timeout: 60_000
    })
    assert.strictEqual(bad.status, 0)
    assert.deepInclude(JSON.parse(bad.stdout).hookSpecificOutput, { permissionDecision: "deny" })
    assert.include(bad.stdout, "--timeout must be a positive number")
  }, 120_000)
})
