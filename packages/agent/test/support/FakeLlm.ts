/**
 * A fake LLM server for tests: real HTTP on 127.0.0.1, port 0, speaking the OpenAI Chat
 * Completions or Anthropic Messages wire format. A script decides each answer from the request.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { Policy } from "@interlock/core"
import { Effect, Layer, Redacted } from "effect"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { Agent, type AgentOptions, AnthropicMessages, OpenAiChat, OpenAiResponses } from "../../src/index.ts"

/** One request the server received. */
export interface Seen {
  readonly path: string
  readonly headers: IncomingMessage["headers"]
  readonly body: any
}

/** One Server-Sent Event: its `event:` name (none for OpenAI) and its data (JSON, or a string as is). */
export interface Frame {
  readonly event?: string
  readonly data: unknown
}

/**
 * What the script answers: a JSON body (status 200 by default); Server-Sent Events, written in
 * pieces of `split` bytes, then the end of the body or, with `hang`, nothing more; or hang at once.
 */
export type Reply =
  | { readonly status?: number; readonly headers?: Record<string, string>; readonly json: unknown }
  | { readonly sse: ReadonlyArray<Frame>; readonly split?: number; readonly hang?: boolean }
  | { readonly hang: true }

/** The SSE text of frames, as a provider writes them. */
export const sseText = (frames: ReadonlyArray<Frame>): string =>
  frames.map((frame) =>
    `${frame.event === undefined ? "" : `event: ${frame.event}\n`}data: ${
      typeof frame.data === "string" ? frame.data : JSON.stringify(frame.data)
    }\n\n`
  ).join("")

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
            // The client went away before the answer ended: an interrupted request.
            res.on("close", () => {
              if (!res.writableEnded) abandoned.count++
            })
            if ("sse" in reply) {
              res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
              const text = sseText(reply.sse)
              const size = reply.split ?? text.length
              // Each piece in its own write, a millisecond apart, so that the client reads them apart.
              const write = (at: number) => {
                if (res.destroyed) return
                if (at >= text.length) return void (reply.hang !== true && res.end())
                res.write(text.slice(at, at + size))
                setTimeout(() => write(at + size), 1)
              }
              write(0)
              return
            }
            if ("hang" in reply) return
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

/** The OpenAI Responses model of a fake server, over real HTTP (undici). */
export const responses = (server: Fake) =>
  OpenAiResponses.layer("gpt-x", { baseUrl: `${server.url}/v1`, apiKey: Redacted.make("test-key") }).pipe(
    Layer.provide(NodeHttpClient.layerUndici)
  )

/** Answers the turns in order, then repeats the last one. */
export const turns = (...replies: ReadonlyArray<Reply>) => (_body: unknown, index: number): Reply =>
  replies[Math.min(index, replies.length - 1)]
