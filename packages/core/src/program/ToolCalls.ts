/** The ToolCalls service: the governed tool-call program that `Interlock.layer` builds. */
import { Context, type Duration, type Effect } from "effect"
import type { CallError, Denied, HookFailed, TransportFailure } from "../model/Errors.ts"
import type { Principal } from "../model/Principal.ts"
import type { PromptResult } from "../model/PromptResult.ts"
import type { ResourceContents } from "../model/ResourceContents.ts"
import type { Tool } from "../model/Tool.ts"
import type { JsonObject } from "../model/ToolCall.ts"
import type { ToolResult } from "../model/ToolResult.ts"
import type { PolicyOperation } from "../policy/Policy.ts"
import type { Progress } from "./TransportShape.ts"

/** A call as the caller asks for it. `callId` defaults to a fresh UUID, `args` to `{}`. */
export interface CallInput {
  readonly serverId: string
  readonly name: string
  readonly args?: JsonObject
  readonly callId?: string
  readonly meta?: JsonObject
}

/** Per-operation options: who is calling, host data for hooks, and the call's own deadline. */
export interface OperationOptions {
  readonly principal?: Principal
  readonly assigns?: Record<string, unknown>
}

/** Options of callTool. */
export interface CallOptions extends OperationOptions {
  /** The transport call's deadline; default the client's callTimeout (60 s). */
  readonly timeout?: Duration.Input
  /** Receives progress notifications. */
  readonly onProgress?: (progress: Progress) => void
}

/** The governed operations. Every callTool result and error carries a Receipt. */
export interface ToolCallsShape {
  readonly callTool: (input: CallInput, options?: CallOptions) => Effect.Effect<ToolResult, CallError>
  /** Lists the exposed tools (of one server, or all), shaped by toolsListed hooks. */
  readonly listTools: (
    serverId?: string,
    options?: OperationOptions
  ) => Effect.Effect<ReadonlyArray<Tool>, HookFailed | TransportFailure>
  /** Reads a resource through the resourceRead gate. */
  readonly readResource: (
    serverId: string,
    uri: string,
    options?: OperationOptions
  ) => Effect.Effect<ResourceContents, Denied | HookFailed | TransportFailure>
  /** Gets a prompt through the promptGet gate. */
  readonly getPrompt: (
    serverId: string,
    name: string,
    args?: JsonObject,
    options?: OperationOptions
  ) => Effect.Effect<PromptResult, Denied | HookFailed | TransportFailure>
  /**
   * Decides a read of `uri` as readResource would (hooks, policy) without reading: for a subscription or a template's
   * completion.
   */
  readonly decideRead: (
    serverId: string,
    uri: string,
    options?: OperationOptions
  ) => Effect.Effect<void, Denied | HookFailed>
  /** Decides a get of a prompt as getPrompt would (hooks, policy) without getting it: for a completion. */
  readonly decidePrompt: (
    serverId: string,
    name: string,
    args?: JsonObject,
    options?: OperationOptions
  ) => Effect.Effect<void, Denied | HookFailed>
  /**
   * The entries of a resource, template or prompt listing to show: with `hideDenied`, those whose
   * read or get the policy could allow (`operationOf` names it); every entry otherwise.
   */
  readonly visibleOperations: <A>(
    entries: ReadonlyArray<A>,
    operationOf: (entry: A) => PolicyOperation,
    options?: OperationOptions
  ) => Effect.Effect<ReadonlyArray<A>>
}

/** The governed tool-call program. */
export class ToolCalls extends Context.Service<ToolCalls, ToolCallsShape>()("@interlock/core/ToolCalls") {}
