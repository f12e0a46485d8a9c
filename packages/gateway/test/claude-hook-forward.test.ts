/**
 * `interlock claude-hook --gateway URL` end to end: the real CLI as a process per event, posting to
 * a real gateway on 127.0.0.1 over HTTP, with bearer tokens of two principals. It answers as the
 * local bridge does, the gateway audits the event as the token's principal, and every failure
 * (no gateway, a hanging one, a wrong token, a body that is not an answer, bad flags) exits 2.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { rmSync } from "node:fs"
import { createServer as createHttpServer } from "node:http"
import { createServer, type Server } from "node:net"
import { cliIn } from "./cli-process.ts"
import { startGateway } from "./e2e.ts"

const { cli, dir, writeConfig } = cliIn("interlock-claude-hook-forward-")
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const TOKENS = { ALICE: "alice-token-0123456789", BOB: "bob-token-0123456789" }
const CONFIG = {
  servers: {},
  policy: {
    default: "allow",
    rules: [{ id: "no-fetch", match: "claude/WebFetch", decision: "deny", reason: "no network" }]
  }
}
const GATEWAY = {
  ...CONFIG,
  listen: { principals: { alice: { token: "env:ALICE" }, bob: { token: "env:BOB" } } }
}

const event = (tool: string, input: Record<string, unknown>, toolUseId: string) =>
  JSON.stringify({
    session_id: "s1",
    transcript_path: "/t.jsonl",
    cwd: "/",
    permission_mode: "default",
    hook_event_name: "PreToolUse",
    tool_name: tool,
    tool_input: input,
    tool_use_id: toolUseId
  })
const FETCH = event("WebFetch", { url: "https://example.invalid" }, "toolu_fetch")
const READ = event("Read", { file_path: "/tmp/x" }, "toolu_read")

/** A loopback server for the scope; its base URL. */
const listening = (server: Server | ReturnType<typeof createHttpServer>) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<string>((resolve) =>
        server.listen(0, "127.0.0.1", () => {
          const address = server.address()
          resolve(`http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`)
        })
      )
    ),
    () => Effect.sync(() => server.close())
  )

const baseOf = (mcpUrl: string) => new URL(mcpUrl).origin

const isDenied = (run: { code: number; stdout: string; stderr: string }, reason: string) => {
  assert.strictEqual(run.code, 2, run.stderr)
  assert.strictEqual(run.stdout, "")
  assert.match(run.stderr, /^interlock claude-hook: .*\n$/)
  assert.include(run.stderr, reason)
}

