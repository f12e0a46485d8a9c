/**
 * `interlockMiddleware(options)`: a LangChain v1 agent middleware whose `wrapToolCall` runs every tool call through
 * Interlock's pipeline first (hooks, the policy, approvals, receipts); the tool runs only when the pipeline sends it.
 * With `modelHooks`, its `wrapModelCall` runs the model-level hooks too (ModelCall.ts).
 */
import { type ContentBlock, type HooksConfig, InterlockError, makeTrusted, ToolResult } from "@interlock/core"
import { ToolMessage } from "@langchain/core/messages"
import type { Duration } from "effect"
import { createMiddleware } from "langchain"
import type { Codec } from "../internal/Codec.ts"
import { compileModelHooks } from "../internal/ModelHooks.ts"
import { type BridgeOptions, makeBridge } from "../internal/ToolBridge.ts"
import { type ModelHooksConfig, wrapModelCall } from "./ModelCall.ts"

/**
 * Options of {@link interlockMiddleware}: core's (hooks, `policy`, approvals, settings), the server id, `onReceipt`,
 * and the model-level hooks with their default deadline.
 */
export type InterlockMiddlewareOptions<C extends HooksConfig = HooksConfig> = BridgeOptions<C> & {
  readonly modelHooks?: ModelHooksConfig
  /** The deadline of a model-level hook without its own; default 5 s. */
  readonly modelHookTimeout?: Duration.Input
}

/** A result a hook made, for the middleware to turn into a ToolMessage for its call. */
class Replaced {
  readonly result: ToolResult
  constructor(result: ToolResult) {
    this.result = result
  }
}

/** A tool answered with something other than a ToolMessage (a Command), which no hook or redaction could inspect. */
class OpaqueAnswer extends Error {}

/** A ToolMessage's content as core's blocks: text as it is, any other block as its JSON text. */
const blocksOf = (content: ToolMessage["content"]): Array<ContentBlock> =>
  typeof content === "string"
    ? [{ type: "text", text: content }]
    : content.map((block) =>
      block.type === "text" && typeof block.text === "string"
        ? { type: "text", text: block.text }
        : { type: "text", text: JSON.stringify(block) }
    )

const codec: Codec = {
  toResult: (value) =>
    makeTrusted(ToolResult, {
      content: blocksOf((value as ToolMessage).content),
      isError: (value as ToolMessage).status === "error"
    }),
  fromResult: (result) => new Replaced(result)
}

/** What the tool node answers the model for a call: `text` as the call's ToolMessage. */
const message = (
  text: string,
  call: { readonly id?: string | undefined; readonly name: string },
  isError: boolean
): ToolMessage =>
  new ToolMessage({
    content: text,
    tool_call_id: call.id ?? "",
    name: call.name,
    status: isError ? "error" : "success"
  })

/**
 * The middleware, for `createAgent({ middleware: [...] })`. A denied or failed call answers the model with an error
 * ToolMessage that says why (naming no argument); the tool never runs. A tool that answers with anything but a
 * ToolMessage (a LangGraph Command, say) cannot be inspected, so its answer is refused the same way.
 */
export const interlockMiddleware = <const C extends HooksConfig = HooksConfig>(
  options: InterlockMiddlewareOptions<C>
) => {
  const { modelHooks, modelHookTimeout, ...bridgeOptions } = options
  const hooks = modelHooks === undefined ? undefined : compileModelHooks(modelHooks, modelHookTimeout)
  const bridge = makeBridge([], bridgeOptions, codec)
  const middleware = createMiddleware({
    name: "Interlock",
    ...(hooks === undefined ? {} : { wrapModelCall: wrapModelCall(hooks) }),
    wrapToolCall: async (request, handler) => {
      const call = request.toolCall
      try {
        const out = await bridge.call(
          call.name,
          call.args,
          async (args) => {
            const answer = await handler({ ...request, toolCall: { ...call, args } })
            if (!ToolMessage.isInstance(answer)) {
              throw new OpaqueAnswer(`refused: tool ${call.name} answered with something other than a ToolMessage`)
            }
            return answer
          },
          { toolCallId: call.id }
        )
        return out instanceof Replaced
          ? message(out.result.text, call, out.result.isError === true)
          : out as ToolMessage
      } catch (error) {
        if (InterlockError.is(error) || error instanceof OpaqueAnswer) return message(error.message, call, true)
        throw error
      }
    }
  })
  return Object.assign(middleware, { close: bridge.close })
}
