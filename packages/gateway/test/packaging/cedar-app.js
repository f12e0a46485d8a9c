// A new user's app on the installed @interlock/cedar tarball: its WASM module loads on this Node,
// and a Cedar policy decides a call (allow by @id, a forbid with an args condition, and @ask).
import { Policy as CedarPolicy } from "@interlock/cedar"
import { Interlock, NativeTool, ToolCalls, ToolTransport } from "@interlock/core"
import { Effect, Layer, Schema } from "effect"

const policies = `
@id("echo-ok") permit(principal, action == Interlock::Action::"callTool", resource == Interlock::Tool::"local/echo");
@id("no-secret") @reason("no secrets") forbid(principal, action == Interlock::Action::"callTool", resource) when { context.args has text && context.args.text like "*secret*" };
`
const echo = NativeTool.make({ name: "echo", parameters: Schema.Struct({ text: Schema.String }), run: ({ text }) => `echo: ${text}` })
const live = Interlock.layer({ policy: CedarPolicy.cedar({ policies }) }).pipe(Layer.provide(ToolTransport.fromTools([echo])))

const program = Effect.gen(function*() {
  const calls = yield* ToolCalls
  const allowed = yield* calls.callTool({ serverId: "local", name: "echo", args: { text: "hi" } })
  const denied = yield* Effect.flip(calls.callTool({ serverId: "local", name: "echo", args: { text: "a secret" } }))
  return { text: allowed.text, rule: allowed.receipt?.policy?.rule, denied: denied.message }
})

console.log(JSON.stringify({ ...(await Effect.runPromise(program.pipe(Effect.provide(live)))), node: process.versions.node }))
