// A new user's JavaScript app on the installed tarballs: one native tool behind a rewriting hook and
// a rules policy; it prints what came back as one JSON line. Every package must import.
import { Interlock, NativeTool, Policy, ToolCalls, ToolTransport, Verdict } from "@interlock/core"
import * as agent from "@interlock/agent"
import * as claude from "@interlock/claude"
import * as gateway from "@interlock/gateway"
import * as mcp from "@interlock/mcp"
import { Effect, Layer, Schema } from "effect"

const hooked = []
const echo = NativeTool.make({ name: "echo", parameters: Schema.Struct({ text: Schema.String }), run: ({ text }) => `echo: ${text}` })

const live = Interlock.layer({
  client: "packaging-app",
  hooks: {
    preToolCall: [{ match: "*", id: "shout", run: (call) => (hooked.push(call.name), Verdict.rewrite({ args: { text: String(call.args.text).toUpperCase() } })) }]
  },
  policy: Policy.rules({ rules: [{ id: "echo-ok", match: "local/echo", decision: "allow" }], default: "deny" })
}).pipe(Layer.provide(ToolTransport.fromTools([echo])))

const program = Effect.gen(function*() {
  const calls = yield* ToolCalls
  const allowed = yield* calls.callTool({ serverId: "local", name: "echo", args: { text: "hi" } })
  const denied = yield* Effect.flip(calls.callTool({ serverId: "local", name: "unknown", args: {} }))
  return { text: allowed.text, rule: allowed.receipt?.policy?.rule, denied: denied._tag, hooked }
})

const result = await Effect.runPromise(program.pipe(Effect.provide(live)))
const packages = Object.fromEntries(Object.entries({ agent, claude, gateway, mcp }).map(([name, module]) => [name, Object.keys(module).length]))
console.log(JSON.stringify({ ...result, node: process.versions.node, packages }))
