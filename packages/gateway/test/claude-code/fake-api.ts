/**
 * A fake Anthropic Messages API for the real Claude Code CLI, on 127.0.0.1 inside the test's
 * network namespace. It speaks the real wire format: `POST /v1/messages` with `stream: true`
 * answers Server-Sent Events (message_start, content_block_start/delta/stop with text and
 * tool_use blocks, message_delta, message_stop); without `stream`, one JSON message. It plays a
 * script: the reply to a request of the agent's loop (one that offers tools) is the step whose
 * index is the number of assistant turns so far; every other request gets a short text. It
 * records every request (with when it came and when its reply ended), which is the model's view.
 */
import { createServer, type Server } from "node:http"

/** One scripted model turn: call a tool with an input, or answer text and end the turn. */
export type Step = { readonly tool: string; readonly input: Record<string, unknown> } | { readonly text: string }

/** One request the fake API received. */
export interface Received {
  readonly url: string
  readonly body: {
    readonly messages?: ReadonlyArray<{ role: string; content: unknown }>
    readonly tools?: ReadonlyArray<{ name: string }>
    readonly [key: string]: unknown
  }
  /** ms since the server started, when the request arrived and when its reply ended. */
  readonly at: number
  readonly repliedAt: number
}

const event = (data: { type: string }) => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`

/** The SSE events of one assistant message holding `blocks`. */
const stream = (
  id: string,
  model: unknown,
  blocks: ReadonlyArray<Record<string, unknown>>,
  stopReason: string
): string => {
  const events = [
    {
      type: "message_start",
      message: {
        id,
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 1 }
      }
    }
  ]
  blocks.forEach((block, index) => {
    if (block.type === "tool_use") {
      events.push(
        { type: "content_block_start", index, content_block: { ...block, input: {} } } as never,
        {
          type: "content_block_delta",
          index,
          delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) }
        } as never
      )
    } else {
      events.push(
        { type: "content_block_start", index, content_block: { type: "text", text: "" } } as never,
        { type: "content_block_delta", index, delta: { type: "text_delta", text: block.text } } as never
      )
    }
    events.push({ type: "content_block_stop", index } as never)
  })
  events.push(
    {
      type: "message_delta",
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: 5 }
    } as never,
    { type: "message_stop" } as never
  )
  return events.map(event).join("")
}

/** Starts the fake API on 127.0.0.1 (port 0) playing `script`; `received` fills as requests come. */
export const startFakeApi = (
  script: ReadonlyArray<Step>
): Promise<{ server: Server; port: number; received: Array<Received> }> => {
  const received: Array<Received> = []
  const started = performance.now()
  let count = 0
  const server = createServer((req, res) => {
    let raw = ""
    req.on("data", (chunk) => (raw += chunk))
    req.on("end", () => {
      const at = performance.now() - started
      const body = raw === "" ? {} : JSON.parse(raw)
      const reply = (status: number, type: string, text: string) => {
        res.writeHead(status, { "content-type": type })
        res.end(text, () => received.push({ url: req.url ?? "", body, at, repliedAt: performance.now() - started }))
      }
      if (!(req.url ?? "").startsWith("/v1/messages")) {
        return reply(
          404,
          "application/json",
          `{"type":"error","error":{"type":"not_found_error","message":"not here"}}`
        )
      }
      if ((req.url ?? "").includes("count_tokens")) return reply(200, "application/json", `{"input_tokens":10}`)
      const loop = Array.isArray(body.tools) && body.tools.length > 0
      const turns = (body.messages ?? []).filter((message: { role: string }) => message.role === "assistant").length
      const step = loop ? script[turns] : undefined
      const id = `msg_${++count}`
      const blocks = step !== undefined && "tool" in step
        ? [{ type: "tool_use", id: `toolu_${count}`, name: step.tool, input: step.input }]
        : [{ type: "text", text: step !== undefined && "text" in step ? step.text : "done" }]
      const stopReason = blocks[0].type === "tool_use" ? "tool_use" : "end_turn"
      if (body.stream !== true) {
        return reply(
          200,
          "application/json",
          JSON.stringify({
            id,
            type: "message",
            role: "assistant",
            model: body.model,
            content: blocks,
            stop_reason: stopReason,
            stop_sequence: null,
            usage: { input_tokens: 10, output_tokens: 5 }
          })
        )
      }
      reply(200, "text/event-stream", stream(id, body.model, blocks, stopReason))
    })
  })
  return new Promise((resolve) =>
    server.listen(
      0,
      "127.0.0.1",
      () => resolve({ server, port: (server.address() as { port: number }).port, received })
    )
  )
}