describe("claude-hook --gateway", () => {
  it.live(
    "answers as the local bridge does, and the gateway audits the event as the token's principal",
    () =>
      Effect.gen(function*() {
        const { gateway, http } = yield* startGateway(GATEWAY, TOKENS)
        const url = baseOf(http.mcpUrl)
        const local = writeConfig("local.json", { ...CONFIG, audit: { path: "off.db" } })
        for (const input of [FETCH, READ]) {
          const forwarded = yield* cli(["claude-hook", "--gateway", url], input, { INTERLOCK_TOKEN: TOKENS.ALICE })
          const direct = yield* cli(["claude-hook", "--config", local], input)
          assert.deepStrictEqual(forwarded, direct)
          assert.strictEqual(forwarded.code, 0)
        }
        const denied = yield* cli(["claude-hook", `--gateway=${url}`, "--timeout", "5"], FETCH, {
          INTERLOCK_TOKEN: TOKENS.ALICE
        })
        assert.strictEqual(JSON.parse(denied.stdout).hookSpecificOutput.permissionDecision, "deny")
        const rows = yield* gateway.store.query()
        assert.deepStrictEqual(
          rows.map((row) => [row.principal, row.tool, row.claudeDecision, row.rule ?? null]).sort(),
          [["alice", "Read", "none", null], ["alice", "WebFetch", "deny", "no-fetch"], [
            "alice",
            "WebFetch",
            "deny",
            "no-fetch"
          ]]
        )
      }),
    60_000
  )

  it.live(
    "a second principal's events are its own: bob's console sees none of alice's rows",
    () =>
      Effect.gen(function*() {
        const { gateway, http } = yield* startGateway(GATEWAY, TOKENS)
        const url = baseOf(http.mcpUrl)
        const alice = yield* cli(["claude-hook", "--gateway", url], FETCH, { INTERLOCK_TOKEN: TOKENS.ALICE })
        const bob = yield* cli(["claude-hook", "--gateway", url], READ, { INTERLOCK_TOKEN: TOKENS.BOB })
        assert.strictEqual(JSON.parse(alice.stdout).hookSpecificOutput.permissionDecision, "deny")
        assert.strictEqual(bob.code, 0)
        assert.notInclude(bob.stdout, "deny")
        const state = (token: string) =>
          Effect.promise(() =>
            fetch(`${url}/api/state`, { headers: { authorization: `Bearer ${token}` } }).then((res) =>
              res.json() as Promise<{ calls: ReadonlyArray<{ principal: string; tool: string }> }>
            )
          )
        assert.deepStrictEqual((yield* state(TOKENS.BOB)).calls.map((call) => [call.principal, call.tool]), [[
          "bob",
          "Read"
        ]])
        assert.deepStrictEqual((yield* state(TOKENS.ALICE)).calls.map((call) => [call.principal, call.tool]), [[
          "alice",
          "WebFetch"
        ]])
        assert.strictEqual((yield* gateway.store.query()).length, 2)
      }),
    60_000
  )

  it.live("a wrong or missing token is denied (exit 2), and the gateway records nothing", () =>
    Effect.gen(function*() {
      const { gateway, http } = yield* startGateway(GATEWAY, TOKENS)
      const url = baseOf(http.mcpUrl)
      isDenied(
        yield* cli(["claude-hook", "--gateway", url], READ, { INTERLOCK_TOKEN: "not-a-token" }),
        "the gateway answered 401"
      )
      isDenied(yield* cli(["claude-hook", "--gateway", url], READ, { INTERLOCK_TOKEN: "" }), "the gateway answered 401")
      assert.deepStrictEqual(yield* gateway.store.query(), [])
    }), 60_000)

  it.live("no gateway on the port: exit 2", () =>
    Effect.gen(function*() {
      const url = yield* Effect.scoped(listening(createServer()))
      isDenied(yield* cli(["claude-hook", "--gateway", url], READ), "cannot reach the gateway")
    }), 60_000)

  it.live(
    "a gateway that accepts and never answers: exit 2 at the deadline below --timeout",
    () =>
      Effect.gen(function*() {
        const url = yield* listening(createServer(() => undefined))
        isDenied(yield* cli(["claude-hook", "--gateway", url, "--timeout", "2"], READ), "did not answer within 1 s")
      }),
    60_000
  )

  it.live(
    "a 2xx body that is not a hook answer, and an answer that is not exit 0, both exit 2",
    () =>
      Effect.gen(function*() {
        const bodies = [
          "{}",
          "not json",
          JSON.stringify({ stdout: "", stderr: "interlock claude-hook: bad event\n", exitCode: 1 })
        ]
        let next = 0
        const url = yield* listening(createHttpServer((req, res) => {
          req.resume()
          res.writeHead(200, { "content-type": "application/json" }).end(bodies[next++])
        }))
        isDenied(yield* cli(["claude-hook", "--gateway", url], READ), "not a hook answer")
        isDenied(yield* cli(["claude-hook", "--gateway", url], READ), "not a hook answer")
        isDenied(yield* cli(["claude-hook", "--gateway", url], READ), "bad event")
      }),
    60_000
  )

  it.live(
    "bad flags are denied without a request: an unknown flag, a bad URL or timeout",
    () =>
      Effect.gen(function*() {
        isDenied(
          yield* cli(["claude-hook", "--gateway", "http://127.0.0.1:9", "--config", "x.json"], READ),
          "unknown argument \"--config\""
        )
        isDenied(yield* cli(["claude-hook", "--gateway", "ftp://127.0.0.1"], READ), "http or https")
        isDenied(
          yield* cli(["claude-hook", "--gateway", "http://127.0.0.1:9", "--timeout", "0"], READ),
          "--timeout must be a positive number"
        )
        isDenied(yield* cli(["claude-hook", "--gateway"], READ), "--gateway needs a value")
      }),
    60_000
  )
})
