/**
 * What a transport implements (MCP over stdio or HTTP, in-memory, or native Effect tools): the
 * pipeline calls it after hooks and policy; it never sees a denied call. The service is ToolTransport.ts.
 */
import { Effect } from "effect"
import type { Timeout, TransportFailure } from "../model/Errors.ts"
import { ProtocolError } from "../model/Errors.ts"
import type { PromptResult } from "../model/PromptResult.ts"
import type { ResourceContents } from "../model/ResourceContents.ts"
import type { Tool } from "../model/Tool.ts"
import type { JsonObject, ToolCall } from "../model/ToolCall.ts"
import type { ToolResult } from "../model/ToolResult.ts"

/** A progress notification for a running call. */
export interface Progress {
  readonly progress: number
  readonly total?: number | undefined
  readonly message?: string | undefined
}

/** Per-call transport options. Interrupting the call's Effect cancels the request. */
export interface TransportCallOptions {
  /** Receives progress notifications, when the server sends them. */
  readonly onProgress?: ((progress: Progress) => void) | undefined
  /** The call's deadline in ms; a transport with `enforcesDeadline` must fail with core's Timeout after it. */
  readonly timeoutMs?: number | undefined
}

/** What a transport provides. */
export interface ToolTransportShape {
  readonly callTool: (
    call: ToolCall,
    options: TransportCallOptions
  ) => Effect.Effect<ToolResult, TransportFailure | Timeout>
  /** Lists tools of one server, or of every server when `serverId` is undefined. */
  readonly listTools: (serverId: string | undefined) => Effect.Effect<ReadonlyArray<Tool>, TransportFailure>
  readonly readResource: (serverId: string, uri: string) => Effect.Effect<ResourceContents, TransportFailure>
  readonly getPrompt: (
    serverId: string,
    name: string,
    args: JsonObject
  ) => Effect.Effect<PromptResult, TransportFailure>
  /** The protocol revision negotiated with a server, when known (for `ctx.era`). */
  readonly era: (serverId: string) => string | undefined
  /**
   * Whether a tool's definition differs from the one pinned at first sight (tool fingerprints).
   * Optional: a transport that does not pin tools leaves it out. Reported on the receipt; with
   * `pinTools: true` the call is denied.
   */
  readonly toolChanged?: ((serverId: string, name: string) => boolean) | undefined
  /**
   * The tool's definition as last listed (annotations included), for the policy: at once, or an
   * Effect when the transport must first learn it (connect and list); one that fails fails the
   * call, unsent. Optional: a policy that asks for annotations treats an undescribed tool as
   * having MCP's defaults. Annotations are the server's claims: a policy relying on them trusts it.
   */
  readonly describeTool?:
    | ((serverId: string, name: string) => Tool | undefined | Effect.Effect<Tool | undefined, TransportFailure>)
    | undefined
  /**
   * True when callTool enforces `timeoutMs` itself (failing with core's `Timeout`), for example
   * through the MCP SDK's request timeout; the pipeline then sets no timer of its own.
   */
  readonly enforcesDeadline?: boolean | undefined
}

/** The error for an operation a transport does not offer (JSON-RPC "method not found"). */
export const unsupported = (serverId: string, operation: string): Effect.Effect<never, ProtocolError> =>
  Effect.fail(new ProtocolError({ serverId, code: -32601, detail: `${operation} is not supported by this server` }))
