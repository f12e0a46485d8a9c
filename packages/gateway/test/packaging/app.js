// A new user's JavaScript app on the installed tarballs: one native tool behind a rewriting hook and
// a rules policy, through the Effect API and through the Promise client (`Interlock.client`) over the
// testing entry's recording transport and scripted approver, and a Vercel-style tool set governed by
// @interlock/ai/vercel (which needs no `ai` at run time); it prints what came back as one JSON line.
// Every package must import.
import { Interlock, InterlockError, NativeTool, Policy, ToolCalls, ToolTransport, Verdict } from "@interlock/core"
import { Arbitraries, RecordingTransport, ScriptedApprover } from "@interlock/core/testing"
import * as agent from "@interlock/agent"
import * as vercel from "@interlock/ai/vercel"
import * as claude from "@interlock/claude"
import * as gateway from "@interlock/gateway"
import * as mcp from "@interlock/mcp"
import { Arbitrary, Effect, Layer, Schema } from "effect"

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

// The same tool for an app without Effect: a Promise client, with the testing entry's parts.
const recording = RecordingTransport.make([echo])
const approver = ScriptedApprover.make([{ decision: "allow", by: "packager" }])
const client = Interlock.client({
  policy: Policy.rules({ rules: [{ id: "ask-echo", match: "local/echo", decision: "ask" }], default: "deny" }),
  approvals: approver.layer,
  transport: recording.layer
})
const approved = await client.callTool({ serverId: "local", name: "echo", args: { text: "promise" } })
const refused = await client.callTool({ serverId: "local", name: "rm", args: {} }).catch((error) => error)
await client.close()
const closed = await client.listTools().catch((error) => error)
const [[name, variant]] = await Effect.runPromise(Arbitrary.sampleEffect(Arbitraries.looseNamePair, { count: 1 }))
const promise = {
  text: approved.text,
  approval: approved.receipt?.approval?.by,
  refused: refused instanceof InterlockError ? refused._tag : String(refused),
  sent: refused.receipt?.sent,
  reached: recording.calls.map((call) => call.name),
  asked: approver.asked.length,
  closed: closed._tag,
  loose: typeof name === "string" && typeof variant === "string"
}
// Tools as the Vercel AI SDK's `tool()` makes them: plain objects with an `execute`.
const ran = []
const governed = vercel.interlockTools(
  {
    echo: { inputSchema: {}, execute: async ({ text }) => (ran.push("echo"), { echoed: text }) },
    rm: { inputSchema: {}, execute: async () => (ran.push("rm"), "removed") }
  },
  { policy: Policy.rules({ rules: [{ id: "echo-ok", match: "ai/echo", decision: "allow" }], default: "deny" }) }
)
const options = { toolCallId: "call_1", messages: [], context: {} }
const ai = {
  echoed: (await governed.echo.execute({ text: "vercel" }, options)).echoed,
  rm: await governed.rm.execute({}, options).catch((error) => error._tag),
  ran
}
await vercel.closeTools(governed)
// The model middleware as `wrapLanguageModel` calls it: a denied prompt, and a streamed delta redacted.
const { ModelVerdict } = vercel
const middleware = vercel.interlockModelMiddleware({
  hooks: {
    beforeModel: [({ messages }) =>
      JSON.stringify(messages).includes("forbidden") ? ModelVerdict.deny("no") : ModelVerdict.continue
    ],
    afterModelChunk: [({ pending }) => ModelVerdict.replace(pending.replaceAll("sk-live-1", "[REDACTED]"))]
  }
})
const model = { modelId: "m" }
const prompt = [{ role: "user", content: [{ type: "text", text: "forbidden" }] }]
const parts = [
  { type: "text-start", id: "t" },
  { type: "text-delta", id: "t", delta: "key sk-live-1" },
  { type: "text-end", id: "t" },
  { type: "finish", usage: {}, finishReason: { unified: "stop", raw: undefined } }
]
const source = () => new ReadableStream({ start: (c) => (parts.forEach((part) => c.enqueue(part)), c.close()) })
const streamed = await middleware.wrapStream({ doStream: async () => ({ stream: source() }), params: {}, model })
const deltas = []
for await (const part of streamed.stream) if (part.type === "text-delta") deltas.push(part.delta)
ai.model = {
  denied: await middleware.transformParams({ type: "generate", params: { prompt }, model }).catch((e) => e._tag),
  streamed: deltas.join("")
}
const packages = Object.fromEntries(Object.entries({ agent, claude, gateway, mcp, vercel }).map(([name, module]) => [name, Object.keys(module).length]))
console.log(JSON.stringify({ ...result, promise, ai, node: process.versions.node, packages }))
