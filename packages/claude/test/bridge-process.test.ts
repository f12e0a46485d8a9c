/**
 * The bridge end to end, the way Claude Code runs it: a real process per event, the event JSON on
 * stdin, the answer on stdout and the exit code, command hooks from a settings section run as real
 * scripts, audit rows written by the process.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { JsonText } from "@interlock/core"
import { spawnSync } from "node:child_process"
import { writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { scriptDir } from "./scripts.ts"

const dir = scriptDir()
afterAll(() => dir.remove())
const main = fileURLToPath(new URL("./bridge-main.ts", import.meta.url))

const guard = dir.script(
  "guard.sh",
  `input=$(cat)
case "$input" in *'rm -rf'*) echo "refusing rm -rf" >&2; exit 2 ;; esac
exit 0`
)
const redact = dir.script(
  "redact.sh",
  `cat >/dev/null
echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedMCPToolOutput":[{"type":"text","text":"[REDACTED]"}]}}'`
)
const prompts = dir.script(
  "prompts.sh",
  `input=$(cat)
case "$input" in *'prod'*) echo '{"decision":"block","reason":"not on prod"}' ;; *) echo '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"use pnpm"}}' ;; esac`
)
const stop = dir.script(
  "stop.sh",
  `input=$(cat)
case "$input" in *'"stop_hook_active":true'*) exit 0 ;; esac
echo "the tests are red" >&2; exit 2`
)
const broken = dir.script("broken.sh", "exit 1")
const seen = dir.path("seen.json")
const recorder = dir.script("recorder.sh", `cat > '${seen}'`)
const budget = dir.script("budget.sh", `cat >/dev/null; echo '{"continue":false,"stopReason":"budget exhausted"}'`)
const compact = dir.script(
  "compact.sh",
  `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PreCompact","customInstructions":"keep the ` +
    `TODO list"}}'`
)
const reviewer = dir.script(
  "reviewer.sh",
  `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"SubagentStart","additionalContext":"be strict"}}'`
)

const config = dir.path("interlock.config.json")
writeFileSync(
  config,
  JSON.stringify({
    policy: {
      rules: [{ id: "read-ok", match: "fs/read_file", decision: "allow" }, {
        id: "no-curl",
        match: "claude/WebFetch",
        decision: "deny",
        reason: "no network"
      }],
      default: "allow"
    },
    claude: {
      hooks: {
        PreToolUse: [{ matcher: "Bash|mcp__fs__.*", hooks: [{ type: "command", command: guard, timeout: 20 }] }, {
          matcher: "mcp__keys__.*",
          hooks: [{ type: "command", command: recorder }]
        }],
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

let runs = 0
const bridge = (event: unknown) => {
  const audit = dir.path(`audit-${++runs}.jsonl`)
  const result = spawnSync(process.execPath, [main, config], {
    input: typeof event === "string" ? event : JSON.stringify(event),
    env: { ...process.env, AUDIT_FILE: audit },
    encoding: "utf8",
    timeout: 60_000
  })
  const rows = dir.exists(`audit-${runs}.jsonl`)
    ? dir.read(`audit-${runs}.jsonl`).trim().split("\n").map((line) => JSON.parse(line))
    : []
  return {
    code: result.status,
    stdout: result.stdout,
    stderr: result.stderr,
    json: result.stdout ? JSON.parse(result.stdout) : undefined,
    rows
  }
}

const base = { session_id: "s-e2e", transcript_path: "/t", cwd: "/repo", permission_mode: "default" }

describe("the bridge as a process", () => {
  it("PreToolUse: a command hook's exit 2 denies; a rule allows explicitly; no rule is {}", () => {
    const denied = bridge({
      ...base,
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "rm -rf /" },
      tool_use_id: "t1"
    })
    assert.strictEqual(denied.code, 0)
    assert.deepStrictEqual(denied.json, {
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "deny",
        permissionDecisionReason: "refusing rm -rf"
      }
    })
    assert.deepInclude(denied.rows[0], {
      event: "PreToolUse",
      claudeDecision: "deny",
      rule: "PreToolUse[0].0",
      toolUseId: "t1",
      sessionId: "s-e2e"
    })
    assert.notInclude(JSON.stringify(denied.rows), "rm -rf /", "the row holds the reason, never the arguments")

    const allowed = bridge({
      ...base,
      hook_event_name: "PreToolUse",
      tool_name: "mcp__fs__read_file",
      tool_input: { path: "a" }
    })
    assert.strictEqual(allowed.json.hookSpecificOutput.permissionDecision, "allow")
    assert.deepInclude(allowed.rows[0], { claudeDecision: "allow", rule: "read-ok", server: "fs", tool: "read_file" })

    const none = bridge({ ...base, hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls" } })
    assert.strictEqual(none.stdout, "{}\n")
    assert.deepInclude(none.rows[0], { claudeDecision: "none" })

    const ruled = bridge({
      ...base,
      hook_event_name: "PreToolUse",
      tool_name: "WebFetch",
      tool_input: { url: "http://127.0.0.1" }
    })
    assert.strictEqual(ruled.json.hookSpecificOutput.permissionDecisionReason, "no network")
  }, 60_000)

  it(
    "a hook sees exactly the keys Claude Code sent, even beside objects that trap Node 24's JSON.parse into " +
      "misreading them",
    () => {
      // On Node 24, JSON.parse reads "x\n" as "x\\" when a sibling object already has the key "x\\"
      // (nodejs/node#63785).
      const toolInput = {
        a: { k: "v", "x\\": "s" },
        b: { k: "v", "x\n": "SECRET" },
        c: [{ "\\": 1 }, { "\"": 2 }, { "\\": 3, "\u0000": 4 }]
      }
      const answer = bridge({
        ...base,
        hook_event_name: "PreToolUse",
        tool_name: "mcp__keys__put",
        tool_input: toolInput
      })
      assert.strictEqual(answer.stdout, "{}\n")
      const received = JsonText.parse(dir.read("seen.json")) as { tool_input: unknown }
      assert.deepStrictEqual(received.tool_input, toolInput)
    },
    60_000
  )

  it("PermissionRequest, PostToolUse and PostToolUseFailure", () => {
    const permission = bridge({
      ...base,
      hook_event_name: "PermissionRequest",
      tool_name: "WebFetch",
      tool_input: { url: "x" }
    })
    assert.deepStrictEqual(permission.json, {
      hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "deny", message: "no network" } }
    })

    const post = bridge({
      ...base,
      hook_event_name: "PostToolUse",
      tool_name: "mcp__vault__get",
      tool_input: {},
      tool_response: [{ type: "text", text: "sk-123" }]
    })
    assert.deepStrictEqual(post.json, {
      hookSpecificOutput: { hookEventName: "PostToolUse", updatedMCPToolOutput: [{ type: "text", text: "[REDACTED]" }] }
    })
    assert.deepInclude(post.rows[0], { event: "PostToolUse", claudeDecision: "replace" })
    assert.notInclude(JSON.stringify(post.rows), "sk-123")

    const failure = bridge({
      ...base,
      hook_event_name: "PostToolUseFailure",
      tool_name: "Bash",
      tool_input: {},
      error: "boom"
    })
    assert.strictEqual(failure.stdout, "{}\n")
    assert.deepInclude(failure.rows[0], { event: "PostToolUseFailure", claudeDecision: "continue" })
  }, 60_000)

  it("UserPromptSubmit, Stop, and an observer that fails", () => {
    const blocked = bridge({ ...base, hook_event_name: "UserPromptSubmit", prompt: "ship it to prod" })
    assert.deepStrictEqual(blocked.json, { decision: "block", reason: "not on prod" })
    assert.deepInclude(blocked.rows[0], { event: "UserPromptSubmit", claudeDecision: "block" })
    const context = bridge({ ...base, hook_event_name: "UserPromptSubmit", prompt: "fix it" })
    assert.deepStrictEqual(context.json, {
      hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: "use pnpm" }
    })

    const keepGoing = bridge({ ...base, hook_event_name: "Stop", stop_hook_active: false })
    assert.deepStrictEqual(keepGoing.json, { decision: "block", reason: "the tests are red" })
    assert.deepInclude(keepGoing.rows[0], { claudeDecision: "keep_going" })
    assert.strictEqual(bridge({ ...base, hook_event_name: "Stop", stop_hook_active: true }).stdout, "{}\n")

    const note = bridge({ ...base, hook_event_name: "Notification", message: "idle" })
    assert.strictEqual(note.code, 0)
    assert.strictEqual(note.stdout, "{}\n")
    assert.deepInclude(note.rows[0], {
      claudeDecision: "continue",
      error: "Interlock: hook Notification[0].0 failed (exit)"
    })
  }, 60_000)

  it("SubagentStart, SubagentStop and PreCompact", () => {
    const start = bridge({ ...base, hook_event_name: "SubagentStart", agent_id: "a1", agent_type: "code-reviewer" })
    assert.deepStrictEqual(start.json, {
      hookSpecificOutput: { hookEventName: "SubagentStart", additionalContext: "be strict" }
    })
    assert.deepInclude(start.rows[0], { event: "SubagentStart", claudeDecision: "continue" })

    const stop = bridge({
      ...base,
      hook_event_name: "SubagentStop",
      agent_id: "a1",
      agent_type: "code-reviewer",
      stop_hook_active: false
    })
    assert.deepStrictEqual(stop.json, { continue: false, stopReason: "budget exhausted" })
    assert.deepInclude(stop.rows[0], { event: "SubagentStop", claudeDecision: "halt", error: "budget exhausted" })

    const compacted = bridge({ ...base, hook_event_name: "PreCompact", trigger: "auto", custom_instructions: null })
    assert.deepStrictEqual(compacted.json, {
      hookSpecificOutput: { hookEventName: "PreCompact", customInstructions: "keep the TODO list" }
    })
    assert.strictEqual(bridge({ ...base, hook_event_name: "PreCompact", trigger: "manual" }).stdout, "{}\n")
  }, 60_000)

  it("bad stdin exits 2 (Claude Code blocks) with one line on stderr", () => {
    for (const stdin of ["{oops", `{"hook_event_name":"Bogus"}`]) {
      const result = bridge(stdin)
      assert.strictEqual(result.code, 2)
      assert.strictEqual(result.stdout, "")
      assert.match(result.stderr, /^interlock claude-hook: [^\n]+\n$/)
      assert.deepStrictEqual(result.rows, [])
    }
  }, 60_000)
})
