/** Streamed answers in the real wire formats: OpenAI Chat Completions chunks and Anthropic Messages events. */
import type { Frame } from "./FakeLlm.ts"

/** A streamed tool call: its id, its name and its arguments JSON in the pieces the model writes them. */
export interface StreamedCall {
  readonly id: string
  readonly name: string
  readonly pieces: ReadonlyArray<string>
}

const chunk = (delta: unknown, finish: string | null = null) => ({
  id: "chatcmpl-s",
  object: "chat.completion.chunk",
  created: 1,
  model: "gpt-x",
  choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }]
})

/**
 * A Chat Completions stream: the role, the text deltas, the tool calls (by index, id and name in
 * their first piece, arguments split, the calls' pieces interleaved), the finish, the usage chunk, [DONE].
 */
export const openAiFrames = (
  text: ReadonlyArray<string>,
  calls: ReadonlyArray<StreamedCall> = [],
  options: { readonly done?: boolean; readonly usage?: { prompt_tokens: number; completion_tokens: number } } = {}
): Array<Frame> => {
  const frames: Array<Frame> = [{ data: chunk({ role: "assistant", content: "" }) }]
  for (const delta of text) frames.push({ data: chunk({ content: delta }) })
  for (const [index, call] of calls.entries()) {
    frames.push({
      data: chunk({
        tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }]
      })
    })
  }
  const longest = Math.max(0, ...calls.map((call) => call.pieces.length))
  for (let piece = 0; piece < longest; piece++) {
    calls.forEach((call, index) => {
      if (piece < call.pieces.length) {
        frames.push({ data: chunk({ tool_calls: [{ index, function: { arguments: call.pieces[piece] } }] }) })
      }
    })
  }
  frames.push({ data: chunk({}, calls.length > 0 ? "tool_calls" : "stop") })
  const usage = options.usage ?? { prompt_tokens: 5, completion_tokens: 3 }
  frames.push({
    data: { id: "chatcmpl-s", object: "chat.completion.chunk", created: 1, model: "gpt-x", choices: [], usage }
  })
  if (options.done !== false) frames.push({ data: "[DONE]" })
  return frames
}

/** A Messages stream: message_start, a text block, tool_use blocks (input_json_delta pieces), pings, the stop. */
export const anthropicFrames = (
  text: ReadonlyArray<string>,
  calls: ReadonlyArray<StreamedCall> = [],
  usage = { input: 11, output: 7 }
): Array<Frame> => {
  const frames: Array<Frame> = [{
    event: "message_start",
    data: {
      type: "message_start",
      message: {
        id: "msg_s",
        type: "message",
        role: "assistant",
        content: [],
        model: "claude-x",
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: usage.input, output_tokens: 1 }
      }
    }
  }]
  let index = 0
  if (text.length > 0) {
    frames.push({
      event: "content_block_start",
      data: { type: "content_block_start", index, content_block: { type: "text", text: "" } }
    }, { event: "ping", data: { type: "ping" } })
    for (const delta of text) {
      frames.push({
        event: "content_block_delta",
        data: { type: "content_block_delta", index, delta: { type: "text_delta", text: delta } }
      })
    }
    frames.push({ event: "content_block_stop", data: { type: "content_block_stop", index } })
    index++
  }
  for (const call of calls) {
    frames.push({
      event: "content_block_start",
      data: {
        type: "content_block_start",
        index,
        content_block: { type: "tool_use", id: call.id, name: call.name, input: {} }
      }
    })
    for (const piece of call.pieces) {
      frames.push({
        event: "content_block_delta",
        data: { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: piece } }
      })
    }
    frames.push({ event: "content_block_stop", data: { type: "content_block_stop", index } })
    index++
  }
  frames.push({
    event: "message_delta",
    data: {
      type: "message_delta",
      delta: { stop_reason: calls.length > 0 ? "tool_use" : "end_turn", stop_sequence: null },
      usage: { output_tokens: usage.output }
    }
  }, { event: "message_stop", data: { type: "message_stop" } })
  return frames
}

/** A Responses stream: response.created, a message item with text deltas, function_call items, response.completed. */
export const responsesFrames = (
  text: ReadonlyArray<string>,
  calls: ReadonlyArray<StreamedCall> = [],
  usage = { input_tokens: 9, output_tokens: 4 }
): Array<Frame> => {
  const frames: Array<Frame> = []
  let sequence = 0
  const push = (type: string, fields: Record<string, unknown>) =>
    frames.push({ event: type, data: { type, sequence_number: sequence++, ...fields } })
  const response = (status: string, extra: Record<string, unknown> = {}) => ({
    id: "resp_s",
    object: "response",
    model: "gpt-x",
    status,
    output: [],
    ...extra
  })
  push("response.created", { response: response("in_progress") })
  let index = 0
  if (text.length > 0) {
    const item = { id: "msg_s", type: "message", role: "assistant", status: "in_progress", content: [] }
    push("response.output_item.added", { output_index: index, item })
    push("response.content_part.added", {
      item_id: "msg_s",
      output_index: index,
      content_index: 0,
      part: { type: "output_text", text: "" }
    })
    for (const delta of text) {
      push("response.output_text.delta", { item_id: "msg_s", output_index: index, content_index: 0, delta })
    }
    push("response.output_text.done", { item_id: "msg_s", output_index: index, content_index: 0, text: text.join("") })
    push("response.output_item.done", {
      output_index: index,
      item: { ...item, status: "completed", content: [{ type: "output_text", text: text.join("") }] }
    })
    index++
  }
  for (const call of calls) {
    const item = { id: `fc_${call.id}`, type: "function_call", call_id: call.id, name: call.name, arguments: "" }
    push("response.output_item.added", { output_index: index, item: { ...item, status: "in_progress" } })
    for (const piece of call.pieces) {
      push("response.function_call_arguments.delta", { item_id: item.id, output_index: index, delta: piece })
    }
    const args = call.pieces.join("")
    push("response.function_call_arguments.done", { item_id: item.id, output_index: index, arguments: args })
    push("response.output_item.done", { output_index: index, item: { ...item, arguments: args, status: "completed" } })
    index++
  }
  push("response.completed", { response: response("completed", { usage: { ...usage, total_tokens: 13 } }) })
  return frames
}
