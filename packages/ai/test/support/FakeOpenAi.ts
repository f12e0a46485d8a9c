/**
 * A fake OpenAI Chat Completions server for the adapters' tests: real HTTP on 127.0.0.1 (port 0), whole JSON answers
 * or Server-Sent Events when the request asks to stream. A script decides each answer from the request's body.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

/** What the model answers: tool calls (each with its arguments, and an id of its choosing), or text. */
export interface Reply {
  readonly toolCalls?: ReadonlyArray<{ readonly name: string; readonly args: unknown; readonly id?: string }>
  readonly text?: string
}

/** A running fake: its base URL (`.../v1`), the raw bodies it received, and close. */
export interface FakeOpenAi {
  readonly url: string
  readonly bodies: Array<string>
  readonly close: () => Promise<void>
}

const message = (reply: Reply, index: number) => ({
  role: "assistant",
  content: reply.text ?? null,
  ...(reply.toolCalls === undefined ? {} : {
    tool_calls: reply.toolCalls.map((call, i) => ({
      id: call.id ?? `call_${index}_${i}`,
      type: "function",
      function: { name: call.name, arguments: JSON.stringify(call.args) }
    }))
  })
})

const finish = (reply: Reply) => (reply.toolCalls === undefined ? "stop" : "tool_calls")
const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 }

/** The SSE frames of a streamed answer: the text in two deltas, each tool call whole, then the finish and usage. */
const frames = (reply: Reply, index: number): Array<unknown> => {
  const base = { id: `chatcmpl-${index}`, object: "chat.completion.chunk", created: 0, model: "fake" }
  const delta = (d: unknown, finishReason: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta: d, finish_reason: finishReason }]
  })
  const out: Array<unknown> = [delta({ role: "assistant", content: "" })]
  if (reply.text !== undefined) {
    const half = Math.ceil(reply.text.length / 2)
    out.push(delta({ content: reply.text.slice(0, half) }), delta({ content: reply.text.slice(half) }))
  }
  const calls = message(reply, index).tool_calls ?? []
  for (const [i, call] of calls.entries()) out.push(delta({ tool_calls: [{ index: i, ...call }] }))
  out.push(delta({}, finish(reply)), { ...base, choices: [], usage })
  return out
}

/** Starts the fake; `script(body, index)` answers request number `index` (from 0). */
export const fakeOpenAi = (script: (body: any, index: number) => Reply): Promise<FakeOpenAi> =>
  new Promise((resolve) => {
    const bodies: Array<string> = []
    const server = createServer((req, res) => {
      let raw = ""
      req.on("data", (chunk) => (raw += chunk))
      req.on("end", () => {
        const index = bodies.push(raw) - 1
        const body = JSON.parse(raw)
        const reply = script(body, index)
        if (body.stream === true) {
          res.writeHead(200, { "content-type": "text/event-stream" })
          for (const frame of frames(reply, index)) res.write(`data: ${JSON.stringify(frame)}\n\n`)
          res.end("data: [DONE]\n\n")
          return
        }
        res.writeHead(200, { "content-type": "application/json" })
        res.end(JSON.stringify({
          id: `chatcmpl-${index}`,
          object: "chat.completion",
          created: 0,
          model: "fake",
          choices: [{ index: 0, message: message(reply, index), finish_reason: finish(reply) }],
          usage
        }))
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resolve({
        url: `http://127.0.0.1:${port}/v1`,
        bodies,
        close: () => new Promise((done) => server.close(() => done()))
      })
    })
  })

/** The tool results the model was sent in a request body (OpenAI's `role: "tool"` messages), by call id. */
export const toolMessages = (raw: string): Array<{ tool_call_id: string; content: string }> =>
  (JSON.parse(raw).messages as Array<{ role: string; tool_call_id: string; content: string }>)
    .filter((m) => m.role === "tool")
