/**
 * The Promise client: the governed operations of a ToolCalls Layer as Promise methods, over a
 * ManagedRuntime, for apps that don't use Effect. `Interlock.client` builds one from the options of
 * `Interlock.layer` and a transport Layer.
 */
import { Cause, Effect, Exit, type Layer, ManagedRuntime } from "effect"
import { ClientClosed, Defect, Interrupted } from "../model/ClientErrors.ts"
import type { PromptResult } from "../model/PromptResult.ts"
import type { ResourceContents } from "../model/ResourceContents.ts"
import type { Tool } from "../model/Tool.ts"
import type { JsonObject } from "../model/ToolCall.ts"
import type { ToolResult } from "../model/ToolResult.ts"
import { type CallInput, type CallOptions, type OperationOptions, ToolCalls, type ToolCallsShape } from "./ToolCalls.ts"

/** Per-operation option of the Promise client: aborting the signal interrupts the operation. */
export interface AbortOptions {
  readonly signal?: AbortSignal
}

/**
 * The governed operations as Promises. Each rejects with the same typed error the Effect API fails
 * with (`Denied`, `HookFailed`, ... — `Error`s with a `_tag`, and a `receipt` for calls), or with
 * `ClientClosed`, `Interrupted` or `Defect`; see `InterlockError`.
 */
export interface InterlockClient {
  /** Calls a tool through the hooks, the policy and the transport; the result carries its receipt. */
  readonly callTool: (input: CallInput, options?: CallOptions & AbortOptions) => Promise<ToolResult>
  /** Lists the exposed tools (of one server, or all), shaped by toolsListed hooks. */
  readonly listTools: (serverId?: string, options?: OperationOptions & AbortOptions) => Promise<ReadonlyArray<Tool>>
  /** Reads a resource through the resourceRead gate. */
  readonly readResource: (
    serverId: string,
    uri: string,
    options?: OperationOptions & AbortOptions
  ) => Promise<ResourceContents>
  /** Gets a prompt through the promptGet gate. */
  readonly getPrompt: (
    serverId: string,
    name: string,
    args?: JsonObject,
    options?: OperationOptions & AbortOptions
  ) => Promise<PromptResult>
  /**
   * Releases everything: interrupts the operations in flight (they reject with `ClientClosed`),
   * then closes the Layer (hook fibers, transport connections and child processes). Later calls
   * reject with `ClientClosed`. Idempotent: every call returns the same Promise.
   */
  readonly close: () => Promise<void>
}

/** What a failed operation rejects with: the typed failure as is, never a defect's or interruption's text. */
const rejection = (cause: Cause.Cause<unknown>, closed: boolean): unknown => {
  const failure = Cause.findErrorOption(cause)
  if (failure._tag === "Some" && failure.value instanceof Error) return failure.value
  if (closed) return new ClientClosed()
  if (failure._tag === "None" && Cause.hasInterruptsOnly(cause)) return new Interrupted()
  return new Defect()
}

/**
 * A Promise client over a ToolCalls Layer. The Layer is built on the first operation (a build
 * failure, such as a `ConfigError`, rejects that operation and every later one) and once only,
 * however many operations run concurrently.
 */
export const make = <E>(layer: Layer.Layer<ToolCalls, E>): InterlockClient => {
  const runtime = ManagedRuntime.make(layer)
  let closing: Promise<void> | undefined
  const run = <A>(
    operation: (calls: ToolCallsShape) => Effect.Effect<A, unknown>,
    options: AbortOptions | undefined
  ): Promise<A> => {
    if (closing !== undefined) return Promise.reject(new ClientClosed())
    const signal = options?.signal
    if (signal?.aborted === true) return Promise.reject(new Interrupted())
    return runtime.runPromiseExit(
      Effect.flatMap(Effect.service(ToolCalls), operation),
      signal === undefined ? undefined : { signal }
    ).then((exit) => Exit.isSuccess(exit) ? exit.value : Promise.reject(rejection(exit.cause, closing !== undefined)))
  }
  return {
    callTool: (input, options) => run((calls) => calls.callTool(input, options), options),
    listTools: (serverId, options) => run((calls) => calls.listTools(serverId, options), options),
    readResource: (serverId, uri, options) => run((calls) => calls.readResource(serverId, uri, options), options),
    getPrompt: (serverId, name, args, options) =>
      run((calls) => calls.getPrompt(serverId, name, args, options), options),
    close: () => (closing ??= runtime.dispose())
  }
}
