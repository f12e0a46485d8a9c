/** The providers' wire formats, headers and config validation, against fake servers over real HTTP. */
import { NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { type ConfigError, Policy } from "@interlock/core"
import { Effect, Layer, Redacted, Schema, Stream } from "effect"
import { LanguageModel, type Response } from "effect/ai"
import { HttpClient, HttpClientRequest } from "effect/http"
import { Agent, AnthropicMessages, OpenAiChat, type RunResult } from "../src/index.ts"
import { withClock } from "./support/clock.ts"
import { anthropic, fake, openAi, runOn, text, toolCalls, turns } from "./support/FakeLlm.ts"
import { add } from "./support/tools.ts"

const anthropicToolUse = {
  json: {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "claude-x",
    content: [{ type: "text", text: "let me add" }, {
      type: "tool_use",
      id: "toolu_1",
      name: "add",
      input: { a: 2, b: 3 }
    }],
    stop_reason: "tool_use",
    usage: { input_tokens: 10, output_tokens: 5 }
  }
}
const anthropicText = {
  json: {
    id: "msg_2",
    type: "message",
    role: "assistant",
    model: "claude-x",
    content: [{ type: "text", text: "it is 5" }],
    stop_reason: "end_turn",
    usage: { input_tokens: 12, output_tokens: 3 }
  }
}

describe("Anthropic Messages", () => {
  it.effect("a run with a tool call, in the Messages wire format", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns(anthropicToolUse, anthropicText))
      const result = yield* Agent.run("2+3?", {
        model: anthropic(server, { maxTokens: 256 }),
        tools: [add],
        policy: Policy.allowAll,
        system: "be exact"
      })
      assert.strictEqual(result.status, "done")
      assert.strictEqual(result.text, "it is 5")
      assert.strictEqual(result.model, "claude-x")
      assert.deepStrictEqual([result.usage.inputTokens, result.usage.outputTokens], [22, 8])
      assert.strictEqual(result.toolCalls[0].output, "5")
      const [first, second] = server.requests
      assert.strictEqual(first.path, "/v1/messages")
      assert.strictEqual(first.headers["x-api-key"], "test-key")
      assert.strictEqual(first.headers["anthropic-version"], "2023-06-01")
      assert.strictEqual(first.body.system, "be exact")
      assert.strictEqual(first.body.max_tokens, 256)
      assert.deepStrictEqual(first.body.messages, [{ role: "user", content: [{ type: "text", text: "2+3?" }] }])
      assert.deepStrictEqual(first.body.tools.map((t: any) => [t.name, t.input_schema.type]), [["add", "object"]])
      assert.deepStrictEqual(first.body.tool_choice, { type: "auto" })
      assert.deepStrictEqual(second.body.messages.slice(1), [
        {
          role: "assistant",
          content: [{ type: "text", text: "let me add" }, {
            type: "tool_use",
            id: "toolu_1",
            name: "add",
            input: { a: 2, b: 3 }
          }]
        },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "5", is_error: false }] }
      ])
    }))

  it.effect("a 529 (overloaded) is retried", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns({ status: 529, json: { type: "error" } }, anthropicText))
      const result = yield* withClock(Agent.run("hi", { model: anthropic(server), policy: Policy.allowAll }))
      assert.strictEqual(result.status, "done")
      assert.strictEqual(server.requests.length, 2)
    }))
})

