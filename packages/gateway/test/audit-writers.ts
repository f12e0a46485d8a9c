/**
 * Both writers of the one audit record against a store: the Claude Code bridge (an event answered
 * under a plan, as `interlock claude-hook` does) and the gateway (a call through GatewayCalls). Each
 * record reads back exactly as it was written, whichever store (SQLite, Postgres) holds it.
 */
import { assert } from "@effect/vitest"
import { AuditRecord, ToolTransport } from "@interlock/core"
import { Effect, Layer, Schema } from "effect"
import { AuditStore, type AuditStoreShape } from "../src/audit/AuditStore.ts"
import { GatewayCalls } from "../src/calls/GatewayCalls.ts"
import { answerEvent } from "../src/claude/ClaudeHookBridge.ts"
import { approvalLayers, filesTools, planOf } from "./fixtures.ts"

// As JSON: a store keeps JSON, where a receipt's absent optional fields and undefined ones are one.
const encode = (row: AuditRecord) => JSON.parse(JSON.stringify(Schema.encodeSync(AuditRecord)(row)))

const POLICY = {
  default: "allow",
  rules: [{ id: "no-rm", match: "claude/Bash", decision: "deny", reason: "rm is not allowed" }]
}

/** Writes one record through each writer, then reads both back: what each wrote, with its row id. */
export const assertBothWritersRoundTrip = (store: AuditStoreShape) =>
  Effect.gen(function*() {
    const written: Array<AuditRecord> = []
    const recording: AuditStoreShape = {
      ...store,
      record: (row) => Effect.andThen(Effect.sync(() => written.push(row)), store.record(row)),
      complete: (id, row) => Effect.andThen(Effect.sync(() => written.push(row)), store.complete(id, row))
    }
    const plan = yield* planOf({ policy: POLICY })
    const event = {
      hook_event_name: "PreToolUse",
      session_id: "s-1",
      transcript_path: "/t",
      cwd: "/",
      tool_name: "Bash",
      tool_input: { command: "rm -rf /" },
      tool_use_id: "toolu_9"
    }
    yield* answerEvent(JSON.stringify(event), plan).pipe(Effect.provideService(AuditStore, recording))
    const calls = GatewayCalls.layer(plan).pipe(
      Layer.provideMerge(
        Layer.mergeAll(
          ToolTransport.fromTools(filesTools, { serverId: "files" }),
          Layer.succeed(AuditStore, recording),
          approvalLayers
        )
      )
    )
    yield* Effect.provide(
      Effect.gen(function*() {
        return yield* (yield* GatewayCalls).callTool({ serverId: "files", name: "read_file", args: { path: "a" } })
      }),
      calls
    )
    const [bridge, gateway] = [...yield* store.query()].reverse()
    assert.deepStrictEqual(encode(bridge), { ...encode(written[0]), id: bridge.id })
    assert.deepStrictEqual(encode(gateway), { ...encode(written[1]), id: gateway.id })
    assert.deepInclude({ ...bridge }, {
      outcome: "answered",
      claudeDecision: "deny",
      event: "PreToolUse",
      decision: "deny",
      rule: "no-rm",
      principal: "claude-code",
      toolUseId: "toolu_9"
    })
    assert.deepInclude({ ...gateway }, { outcome: "ok", decision: "allow", sent: true })
    assert.notProperty(gateway, "claudeDecision")
    // Both writers record the hash of the config that decided.
    assert.deepStrictEqual([bridge.configHash, gateway.configHash], [plan.configHash, plan.configHash])
  })
