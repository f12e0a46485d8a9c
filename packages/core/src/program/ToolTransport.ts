/**
 * ToolTransport: the service a transport is provided as, beneath the pipeline (`Interlock.layer`);
 * what it implements is TransportShape.ts.
 */
import { Context, Effect, Layer } from "effect"
import { type NativeTool, nativeTransport } from "./NativeTool.ts"
import type { ToolTransportShape } from "./TransportShape.ts"

/** The transport service that `Interlock.layer` builds on. */
export class ToolTransport
  extends Context.Service<ToolTransport, ToolTransportShape>()("@interlock/core/ToolTransport")
{
  /**
   * Native Effect tools as a real transport (one server, `serverId` default "local"). Tool
   * requirements become the Layer's requirements.
   */
  static fromTools<R>(
    tools: ReadonlyArray<NativeTool<R>>,
    options?: { readonly serverId?: string }
  ): Layer.Layer<ToolTransport, never, R> {
    return Layer.effect(
      ToolTransport,
      Effect.map(Effect.context<R>(), (context) => nativeTransport(tools, options?.serverId ?? "local", context))
    )
  }
}
