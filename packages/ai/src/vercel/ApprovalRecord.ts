/**
 * The SDK's record that a person approved one tool call, read from the prompt a governed `execute` is given: an
 * approved `tool-approval-response` in the last message, its request in an assistant message naming the call, and
 * the call itself, once, with this tool's name and these very arguments.
 */
import { Canonical } from "@interlock/core"
import type { ModelMessage } from "ai"

/** The part of an assistant message that a record is read from. */
type Part = Exclude<Extract<ModelMessage, { role: "assistant" }>["content"], string>[number]

/** The approval ids the last message approves: a person's answers, as the SDK collects them. */
const approvedIds = (last: ModelMessage | undefined): ReadonlySet<string> => {
  if (last === undefined || last.role !== "tool") return new Set()
  return new Set(
    last.content.flatMap((part) =>
      part.type === "tool-approval-response" && part.approved === true ? [part.approvalId] : []
    )
  )
}

/** Whether two inputs are the same JSON. */
const sameInput = (a: unknown, b: unknown): boolean => {
  const left = Canonical.canonicalJson(a)
  return typeof left === "string" && left === Canonical.canonicalJson(b)
}

/**
 * The id of the approval that `messages` record for call `toolCallId` of `toolName` with `input`, or undefined. An
 * automatic approval (the app's own `toolApproval` answering for the person), a call the history holds more than
 * once or with other arguments, and an answer not in the last message are no record.
 */
export const approvalOf = (
  messages: ReadonlyArray<ModelMessage> | undefined,
  toolCallId: string,
  toolName: string,
  input: unknown
): string | undefined => {
  if (messages === undefined) return undefined
  const approved = approvedIds(messages.at(-1))
  if (approved.size === 0) return undefined
  let approval: string | undefined
  const calls: Array<Part & { type: "tool-call" }> = []
  for (const message of messages) {
    if (message.role !== "assistant" || typeof message.content === "string") continue
    for (const part of message.content) {
      if (part.type === "tool-call" && part.toolCallId === toolCallId) calls.push(part)
      if (
        part.type === "tool-approval-request" && part.toolCallId === toolCallId && approved.has(part.approvalId) &&
        part.isAutomatic !== true
      ) approval = part.approvalId
    }
  }
  const [call] = calls
  if (approval === undefined || calls.length !== 1 || call === undefined) return undefined
  return call.toolName === toolName && sameInput(call.input, input) ? approval : undefined
}
