// A new user's TypeScript on the installed tarballs, type-checked with the consumer's own strict
// flags (exactOptionalPropertyTypes, noUncheckedIndexedAccess, skipLibCheck false) against our .d.ts.
import * as agent from "@interlock/agent"
import { type CedarError, Policy as CedarPolicy } from "@interlock/cedar"
import * as claude from "@interlock/claude"
import {
  Interlock,
  type InterlockClient,
  InterlockError,
  NativeTool,
  Policy,
  type Receipt,
  ToolCalls,
  ToolTransport,
  Verdict
} from "@interlock/core"
import { Arbitraries, type Recording, RecordingTransport, ScriptedApprover } from "@interlock/core/testing"
import { defineConfig, GatewayConfig } from "@interlock/gateway"
import { McpHub } from "@interlock/mcp"
import { Arbitrary, Effect, Layer, Schema } from "effect"

const echo = NativeTool.make({
  name: "echo",
  parameters: Schema.Struct({ text: Schema.String }),
  run: ({ text }) => `echo: ${text}`
})

const live = Interlock.layer({
  client: "packaging-consumer",
  hooks: { preToolCall: [{ match: "*", id: "pass", run: () => Verdict.continue }] },
  policy: Policy.rules({ rules: [{ id: "echo-ok", match: "local/echo", decision: "allow" }], default: "deny" })
}).pipe(Layer.provide(ToolTransport.fromTools([echo])))

/** One governed call; its text and the receipt's outcome. */
export const program: Effect.Effect<string, unknown> = Effect.gen(function*() {
  const calls = yield* ToolCalls
  const result = yield* calls.callTool({ serverId: "local", name: "echo", args: { text: "hi" } })
  const receipt: Receipt | undefined = result.receipt
  return `${result.text} ${receipt?.outcome ?? "none"}`
}).pipe(Effect.provide(live))

/** The same call through the Promise client, over the testing entry's recording transport. */
export const recording: Recording = RecordingTransport.make([echo])
export const client: InterlockClient = Interlock.client({
  hooks: { preToolCall: [{ match: "*", id: "pass", run: () => Verdict.continue }] },
  policy: Policy.rules({ rules: [{ id: "ask-echo", match: "local/echo", decision: "ask" }] }),
  approvals: ScriptedApprover.make([{ decision: "allow" }]).layer,
  transport: recording.layer
})

/** A rejection's tag and whether the request was sent, as an app reads them. */
export const describeRejection = (error: unknown): string =>
  error instanceof InterlockError
    ? `${error._tag} ${error._tag === "Denied" ? String(error.receipt?.sent) : ""}`
    : "other"

/** The testing entry's Arbitraries are Effect Arbitraries. */
export const names: Arbitrary.Arbitrary<readonly [string, string]> = Arbitraries.looseNamePair
export const inputs = Arbitrary.array(
  Arbitraries.callInput({ serverId: "local", name: Arbitraries.looseVariant("echo") })
)

/** A Cedar policy Layer, as a consumer types it. */
export const cedar: Layer.Layer<Policy, CedarError> = CedarPolicy.cedar({
  policies: `permit(principal, action, resource);`,
  source: "inline"
})

/** The other packages' entry points, so their declarations are checked too. */
export const used = [McpHub, agent, claude, GatewayConfig, defineConfig({ servers: {} })] as const