describe("OpenAI-compatible Chat Completions", () => {
  it.effect("sends the Redacted key as a bearer token, the extra headers and body, through transformBody", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns(text("hi")))
      const result = yield* Agent.run("hello", {
        model: openAi(server, {
          headers: { "x-team": "core" },
          body: { temperature: 0 },
          transformBody: (body) => ({ ...body, user: "u-1" })
        }),
        policy: Policy.allowAll
      })
      assert.strictEqual(result.text, "hi")
      const seen = server.requests[0]
      assert.strictEqual(seen.path, "/v1/chat/completions")
      assert.strictEqual(seen.headers.authorization, "Bearer test-key")
      assert.strictEqual(seen.headers["x-team"], "core")
      assert.deepStrictEqual([seen.body.model, seen.body.temperature, seen.body.user], ["gpt-x", 0, "u-1"])
    }))

  it.effect("swapping the HttpClient Layer points a provider configured for the real API at the local server", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns(text("from loopback")))
      const loopback = Layer.effect(
        HttpClient.HttpClient,
        Effect.map(
          HttpClient.HttpClient,
          (client) =>
            client.pipe(
              HttpClient.mapRequest((request) =>
                HttpClientRequest.setUrl(request, request.url.replace("https://api.openai.com", server.url))
              )
            )
        )
      ).pipe(Layer.provide(NodeHttpClient.layerUndici))
      const model = OpenAiChat.layer("gpt-x", {
        baseUrl: "https://api.openai.com/v1",
        apiKey: Redacted.make("test-key")
      }).pipe(Layer.provide(loopback))
      const result = yield* Agent.run("hi", { model, policy: Policy.allowAll })
      assert.strictEqual(result.text, "from loopback")
      assert.strictEqual(server.requests[0].path, "/v1/chat/completions")
    }))

  it.effect("arguments that are not a JSON object give an isError result, without a tool call", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns(toolCalls([{ id: "c1", name: "add", args: "{not json" }]), text("ok")))
      const result = yield* runOn(server, "x", { tools: [add] })
      assert.deepStrictEqual([result.toolCalls[0].isError, result.toolCalls[0].output], [
        true,
        "Invalid arguments for add: expected a JSON object"
      ])
    }))

  it.effect("an answer that is not the wire format is an error, not a crash", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns({ json: { nothing: "here" } }))
      const result = yield* runOn(server, "x")
      assert.deepStrictEqual([result.status, result.error?._tag, (result.error as any)?.reason], [
        "error",
        "ModelFailed",
        "InvalidResponseError"
      ])
    }))

  it.effect("a connection refused is a network error, retried, then reported", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns(text("x")))
      const closed = { url: "http://127.0.0.1:1", requests: [], abandoned: { count: 0 } }
      const result = yield* withClock(runOn(closed, "x", { retry: { retries: 1 } }))
      assert.deepStrictEqual([result.status, (result.error as any)?.reason, (result.error as any)?.attempts], [
        "error",
        "NetworkError",
        2
      ])
      assert.strictEqual(server.requests.length, 0)
    }))
})

describe("provider config", () => {
  const build = (layer: Layer.Layer<any, any, any>) =>
    Effect.flip(Effect.scoped(Layer.build(layer.pipe(Layer.provide(NodeHttpClient.layerUndici)))))

  it.effect("rejects a bad base URL, a plain-string key, and non-string headers, naming the option", () =>
    Effect.gen(function*() {
      const bad: ReadonlyArray<[Layer.Layer<any, any, any>, string]> = [
        [OpenAiChat.layer("gpt", { baseUrl: "not a url" }), "openai-compatible.baseUrl"],
        [OpenAiChat.layer("gpt", { baseUrl: "ftp://x" }), "openai-compatible.baseUrl"],
        [OpenAiChat.layer("gpt", { baseUrl: "http://127.0.0.1", apiKey: "plain" as any }), "openai-compatible.apiKey"],
        [OpenAiChat.layer("", { baseUrl: "http://127.0.0.1" }), "openai-compatible.model"],
        [
          AnthropicMessages.layer("claude", { baseUrl: "http://127.0.0.1", headers: { a: 1 as any } }),
          "anthropic.headers.a"
        ],
        [
          AnthropicMessages.layer("claude", { baseUrl: "http://127.0.0.1", transformBody: "x" as any }),
          "anthropic.transformBody"
        ]
      ]
      for (const [layer, path] of bad) {
        const error = yield* build(layer)
        assert.strictEqual(error._tag, "ConfigError")
        assert.strictEqual(error.path, path)
      }
      const ok = yield* Effect.scoped(
        Layer.build(
          OpenAiChat.layer("gpt", { baseUrl: "http://127.0.0.1:9/v1/", apiKey: Redacted.make("k") }).pipe(
            Layer.provide(NodeHttpClient.layerUndici)
          )
        )
      )
      assert.isDefined(ok)
    }))
})

