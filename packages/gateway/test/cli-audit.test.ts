import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { Effect } from "effect"
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { HEADER } from "../src/cli/AuditCommand.ts"
import { configHash } from "../src/config/ConfigHash.ts"
import { BIN, cliIn, toolText } from "./cli-process.ts"
import { echoServer, httpClient, NODE, startGateway } from "./e2e.ts"

const { cli, dir, writeConfig } = cliIn("interlock-cli-audit-")

const policy = {
  default: "allow",
  rules: [{ id: "no-writes", match: "echo/write_file", decision: "deny", reason: "read only here" }]
}

// Hooks as code: one raises a text that must never reach a host's _meta, one denies with its own reason.
const RAISED = "RAISED-BY-THE-HOOK-7f3a"
const HOOK_REASON = "HOOK-REASON-91c2"
const hookSource = `{ preToolCall: [
  { match: "echo/pid", id: "raiser", run: () => { throw new Error(${JSON.stringify(RAISED)}) } },
  { match: "echo/mutate", id: "denier", run: () => ({ _tag: "Deny", reason: ${JSON.stringify(HOOK_REASON)} }) }
] }`
const hooks = {
  preToolCall: [
    {
      match: "echo/pid",
      id: "raiser",
      run: () => {
        throw new Error(RAISED)
      }
    },
    { match: "echo/mutate", id: "denier", run: () => ({ _tag: "Deny" as const, reason: HOOK_REASON }) }
  ]
}

/** The JSON lines of a command's stdout. */
const jsonLines = (stdout: string) =>
  stdout.trim().split("\n").filter((line) => line.length > 0).map((line) => JSON.parse(line))

/** A Claude Code PreToolUse or PostToolUse event. */
const claudeEvent = (
  event: "PreToolUse" | "PostToolUse",
  tool: string,
  id: string,
  input: Record<string, unknown>
) => ({
  session_id: "s1",
  transcript_path: "/t.jsonl",
  cwd: dir,
  permission_mode: "default",
  hook_event_name: event,
  tool_name: tool,
  tool_input: input,
  tool_use_id: id,
  ...(event === "PostToolUse" ? { tool_response: [{ type: "text", text: "done" }] } : {})
})

/** Calls that are denied or fail through a gateway, as a host makes them, with what `_meta` may never hold. */
const FAILING = [
  { name: "write_file", arguments: { path: "ARG-PATH-5d1", content: "ARG-CONTENT-5d1" }, error: "Denied" },
  { name: "mutate", arguments: {}, error: "Denied" },
  { name: "pid", arguments: {}, error: "HookFailed" }
] as const

/** Checks one failed call's result: `_meta` names the call and its digest, nothing else; returns them. */
const metaOf = (result: Record<string, unknown>, expectedError: string) => {
  assert.isTrue(result.isError)
  const meta = result._meta as Record<string, string>
  assert.deepStrictEqual(Object.keys(meta).sort(), ["interlock/callId", "interlock/digest", "interlock/error"])
  assert.strictEqual(meta["interlock/error"], expectedError)
  assert.match(meta["interlock/callId"], /^[0-9a-f-]{36}$/)
  assert.match(meta["interlock/digest"], /^[0-9a-f]{64}$/)
  for (const secret of [RAISED, HOOK_REASON, "ARG-PATH-5d1", "ARG-CONTENT-5d1"]) {
    assert.notInclude(JSON.stringify(meta), secret)
  }
  assert.notInclude(JSON.stringify(result), RAISED)
  return { callId: meta["interlock/callId"], digest: meta["interlock/digest"] }
}

