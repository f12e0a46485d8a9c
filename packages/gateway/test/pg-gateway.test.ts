/**
 * A whole gateway and the `interlock` CLI on the Postgres audit store, against a real Postgres
 * server this file starts and stops, with real MCP servers and clients over HTTP.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { AuditRecord } from "../src/audit/GatewayAuditRecord.ts"
import * as PgAuditStore from "../src/audit/PgAuditStore.ts"
import { cliIn, toolText } from "./cli-process.ts"
import { echoServer, httpClient, startGateway } from "./e2e.ts"
import { expectLoginRefused, usePostgres } from "./postgres.ts"

const server = usePostgres()

const { cli, writeConfig } = cliIn("interlock-pg-cli-")
const text = toolText

const POLICY = {
  default: "allow",
  rules: [{ id: "read-only", match: "echo/write_file", decision: "deny", reason: "read only" }]
}

describe("a gateway with audit.postgres", () => {
  it.live(
    "records an allowed and a denied call (principal, decision, outcome, no args), and withholds answers once rows " +
      "cannot be written",
    () =>
      Effect.gen(function*() {
        const database = yield* server.freshDatabase()
        const { http } = yield* startGateway({
          servers: { echo: echoServer },
          audit: { postgres: "env:AUDIT_DATABASE_URL", capture: "metadata" },
          listen: { principals: { alice: { token: "env:ALICE_TOKEN" } } },
          policy: POLICY
        }, { AUDIT_DATABASE_URL: server.url(database), ALICE_TOKEN: "alice-token-0123456789" })
        const client = yield* httpClient(http.mcpUrl, { token: "alice-token-0123456789" })
        assert.strictEqual(
          text(yield* Effect.promise(() => client.callTool({ name: "echo", arguments: { text: "hello-arg-value" } }))),
          "hello-arg-value"
        )
        const denied = yield* Effect.promise(() =>
          client.callTool({ name: "write_file", arguments: { path: "/etc/x", content: "secret-content" } })
        )
        assert.isTrue(denied.isError)
        assert.include(text(denied), "read only")

        // Another replica's view of the shared store.
        const replica = yield* PgAuditStore.make(Redacted.make(server.url(database)))
        const rows = yield* replica.query()
        assert.deepStrictEqual(
          rows.map((row) => `${row.principal} ${row.server}/${row.tool} ${row.decision} ${row.outcome}`),
          ["alice echo/write_file deny denied", "alice echo/echo allow ok"]
        )
        assert.strictEqual(rows[0].rule, "read-only")
        assert.isTrue(
          rows.every((row) => row.args === undefined && row.result === undefined && row.receipt !== undefined)
        )
        assert.notInclude(JSON.stringify(rows), "hello-arg-value")
        assert.notInclude(JSON.stringify(rows), "secret-content")

        // The table goes away: the call runs, but its answer is withheld (fail closed), and nothing is recorded.
        yield* server.admin(database, `DROP TABLE ${PgAuditStore.TABLE}`)
        const after = yield* Effect.promise(() =>
          client.callTool({ name: "echo", arguments: { text: "after-drop-value" } }).then(
            (result) => ({ answered: true, text: text(result) }),
            (error: Error) => ({ answered: false, text: error.message })
          )
        )
        assert.isFalse(after.answered)
        assert.include(after.text, "withheld")
        assert.notInclude(after.text, "after-drop-value")
      }),
    60_000
  )

  it.live(
    "does not start when the store cannot be opened, and says so without the password",
    () =>
      Effect.gen(function*() {
        yield* expectLoginRefused(server, "wrong-Pa55word-42", (url) =>
          startGateway({ servers: { echo: echoServer }, audit: { postgres: "env:AUDIT_DATABASE_URL" } }, {
            AUDIT_DATABASE_URL: url
          }))
      }),
    30_000
  )
})

describe("the CLI on a Postgres store", () => {
  it.live(
    "audit --postgres and replay --postgres read the shared store; check names it without the password",
    () =>
      Effect.gen(function*() {
        const database = yield* server.freshDatabase()
        const env = { AUDIT_URL: server.url(database) }
        const store = yield* PgAuditStore.make(Redacted.make(server.url(database)))
        const row = (callId: string, tool: string, decision: "allow" | "deny") =>
          new AuditRecord({
            time: Date.UTC(2026, 0, 1),
            callId,
            principal: "bob",
            server: "echo",
            tool,
            decision,
            outcome: decision === "allow" ? "ok" : "denied",
            durationMs: 2.5
          })
        yield* store.record(row("first", "echo", "allow"))
        yield* store.record(row("second", "write_file", "deny"))
        const candidate = writeConfig("candidate.json", {
          servers: { echo: echoServer },
          policy: { default: "allow", rules: [{ id: "no-echo", match: "echo/echo", decision: "deny" }] }
        })
        const config = writeConfig("pg.json", {
          servers: { echo: echoServer },
          policy: POLICY,
          audit: { postgres: "env:AUDIT_URL" }
        })
        const [json, table, replayed, checked, both, help] = yield* Effect.all([
          cli(["audit", "--postgres", "env:AUDIT_URL", "--json"], undefined, env),
          cli(["audit", "--postgres", server.url(database)]),
          cli(["replay", "--postgres", "env:AUDIT_URL", "--config", candidate], undefined, env),
          cli(["check", "--config", config, "--no-connect"], undefined, env),
          cli(["audit", "--db", "x.db", "--postgres", "env:AUDIT_URL"], undefined, env),
          cli(["replay", "--help"])
        ], { concurrency: 3 })

        assert.strictEqual(json.code, 0, json.stderr)
        const printed = json.stdout.trim().split("\n").map((line) => JSON.parse(line))
        assert.deepStrictEqual(printed.map((r) => `${r.callId}:${r.principal}:${r.outcome}`), [
          "first:bob:ok",
          "second:bob:denied"
        ])

        assert.strictEqual(table.code, 0, table.stderr)
        assert.match(table.stdout, /bob\s+echo\/write_file\s+deny\s+-\s+denied/)

        assert.strictEqual(replayed.code, 0, replayed.stderr)
        const lines = replayed.stdout.trim().split("\n")
        assert.strictEqual(lines.length, 2)
        assert.match(lines[0], /echo\/echo: allow -> deny \(rule no-echo\)/)
        assert.match(lines[1], /echo\/write_file: deny -> allow/)

        assert.strictEqual(checked.code, 0, checked.stderr)
        assert.include(
          checked.stdout,
          `Audit: Postgres postgres://postgres@127.0.0.1:${server.port}/${database} (capture metadata)`
        )
        assert.include(
          checked.stdout,
          `State: shared by replicas in Postgres postgres://postgres@127.0.0.1:${server.port}/${database}`
        )
        assert.notInclude(checked.stdout, server.password)

        assert.strictEqual(both.code, 1)
        assert.include(both.stderr, "either --db or --postgres")

        assert.match(help.stdout, /--postgres string\s+The Postgres audit store to replay instead of --db/)
      }),
    90_000
  )

  it.live("audit --postgres with a wrong password exits 1 without printing it", () =>
    Effect.gen(function*() {
      const result = yield* cli(["audit", "--postgres", "env:AUDIT_URL"], undefined, {
        AUDIT_URL: server.url("postgres", { user: "postgres", password: "wrong-Pa55word-43" })
      })
      assert.strictEqual(result.code, 1)
      assert.include(result.stderr, "AuthenticationError")
      assert.notInclude(result.stderr + result.stdout, "wrong-Pa55word-43")
    }), 30_000)
})
