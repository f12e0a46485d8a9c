import { assert, describe, it } from "@effect/vitest"
import { Interlock, ToolCalls, type ToolTransport } from "@interlock/core"
import { McpServer } from "@modelcontextprotocol/server"
import { Effect, Layer } from "effect"
import { Elicitation, type McpHub, McpTransport, Roots, Sampling } from "../src/index.ts"
import { textResult } from "./fixtures/schema.ts"
import { allowAll, EVERYTHING, NODE, noProcessLeft } from "./helpers.ts"

/** A server whose tools ask the client: elicitation (with a default), sampling and roots. */
const asking = () => {
  const server = new McpServer({ name: "asking", version: "1.0.0" }, { capabilities: { tools: {} } })
  server.registerTool("ask", {}, async (ctx: any) => {
    const answer = await ctx.mcpReq.elicitInput({
      mode: "form",
      message: "Who are you?",
      requestedSchema: { type: "object", properties: { name: { type: "string", default: "Ada" } } }
    })
    return textResult(`${answer.action}:${answer.content?.name}`)
  })
  server.registerTool("sample", {}, async (ctx: any) => {
    const answer = await ctx.mcpReq.requestSampling({
      messages: [{ role: "user", content: { type: "text", text: "2+2?" } }],
      maxTokens: 5
    })
    return textResult(`${answer.model}:${answer.content.text}`)
  })
  server.registerTool("roots", {}, async () => {
    const answer = await server.server.listRoots()
    return textResult(answer.roots.map((root: { uri: string }) => root.uri).join(","))
  })
  return server
}

const askedBy: Array<string> = []
const host = Layer.mergeAll(
  Elicitation.acceptDefaults,
  Sampling.layer((serverId, params) => {
    askedBy.push(serverId)
    const first = params.messages[0]?.content
    return Effect.succeed({
      model: "fake-model",
      role: "assistant" as const,
      content: {
        type: "text" as const,
        text: first !== undefined && "text" in first && first.text === "2+2?" ? "4" : "?"
      }
    })
  }),
  Roots.fixed([{ uri: "file:///work/project", name: "project" }])
)

const governed = (transport: Layer.Layer<McpHub | ToolTransport, unknown>) =>
  Interlock.layer({ policy: allowAll }).pipe(Layer.provideMerge(transport))

describe("server-initiated requests", () => {
  it.live("elicitation (schema defaults applied), sampling and roots are answered by the host's services", () =>
    Effect.gen(function*() {
      const calls = yield* ToolCalls
      assert.strictEqual((yield* calls.callTool({ serverId: "asking", name: "ask" })).text, "accept:Ada")
      assert.strictEqual((yield* calls.callTool({ serverId: "asking", name: "sample" })).text, "fake-model:4")
      assert.include(askedBy, "asking")
      assert.strictEqual((yield* calls.callTool({ serverId: "asking", name: "roots" })).text, "file:///work/project")
    }).pipe(Effect.provide(governed(McpTransport.memory("asking", { server: asking }).pipe(Layer.provide(host))))))

  it.live("without the services no capability is declared and the server's requests fail there", () =>
    Effect.gen(function*() {
      const calls = yield* ToolCalls
      for (const name of ["ask", "sample", "roots"]) {
        const result = yield* Effect.result(calls.callTool({ serverId: "asking", name }))
        const failed = result._tag === "Failure" || result.success.isError === true
        assert.isTrue(failed, `${name} should fail without a host service`)
      }
    }).pipe(Effect.provide(governed(McpTransport.memory("asking", { server: asking })))))

  it.live("server-everything over stdio asks for sampling and gets the host's answer", () =>
    Effect.gen(function*() {
      const calls = yield* ToolCalls
      const result = yield* calls.callTool({
        serverId: "everything",
        name: "trigger-sampling-request",
        args: { prompt: "2+2?" }
      })
      assert.include(result.text, "fake-model")
      assert.include(askedBy, "everything")
    }).pipe(Effect.provide(governed(
      McpTransport.stdio("everything", { command: NODE, args: [EVERYTHING] }).pipe(Layer.provide(host))
    ))))

  it.live("leaves no process behind", noProcessLeft)
})