describe("any effect/ai LanguageModel drives the agent", () => {
  it.effect(
    "a LanguageModel Layer with no requirements leaves nothing to provide; without one, the " +
      "context's is used",
    () =>
      Effect.gen(function*() {
        const usage = {
          inputTokens: { total: 1, uncached: undefined, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: 1, text: undefined, reasoning: undefined }
        }
        const lm = yield* LanguageModel.make({
          generateText: () =>
            Effect.succeed(
              [{ type: "text", text: "in-process" }, { type: "finish", reason: "stop", usage }] as Array<
                Response.PartEncoded
              >
            ),
          streamText: () => Stream.empty
        })
        // The types say what is left to provide: nothing with a model Layer, the LanguageModel without one.
        const given: Effect.Effect<RunResult, ConfigError> = Agent.run("hi", {
          policy: Policy.allowAll,
          model: Layer.succeed(LanguageModel.LanguageModel, lm)
        })
        const fromContext: Effect.Effect<RunResult, ConfigError, LanguageModel.LanguageModel> = Agent.run("hi", {
          policy: Policy.allowAll
        })
        assert.strictEqual((yield* given).text, "in-process")
        assert.strictEqual(
          (yield* Effect.provideService(fromContext, LanguageModel.LanguageModel, lm)).text,
          "in-process"
        )
      })
  )
})

describe("agent config", () => {
  const server = { url: "http://127.0.0.1:1", requests: [], abandoned: { count: 0 } }
  const attempt = (options: any) =>
    Effect.flip(
      Agent.run("x", { model: openAi(server), policy: Policy.allowAll, ...options }) as Effect.Effect<
        unknown,
        ConfigError
      >
    )

  it.effect("a missing policy, bad limits and bad hooks are ConfigErrors naming the option", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<[any, string]> = [
        [{ policy: undefined }, "agent.policy"],
        [{ maxTurns: 0 }, "agent.maxTurns"],
        [{ maxTurns: 1.5 }, "agent.maxTurns"],
        [{ concurrency: -1 }, "agent.concurrency"],
        [{ deadline: "soon" }, "agent.deadline"],
        [{ retry: { retries: -1 } }, "agent.retry.retries"],
        [{ onError: "retry" }, "agent.onError"],
        [{ compaction: { maxMessages: 0 } }, "agent.compaction.maxMessages"],
        [{ hooks: { beforeModel: [42] } }, "beforeModel[0]"],
        [{ hooks: { beforeModel: [{ run: () => AgentContinue, when: 1 }] } }, "beforeModel[0]"],
        [{ hooks: { stop: [(a: unknown, b: unknown) => [a, b]] } }, "stop[0]"],
        [
          { hooks: { stop: [{ id: "x", run: () => AgentContinue }, { id: "x", run: () => AgentContinue }] } },
          "stop[1]"
        ],
        [{ hooks: { preToolCall: [{ match: "", run: () => AgentContinue }] } }, "preToolCall[0]"],
        [{ hooks: { onWhatever: [] } }, "onWhatever"]
      ]
      for (const [options, path] of cases) {
        const error = yield* attempt(options)
        assert.strictEqual(error._tag, "ConfigError", JSON.stringify(options))
        assert.strictEqual((error as any).path, path, JSON.stringify(options))
      }
    }))

  it.effect.prop("any maxTurns that is not a positive integer is a ConfigError", [
    Schema.Union([Schema.Number, Schema.String, Schema.Boolean])
  ], ([value]) =>
    Effect.gen(function*() {
      if (Number.isSafeInteger(value) && (value as number) > 0) return
      const error = yield* attempt({ maxTurns: value })
      assert.strictEqual((error as any).path, "agent.maxTurns")
    }))
})

const AgentContinue = { _tag: "Continue" }