describe("interlock audit and replay, on the store a config's gateway writes", () => {
  it.live(
    "claude-hook rows: audit --config finds them from another folder; the config replayed against itself " +
      "changes nothing",
    () =>
      Effect.gen(function*() {
        mkdirSync(path.join(dir, "project"), { recursive: true })
        const file = path.join(dir, "project", "interlock.config.json")
        writeFileSync(file, JSON.stringify({ servers: { echo: echoServer }, policy }))
        const events = [
          claudeEvent("PreToolUse", "mcp__echo__echo", "toolu_1", { text: "hi" }),
          claudeEvent("PreToolUse", "mcp__echo__write_file", "toolu_2", { path: "x", content: "y" }),
          claudeEvent("PostToolUse", "mcp__echo__echo", "toolu_1", { text: "hi" }),
          claudeEvent("PreToolUse", "Bash", "toolu_3", { command: "ls" })
        ]
        for (const event of events) {
          assert.strictEqual(
            (yield* cli(["claude-hook", "--config", "project/interlock.config.json"], JSON.stringify(event))).code,
            0
          )
        }
        // Written next to the config, as the gateway would; nothing in the folder claude-hook ran in.
        assert.isTrue(existsSync(path.join(dir, "project", ".interlock", "audit.db")))
        assert.isFalse(existsSync(path.join(dir, ".interlock")))

        const rows = jsonLines((yield* cli(["audit", "--config", "project/interlock.config.json", "--json"])).stdout)
        assert.deepStrictEqual(rows.map((row) => [row.tool, row.decision ?? null, row.claudeDecision]), [
          ["echo", "allow", "none"],
          ["write_file", "deny", "deny"],
          ["echo", null, "continue"],
          ["Bash", "allow", "none"]
        ])
        // Each row names the config that decided it.
        const hash = configHash({ servers: { echo: echoServer }, policy }, undefined)
        assert.deepStrictEqual(rows.map((row) => row.configHash), events.map(() => hash))

        const table = (yield* cli(["audit", "--config", "project/interlock.config.json"])).stdout.trimEnd().split("\n")
        assert.strictEqual(table.length, 5)
        assert.match(
          table[0],
          new RegExp(
            String.raw`^\s*ID\s+TIME\s+PRINCIPAL\s+TOOL\s+POLICY\s+APPROVAL\s+OUTCOME\s+MS\s+` +
              String.raw`CALL\s+TOOL USE\s+SESSION\s+AUTH\s+HOOKS$`
          )
        )
        // Aligned: each column starts where its header does.
        for (const column of HEADER.filter((name) => name !== "ID" && name !== "MS")) {
          const at = table[0].indexOf(column)
          for (const line of table.slice(1)) {
            assert.notStrictEqual(line[at], " ", `${column} in ${line}`)
            assert.strictEqual(line.slice(at - 2, at), "  ", `${column} in ${line}`)
          }
        }
        // Durations are right-aligned under their header.
        const end = table[0].indexOf("MS") + 2
        for (const line of table.slice(1)) assert.match(line.slice(end - 1, end + 2), /^\d {2}$/, line)
        assert.match(table[1], /echo\/echo\s+allow\s+-\s+none\s/)

        const self = yield* cli(["replay", "--config", "project/interlock.config.json"])
        assert.strictEqual(self.code, 0, self.stderr)
        assert.strictEqual(self.stdout, "")
        assert.include(self.stderr, "4 recorded calls read, 3 re-decided (1 never reached the policy")
        assert.include(self.stderr, "0 would be decided differently")

        const candidate = writeConfig("no-echo.json", {
          servers: { echo: echoServer },
          policy: { ...policy, rules: [...policy.rules, { id: "no-echo", match: "echo/echo", decision: "deny" }] }
        })
        const changed = yield* cli(["replay", "--config", "project/interlock.config.json", "--candidate", candidate])
        assert.deepStrictEqual(changed.stdout.trim().split("\n").map((line) => line.replace(/^.*: /, "")), [
          "allow -> deny (rule no-echo) [args not captured]"
        ])
      }),
    90_000
  )

  it.live(
    "a rule for the principal claude-code decides the same live (claude-hook) and in replay",
    () =>
      Effect.gen(function*() {
        mkdirSync(path.join(dir, "principal"), { recursive: true })
        writeFileSync(
          path.join(dir, "principal", "interlock.config.json"),
          JSON.stringify({
            servers: {},
            policy: {
              default: "deny",
              rules: [{ id: "claude-code-bash", match: "claude/Bash", decision: "allow", principals: ["claude-code"] }]
            }
          })
        )
        const answer = yield* cli(
          ["claude-hook", "--config", "principal/interlock.config.json"],
          JSON.stringify(claudeEvent("PreToolUse", "Bash", "toolu_p", { command: "ls" }))
        )
        assert.strictEqual(JSON.parse(answer.stdout).hookSpecificOutput.permissionDecision, "allow", answer.stdout)
        const [row] = jsonLines((yield* cli(["audit", "--config", "principal/interlock.config.json", "--json"])).stdout)
        assert.deepStrictEqual([row.principal, row.decision, row.rule], ["claude-code", "allow", "claude-code-bash"])
        const replayed = yield* cli(["replay", "--config", "principal/interlock.config.json"])
        assert.strictEqual(replayed.stdout, "")
        assert.include(replayed.stderr, "1 re-decided")
        assert.include(replayed.stderr, "0 would be decided differently")
      }),
    60_000
  )

  it.live(
    "serve --stdio: a failed call's _meta names its audit row (audit --call), and the config replayed against " +
      "itself changes nothing",
    () =>
      Effect.gen(function*() {
        const file = path.join(dir, "hooked.config.ts")
        writeFileSync(
          file,
          `export default { servers: { echo: ${JSON.stringify(echoServer)} }, policy: ${
            JSON.stringify(policy)
          }, hooks: ${hookSource} }\n`
        )
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
        assert.strictEqual(
          toolText(yield* Effect.promise(() => client.callTool({ name: "echo", arguments: { text: "fine" } }))),
          "fine"
        )
        const seen: Array<{ callId: string; digest: string }> = []
        for (const call of FAILING) {
          seen.push(metaOf(
            yield* Effect.promise(() => client.callTool({ name: call.name, arguments: call.arguments })),
            call.error
          ))
        }
        yield* Effect.promise(() => client.close())

        for (const { callId, digest } of seen) {
          const rows = jsonLines((yield* cli(["audit", "--config", file, "--call", callId, "--json"])).stdout)
          assert.strictEqual(rows.length, 1)
          assert.strictEqual(rows[0].callId, callId)
          assert.strictEqual(rows[0].digest, digest)
        }
        const missing = yield* cli(["audit", "--config", file, "--call", "no-such-call"])
        assert.strictEqual(missing.stdout, "")
        assert.include(missing.stderr, "No audited call has the id no-such-call")

        const self = yield* cli(["replay", "--config", file])
        assert.strictEqual(self.code, 0, self.stderr)
        assert.strictEqual(self.stdout, "")
        assert.include(self.stderr, "4 recorded calls read, 2 re-decided (2 never reached the policy")
      }),
    90_000
  )

  it.live(
    "over HTTP: a failed call's _meta equals its audit row's callId and digest; a downstream protocol error's or a " +
      "refused call's error data names its row",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const { gateway, http } = yield* startGateway({ servers: { echo: echoServer }, policy, hooks })
        const client = yield* httpClient(http.mcpUrl)
        for (const call of FAILING) {
          const { callId, digest } = metaOf(
            yield* Effect.promise(() => client.callTool({ name: call.name, arguments: call.arguments })),
            call.error
          )
          const rows = yield* gateway.store.query({ callId })
          assert.strictEqual(rows.length, 1)
          assert.strictEqual(rows[0].callId, callId)
          assert.strictEqual(rows[0].digest, digest)
        }
        // A downstream protocol error (the echo server knows no such tool) keeps its code; its data names the row.
        const unknown = yield* Effect.promise(() =>
          client.callTool({ name: "no_such_tool", arguments: { path: "ARG-PATH-5d1" } }).then(
            () => undefined,
            (error: { code?: number; data?: unknown }) => error
          )
        )
        assert.strictEqual(unknown?.code, -32602)
        const data = unknown?.data as Record<string, string>
        assert.includeMembers(["interlock/callId", "interlock/digest"], Object.keys(data))
        assert.notInclude(JSON.stringify(data), "ARG-PATH-5d1")
        const [row] = yield* gateway.store.query({ callId: data["interlock/callId"] })
        assert.deepInclude(row, { callId: data["interlock/callId"], tool: "no_such_tool" })
        assert.strictEqual(row.digest, data["interlock/digest"])

        // Refused before the pipeline (a name no server has, under namespace "always"): the error's data names the
        // refused row.
        const strict = yield* startGateway({ servers: { echo: echoServer }, namespace: "always", policy })
        const strictClient = yield* httpClient(strict.http.mcpUrl)
        const refused = yield* Effect.promise(() =>
          strictClient.callTool({ name: "no_such_tool", arguments: {} }).then(
            () => undefined,
            (error: { code?: number; data?: unknown }) => error
          )
        )
        assert.strictEqual(refused?.code, -32602)
        const refusedData = refused?.data as Record<string, string>
        assert.deepStrictEqual(Object.keys(refusedData), ["interlock/callId"])
        const [refusedRow] = yield* strict.gateway.store.query({ callId: refusedData["interlock/callId"] })
        assert.deepInclude(refusedRow, { outcome: "refused", tool: "no_such_tool" })
      })),
    60_000
  )
})
