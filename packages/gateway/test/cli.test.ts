import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import * as path from "node:path"
import { AuditRecord } from "../src/audit/GatewayAuditRecord.ts"
import * as SqliteAuditStore from "../src/audit/SqliteAuditStore.ts"
import { BIN, cliIn, toolText } from "./cli-process.ts"
import { echoServer, NODE } from "./e2e.ts"

const { cli, dir, writeConfig } = cliIn("interlock-cli-")
const text = toolText

/**
 * Writes `<name>.json`: the echo server, audited to `<name>-audit.db`, with rule no-writes denying echo/write_file for
 * `reason`.
 */
const noWritesConfig = (name: string, reason: string, audit: Record<string, unknown> = {}) => {
  const db = path.join(dir, `${name}-audit.db`)
  const file = writeConfig(`${name}.json`, {
    servers: { echo: echoServer },
    audit: { path: db, ...audit },
    policy: { default: "allow", rules: [{ id: "no-writes", match: "echo/write_file", decision: "deny", reason }] }
  })
  return { db, file }
}

describe("the interlock CLI", () => {
  it.live("every command has --help", () =>
    Effect.gen(function*() {
      for (const command of ["serve", "check", "audit", "replay", "claude-hook"]) {
        const { code, stdout } = yield* cli([command, "--help"])
        assert.strictEqual(code, 0, command)
        assert.include(stdout, `interlock ${command}`)
      }
    }), 60_000)

  it.live("check: a bad config exits 1 with a message that names the path", () =>
    Effect.gen(function*() {
      const file = writeConfig("bad.json", {
        servers: { echo: echoServer },
        policy: { rules: [{ match: "echo/*", decision: "perhaps" }] }
      })
      const { code, stderr } = yield* cli(["check", "--config", file])
      assert.strictEqual(code, 1)
      assert.include(stderr, "policy.rules[0].decision")
    }), 60_000)

  it.live("check: a good config prints servers, exposed tools and rules", () =>
    Effect.gen(function*() {
      const file = writeConfig("good.json", {
        servers: { echo: echoServer },
        policy: { default: "allow", rules: [{ id: "no-crash", match: "echo/crash", decision: "deny" }] }
      })
      const { code, stdout } = yield* cli(["check", "--config", file])
      assert.strictEqual(code, 0)
      assert.include(stdout, "echo ")
      assert.include(stdout, "no-crash")
      assert.match(stdout, /Exposed tools \(\d+\):[\s\S]*\n {2}slow\n/)
      // The echo fixture serves only the 2025 revisions over stdio: the gateway fell back to legacy.
      assert.match(stdout, /Server protocols:\n {2}echo {2}legacy\/2025-\d\d-\d\d\n/)
    }), 60_000)

  it.live(
    "claude-hook answers a Claude Code event with the gateway's policy and records it in the audit store",
    () =>
      Effect.gen(function*() {
        const { db, file } = noWritesConfig("claude", "read only here")
        const event = {
          session_id: "s1",
          transcript_path: "/t.jsonl",
          cwd: dir,
          permission_mode: "default",
          hook_event_name: "PreToolUse",
          tool_name: "mcp__echo__write_file",
          tool_input: { path: "x", content: "y" },
          tool_use_id: "toolu_9"
        }
        const denied = yield* cli(["claude-hook", "--config", file], JSON.stringify(event))
        assert.strictEqual(denied.code, 0)
        assert.deepInclude(JSON.parse(denied.stdout).hookSpecificOutput, {
          hookEventName: "PreToolUse",
          permissionDecision: "deny"
        })
        const audit = yield* cli(["audit", "--db", db, "--json"])
        const [row] = audit.stdout.trim().split("\n").map((line) => JSON.parse(line))
        assert.deepInclude(row, {
          server: "echo",
          tool: "write_file",
          decision: "deny",
          rule: "no-writes",
          callId: "toolu_9"
        })
        const broken = writeConfig("broken.json", { servers: {}, policy: { default: "sometimes" } })
        const closed = yield* cli(["claude-hook", "--config", broken], JSON.stringify(event))
        assert.strictEqual(JSON.parse(closed.stdout).hookSpecificOutput.permissionDecision, "deny")
      }),
    60_000
  )

  it.live("audit --follow prints rows as they are written", () =>
    Effect.gen(function*() {
      const db = path.join(dir, "follow.db")
      const store = SqliteAuditStore.open(db)
      const row = (tool: string) =>
        new AuditRecord({ time: Date.now(), callId: tool, server: "s", tool, outcome: "ok", durationMs: 1 })
      yield* store.record(row("first"))
      const child = spawn(NODE, [BIN, "audit", "--db", db, "--follow"], { cwd: dir })
      let out = ""
      child.stdout.setEncoding("utf8")
      child.stdout.on("data", (chunk: string) => (out += chunk))
      const waitFor = (needle: string) =>
        Effect.gen(function*() {
          for (let i = 0; i < 200 && !out.includes(needle); i++) yield* Effect.sleep("50 millis")
          return out.includes(needle)
        })
      assert.isTrue(yield* waitFor("s/first"))
      yield* store.record(row("second"))
      assert.isTrue(yield* waitFor("s/second"))
      child.kill()
      store.close()
    }), 60_000)

  it.live(
    "serve --stdio fronts servers for a host on stdio; audit and replay read what it recorded",
    () =>
      Effect.gen(function*() {
        const { db, file } = noWritesConfig("stdio", "read only", { capture: "full" })
        const client = new Client({ name: "stdio-host", version: "1.0.0" })
        yield* Effect.promise(() =>
          client.connect(
            new StdioClientTransport({
              command: NODE,
              args: [BIN, "serve", "--stdio", "--config", file],
              cwd: dir,
              stderr: "pipe"
            })
          )
        )
        const { tools } = yield* Effect.promise(() => client.listTools())
        assert.include(tools.map((tool) => tool.name), "echo")
        assert.strictEqual(
          text(yield* Effect.promise(() => client.callTool({ name: "echo", arguments: { text: "over stdio" } }))),
          "over stdio"
        )
        const denied = yield* Effect.promise(() =>
          client.callTool({ name: "write_file", arguments: { path: "x", content: "y" } })
        )
        assert.isTrue(denied.isError)
        assert.include(text(denied), "read only")
        // Resources and prompts are served over stdio too (one server: names unchanged).
        const note = yield* Effect.promise(() => client.readResource({ uri: "echo://notes/today" }))
        assert.include(JSON.stringify(note.contents), "the deploy key is")
        assert.include(
          (yield* Effect.promise(() => client.listPrompts())).prompts.map((prompt) => prompt.name),
          "note-0"
        )
        yield* Effect.promise(() => client.close())

        const audit = yield* cli(["audit", "--db", db, "--json"])
        assert.strictEqual(audit.code, 0)
        const rows = audit.stdout.trim().split("\n").map((line) => JSON.parse(line))
        assert.deepStrictEqual(rows.map((row) => `${row.tool}:${row.outcome}`), ["echo:ok", "write_file:denied"])
        assert.deepStrictEqual(rows[0].args, { text: "over stdio" })

        const candidate = writeConfig("candidate.json", {
          servers: { echo: echoServer },
          policy: { default: "allow", rules: [{ id: "no-echo", match: "echo/echo", decision: "deny" }] }
        })
        const replayed = yield* cli(["replay", "--db", db, "--config", candidate])
        assert.strictEqual(replayed.code, 0)
        const lines = replayed.stdout.trim().split("\n")
        assert.strictEqual(lines.length, 2)
        assert.match(lines[0], /echo\/echo: allow -> deny \(rule no-echo\)/)
        assert.match(lines[1], /echo\/write_file: deny -> allow/)
      }),
    90_000
  )
})
