/** How the bridge (ToolBridge.ts) converts between a framework's tool outputs and core's results. */
import type { ToolResult } from "@interlock/core"

/**
 * How a framework's tool outputs and core's results convert: `toResult` for what the tool produced (before the
 * post-call hooks), `fromResult` for a result a hook made, given what the tool had produced (undefined when it threw
 * or never ran). JsonCodec.ts has the default, for JSON values as the Vercel AI SDK and OpenAI Agents have them.
 */
export interface Codec {
  readonly toResult: (value: unknown) => ToolResult
  readonly fromResult: (result: ToolResult, produced: unknown) => unknown
}
