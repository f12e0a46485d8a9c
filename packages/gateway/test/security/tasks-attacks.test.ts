/**
 * Attacks on the gateway's io.modelcontextprotocol/tasks surface (SEP-2663), over HTTP with two
 * principals: another principal's tasks/get, tasks/update and tasks/cancel are refused as an unknown
 * task is, and never reach the server; a forged or edited id is refused alike; a denied call creates
 * no task downstream; a secret in a task's result reaches neither the host nor the audit row.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as path from "node:path"
import { NODE, startGateway } from "../e2e.ts"
import { PRINCIPAL_TOKENS, principalsConfig } from "../modern-front.ts"
import { envelope, modernPost } from "../modern-wire.ts"

const FIXTURE = path.join(import.meta.dirname, "..", "fixtures", "conformance-server.ts")
const TASKS = { extensions: { "io.modelcontextprotocol/tasks": {} } }
const SECRET = "tasksecret-4242424242"

const rpc = (url: string, token: string, method: string, params: Record<string, unknown>) =>
  modernPost(url, { id: 1, method, params: { ...params, _meta: envelope("attacker", TASKS) } }, {
    authorization: `Bearer ${token}`,
    ...(typeof params.taskId === "string" ? { "mcp-name": params.taskId } : {})
  })

const gateway = (extra: Record<string, unknown> = {}) =>
  startGateway({
    servers: { conformance: { command: NODE, args: [FIXTURE] } },
    policy: { default: "allow" },
    redact: [{ pattern: "tasksecret-[0-9]+" }],
    audit: { path: ":memory:", capture: "full" },
    listen: principalsConfig.listen,
    ...extra
  }, principalsConfig.env)

describe("tasks through the gateway, attacked", () => {
  it.live(
    "another principal's get, update and cancel are refused as unknown, and a forged or edited id is too",
    () =>
      Effect.gen(function*() {
        const { http } = yield* gateway()
        const url = http.mcpUrl
        const created = yield* rpc(url, PRINCIPAL_TOKENS.bob, "tools/call", {
          name: "slow_compute",
          arguments: { seconds: 30, label: "bob" }
        })
        const taskId = created.json.result?.taskId as string
        assert.strictEqual(created.json.result?.resultType, "task", created.text)
        assert.match(taskId, /^it_[A-Za-z0-9_-]{24}$/, "the host sees the gateway's id, not the server's")
        const bad = [
          ...(["tasks/get", "tasks/update", "tasks/cancel"] as const).map((method) => ({
            token: PRINCIPAL_TOKENS.mallory,
            method,
            id: taskId
          })),
          {
            token: PRINCIPAL_TOKENS.bob,
            method: "tasks/get",
            id: `${taskId.slice(0, -1)}${taskId.endsWith("A") ? "B" : "A"}`
          },
          { token: PRINCIPAL_TOKENS.bob, method: "tasks/get", id: "it_forgedforgedforgedforgedforg" }
        ]
        for (const attempt of bad) {
          const answer = yield* rpc(url, attempt.token, attempt.method, {
            taskId: attempt.id,
            ...(attempt.method === "tasks/update" ? { inputResponses: {} } : {})
          })
          assert.strictEqual(answer.json.error?.code, -32602, `${attempt.method}: ${answer.text}`)
          assert.strictEqual(answer.json.error?.message, "Interlock: unknown task")
          assert.notProperty(answer.json.error, "data")
        }
        // Bob's task is untouched by Mallory's cancel: still running, his to see.
        const mine = yield* rpc(url, PRINCIPAL_TOKENS.bob, "tasks/get", { taskId })
        assert.strictEqual(mine.json.result?.status, "working", mine.text)
        yield* rpc(url, PRINCIPAL_TOKENS.bob, "tasks/cancel", { taskId })
      }),
    60_000
  )

  it.live(
    "a denied call creates no task downstream, and a secret in a task's result reaches neither host nor audit",
    () =>
      Effect.gen(function*() {
        const { gateway: gw, http } = yield* gateway({
          policy: {
            default: "allow",
            rules: [{ id: "no-fail", match: "conformance/failing_job", decision: "deny", reason: "not here" }]
          }
        })
        const url = http.mcpUrl
        const denied = yield* rpc(url, PRINCIPAL_TOKENS.bob, "tools/call", { name: "failing_job", arguments: {} })
        assert.notStrictEqual(denied.json.result?.resultType, "task", denied.text)
        assert.isUndefined(denied.json.result?.taskId)
        const created = yield* rpc(url, PRINCIPAL_TOKENS.bob, "tools/call", {
          name: "slow_compute",
          arguments: { seconds: 0.2, label: SECRET }
        })
        const taskId = created.json.result?.taskId as string
        let seen = created.text
        for (let i = 0; i < 30; i++) {
          const got = yield* rpc(url, PRINCIPAL_TOKENS.bob, "tasks/get", { taskId })
          seen += got.text
          if (got.json.result?.status === "completed") break
          yield* Effect.sleep(100)
        }
        assert.include(seen, "\"completed\"")
        assert.notInclude(seen, SECRET)
        const rows = yield* gw.store.query({ limit: 10 })
        const row = rows.find((r) => r.tool === "slow_compute")
        assert.strictEqual(row?.outcome, "ok", "the creating call's row completed when the task ended")
        assert.notInclude(JSON.stringify(rows), SECRET)
        assert.isDefined(rows.find((r) => r.tool === "failing_job" && r.outcome === "denied"), JSON.stringify(rows))
      }),
    60_000
  )
})
