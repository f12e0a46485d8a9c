/** Test fixtures: native tools standing in for a files server, and a plan over them. */
import { NativeTool, ToolResult, ToolTransport } from "@interlock/core"
import { Effect, Layer, Schema } from "effect"
import type { AuditStore } from "../src/audit/AuditStore.ts"
import * as SqliteAuditStore from "../src/audit/SqliteAuditStore.ts"
import { GatewayCalls } from "../src/calls/GatewayCalls.ts"
import { fromObject } from "../src/config/ConfigLoader.ts"
import type { Plan } from "../src/config/Plan.ts"
import { makePlan } from "../src/runtime/PlanBuilder.ts"
import { ApprovalQueue } from "../src/state/ApprovalQueue.ts"
import { StateSeal } from "../src/state/StateSeal.ts"
import { UsedStates } from "../src/state/UsedStates.ts"

/** Tools of a pretend files server: every one echoes what it got, so tests see what passed. */
export const filesTools = [
  NativeTool.make({
    name: "read_file",
    parameters: Schema.Struct({ path: Schema.String }),
    run: ({ path }) => `contents of ${path}`
  }),
  NativeTool.make({
    name: "write_file",
    parameters: Schema.Struct({ path: Schema.String, content: Schema.String }),
    run: ({ path }) => `wrote ${path}`
  }),
  NativeTool.make({
    name: "get-env",
    parameters: Schema.Struct({}),
    run: () => "HOME=/root"
  }),
  NativeTool.make({
    name: "leak",
    parameters: Schema.Struct({ text: Schema.String }),
    run: ({ text }) => ToolResult.text(text)
  }),
  NativeTool.make({
    name: "big",
    parameters: Schema.Struct({ size: Schema.Number }),
    run: ({ size }) => "x".repeat(size)
  })
]

/** A plan from a config object (servers default to one pretend "files" server). */
export const planOf = (raw: Record<string, unknown>, env: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const loaded = yield* fromObject({ servers: { files: { command: "unused" } }, ...raw }, process.cwd())
    const plan = makePlan(loaded, { env })
    if (!("servers" in plan)) return yield* Effect.fail(plan)
    return plan as Plan
  })

/**
 * What GatewayCalls' approver needs: a fresh approval queue, a seal with a generated key, and single-use marks in
 * memory.
 */
export const approvalLayers = Layer.mergeAll(ApprovalQueue.layer, StateSeal.generated, UsedStates.memory)

/** GatewayCalls over the native files tools, an in-memory SQLite store and {@link approvalLayers}. */
export const callsLayer = (plan: Plan) =>
  GatewayCalls.layer(plan).pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        ToolTransport.fromTools(filesTools, { serverId: "files" }),
        SqliteAuditStore.layer(":memory:"),
        approvalLayers
      )
    )
  )

/** Runs `body` with GatewayCalls, AuditStore and ApprovalQueue for a config object. */
export const withGateway = <A, E>(
  raw: Record<string, unknown>,
  body: Effect.Effect<A, E, GatewayCalls | AuditStore | ApprovalQueue>
) => Effect.flatMap(planOf(raw), (plan) => Effect.provide(body, callsLayer(plan)))
