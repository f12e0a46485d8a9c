/**
 * A fake LLM server for tests: real HTTP on 127.0.0.1, port 0, speaking the OpenAI Chat
 * Completions or Anthropic Messages wire format. A script decides each answer from the request.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { Policy } from "@interlock/core"
import { Effect, Layer, Redacted } from "effect"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { Agent, type AgentOptions, AnthropicMessages, OpenAiChat } from "../../src/index.ts"

/** One request the server received. */
export interface Seen {
  readonly path: string
  readonly headers: IncomingMessage["headers"]
  readonly body: any
}

/** What the script answers: a JSON body (status 200 by default), or hang until the client goes away. */
export type Reply =
  | { readonly status?: number; readonly headers?: Record<string, string>; readonly json: unknown }
  | { readonly hang: true }

/** A running fake server. */
export interface Fake {
  readonly url: string
  readonly requests: Array<Seen>
  /** Requests whose connection the client closed before an answer (interrupted requests). */
  readonly abandoned: { count: number }
}

/** Starts a fake server in the test's scope; `script(body, index)` answers request number `index`. */
export const fake = (script: (body: any, index: number, seen: Seen) => Reply) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<Fake & { close: () => Promise<void> }>((resolve) => {
        const requests: Array<Seen> = []
        const abandoned = { count: 0 }
        const server = createServer((req: IncomingMessage, res: ServerResponse) => {
          let raw = ""
          req.on("data", (chunk) => (raw += chunk))
          req.on("end", () => {
            const seen: Seen = {
              path: req.url ?? "",
              headers: req.headers,
              body: raw.length > 0 ? JSON.parse(raw) : undefined
            }
            requests.push(seen)
            const reply = script(seen.body, requests.length - 1, seen)
            if ("hang" in reply) {
              res.on("close", () => void abandoned.count++)
              return
            }
            res.writeHead(reply.status ?? 200, { "content-type": "application/json", ...reply.headers })
            res.end(JSON.stringify(reply.json))
          })
        })
        server.listen(0, "127.0.0.1", () => {
          const port = (server.address() as AddressInfo).port
          resolve({
            url: `http://127.0.0.1:${port}`,
            requests,
            abandoned,
            close: () =>
              new Promise<void>((done) => {
                server.closeAllConnections()
                server.close(() => done())
              })
          })
        })
      })
    ),
    (server) => Effect.promise(() => server.close())
  )

/** A Chat Completions answer with tool calls. */
export const toolCalls = (
  calls: ReadonlyArray<{ id: string; name: string; args: unknown }>,
  usage = { prompt_tokens: 4, completion_tokens: 2 }
) => ({
  json: {
    id: "chatcmpl-1",
    model: "gpt-x",
    choices: [{
      index: 0,
      finish_reason: "tool_calls",
      message: {
        role: "assistant",
        content: null,
        tool_calls: calls.map((call) => ({
          id: call.id,
          type: "function",
          function: {
            name: call.name,
            arguments: typeof call.args === "string" ? call.args : JSON.stringify(call.args)
          }
        }))
      }
    }],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens }
  }
})

/** A Chat Completions answer with text. */
export const text = (content: string, usage = { prompt_tokens: 3, completion_tokens: 2 }) => ({
  json: {
    id: "chatcmpl-2",
    model: "gpt-x",
    choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content } }],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens }
  }
})

/** The OpenAI-compatible model of a fake server, over real HTTP (undici). */
export const openAi = (server: Fake, config: Partial<OpenAiChat.OpenAiChatConfig> = {}) =>
  OpenAiChat.layer("gpt-x", { baseUrl: `${server.url}/v1`, apiKey: Redacted.make("test-key"), ...config }).pipe(
    Layer.provide(NodeHttpClient.layerUndici)
  )

/** Runs `prompt` on the fake server's OpenAI-compatible model under Policy.allowAll, with the test's other options. */
export const runOn = (
  server: Fake,
  prompt: string,
  options: Omit<AgentOptions, "model" | "policy"> & Agent.RunOptions = {}
) => Agent.run(prompt, { model: openAi(server), policy: Policy.allowAll, ...options })

/** The Anthropic model of a fake server, over real HTTP (undici). */
export const anthropic = (server: Fake, config: Partial<AnthropicMessages.AnthropicConfig> = {}) =>
  AnthropicMessages.layer("claude-x", { baseUrl: `${server.url}/v1`, apiKey: Redacted.make("test-key"), ...config })
    .pipe(Layer.provide(NodeHttpClient.layerUndici))

/** Answers the turns in order, then repeats the last one. */
export const turns = (...replies: ReadonlyArray<Reply>) => (_body: unknown, index: number): Reply =>
  replies[Math.min(index, replies.length - 1)]
