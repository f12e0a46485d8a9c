/**
 * `npm run bench -- audit`: the gateway's audit as one stage, in one process (no HTTP, no child):
 * GatewayCalls with the bench's gateway policy and the redaction detectors over a native echo tool
 * that answers on the next event-loop turn (as a server over a pipe does), audit off (the
 * baseline) against the SQLite write-ahead audit on a file, one call at a time and 32 calls in
 * flight (whose writes the store commits in groups, CommitGroup.ts). Then the store alone: one
 * row begun and completed, alone and with 32 rows in flight. A 32-call case's time is per call.
 */
import { NativeTool, ToolTransport } from "@interlock/core"
import { Effect, Exit, Layer, Schema, Scope } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { AuditStore, type AuditStoreShape } from "../packages/gateway/src/audit/AuditStore.ts"
import { AuditRecord, PENDING } from "../packages/gateway/src/audit/GatewayAuditRecord.ts"
import * as SqliteAuditStore from "../packages/gateway/src/audit/SqliteAuditStore.ts"
import { GatewayCalls, type GatewayCallsShape } from "../packages/gateway/src/calls/GatewayCalls.ts"
import { fromObject } from "../packages/gateway/src/config/ConfigLoader.ts"
import type { Plan } from "../packages/gateway/src/config/Plan.ts"
import { makePlan } from "../packages/gateway/src/runtime/PlanBuilder.ts"
import { ApprovalQueue } from "../packages/gateway/src/state/ApprovalQueue.ts"
import { StateSeal } from "../packages/gateway/src/state/StateSeal.ts"
import { UsedStates } from "../packages/gateway/src/state/UsedStates.ts"
import { FULL_POLICY } from "./gateway.ts"
import { measure, report, serviceOf } from "./harness.ts"

const IN_FLIGHT = 32

const nextTurn = Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))

const echo = NativeTool.make({
  name: "echo",
  parameters: Schema.Struct({ text: Schema.String }),
  run: ({ text }) => Effect.as(nextTurn, text)
})

const plan = Effect.gen(function*() {
  const made = makePlan(
    yield* fromObject({ servers: { echo: { command: "unused" } }, ...FULL_POLICY }, process.cwd()),
    { env: {} }
  )
  if (!("servers" in made)) return yield* Effect.die(new Error("the bench config does not plan"))
  return made as Plan
})

/** `count` of `op` at once, each its own fiber. */
const inFlight = <A, E>(op: Effect.Effect<A, E>, count: number) =>
  Effect.forEach(Array.from({ length: count }), () => op, { concurrency: "unbounded", discard: true })

export default async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "interlock-bench-audit-"))
  const scope = Scope.makeUnsafe()
  const callsWith = (store: Layer.Layer<AuditStore, unknown>): Promise<GatewayCallsShape> => {
    const layer = Layer.unwrap(
      Effect.map(plan, (p) =>
        GatewayCalls.layer(p).pipe(
          Layer.provide(
            Layer.mergeAll(
              ToolTransport.fromTools([echo], { serverId: "echo" }),
              store,
              ApprovalQueue.layer,
              StateSeal.generated,
              UsedStates.memory
            )
          )
        ))
    )
    return Effect.runPromise(serviceOf(layer, GatewayCalls, scope))
  }
  try {
    const off = await callsWith(AuditStore.disabled)
    const on = await callsWith(SqliteAuditStore.layer(join(dir, "calls.db")))
    const store: AuditStoreShape = await Effect.runPromise(
      serviceOf(SqliteAuditStore.layer(join(dir, "store.db")), AuditStore, scope)
    )
    const input = { serverId: "echo", name: "echo", args: { text: "hello" } }
    const pending = new AuditRecord({
      time: 0,
      callId: "c",
      server: "echo",
      tool: "echo",
      outcome: PENDING,
      sent: true,
      durationMs: 0
    })
    const done = new AuditRecord({
      time: 0,
      callId: "c",
      server: "echo",
      tool: "echo",
      outcome: "ok",
      sent: true,
      durationMs: 1
    })
    const row = Effect.flatMap(store.begin(pending), (id) => Effect.andThen(nextTurn, store.complete(id, done)))
    const result = await measure("audit", { name: "calls-no-audit", effect: off.callTool(input), iterations: 2_000 }, [
      { name: "calls-sqlite-audit", effect: on.callTool(input), iterations: 2_000 },
      {
        name: `calls-no-audit-${IN_FLIGHT}-in-flight`,
        effect: inFlight(off.callTool(input), IN_FLIGHT),
        iterations: 100
      },
      {
        name: `calls-sqlite-audit-${IN_FLIGHT}-in-flight`,
        effect: inFlight(on.callTool(input), IN_FLIGHT),
        iterations: 100
      },
      { name: "store-row", effect: row, iterations: 2_000 },
      { name: `store-row-${IN_FLIGHT}-in-flight`, effect: inFlight(row, IN_FLIGHT), iterations: 100 }
    ], { rounds: 7 })
    // A case of 32 in flight is timed per batch: report it per call.
    const perCall = {
      ...result,
      cases: result.cases.map((
        c
      ) => (c.name.endsWith("-in-flight") ? { ...c, us: c.us / IN_FLIGHT, ratio: c.ratio / IN_FLIGHT } : c))
    }
    report(perCall)
    const us = Object.fromEntries(perCall.cases.map((c) => [c.name, c.us]))
    console.log(
      `  the audit per call: ${(us["calls-sqlite-audit"] - result.baseline.us).toFixed(1)} µs alone, ${
        (us[`calls-sqlite-audit-${IN_FLIGHT}-in-flight`] - us[`calls-no-audit-${IN_FLIGHT}-in-flight`]).toFixed(1)
      } µs with ${IN_FLIGHT} in flight`
    )
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    rmSync(dir, { recursive: true, force: true })
  }
}
