/**
 * A recording transport for tests: it records every call that reached it, with its final arguments
 * (after every rewrite), so a test can assert what was sent, and that a denied call never was.
 */
import { Context, Effect, Layer } from "effect"
import type { ToolCall } from "../model/ToolCall.ts"
import type { NativeTool } from "../program/NativeTool.ts"
import { ToolTransport } from "../program/ToolTransport.ts"

/** What a recording transport saw. */
export interface RecordingShape {
  /** The calls that reached the transport, in order, as it got them (a copy). */
  readonly calls: ReadonlyArray<ToolCall>
  /** Forgets the calls recorded so far. */
  readonly clear: () => void
}

/** A recording and the Layer that records into it: it provides ToolTransport and RecordingTransport. */
export interface Recording<E = never, R = never> extends RecordingShape {
  readonly layer: Layer.Layer<ToolTransport | RecordingTransport, E, R>
}

/** The recording, as a service, for Effect tests: `const { calls } = yield* RecordingTransport`. */
export class RecordingTransport
  extends Context.Service<RecordingTransport, RecordingShape>()("@interlock/core/testing/RecordingTransport")
{
  /**
   * Records the calls that reach any transport Layer (native tools, an `@interlock/mcp` transport).
   * The recording lives outside the Layer: every build of it records into the same one, so make one
   * per test.
   */
  static record<E, R>(transport: Layer.Layer<ToolTransport, E, R>): Recording<E, R> {
    const log: Array<ToolCall> = []
    const recorded = Layer.effect(
      ToolTransport,
      Effect.map(Effect.service(ToolTransport), (inner) =>
        ToolTransport.of({
          ...inner,
          callTool: (call, options) =>
            Effect.suspend(() => {
              log.push(call)
              return inner.callTool(call, options)
            })
        }))
    ).pipe(Layer.provide(transport))
    const self: Recording<E, R> = {
      get calls() {
        return log.slice()
      },
      clear: () => {
        log.length = 0
      },
      layer: Layer.merge(recorded, Layer.sync(RecordingTransport, () => self))
    }
    return self
  }

  /** Native tools served as one server (`serverId` default "local"), recorded. */
  static make<R = never>(
    tools: ReadonlyArray<NativeTool<R>>,
    options?: { readonly serverId?: string }
  ): Recording<never, R> {
    return RecordingTransport.record(ToolTransport.fromTools(tools, options))
  }
}
