/**
 * A missing `resultType` read as "complete" on a 2026-07-28 connection, as the revision asks of
 * a client (SEP-2322). The SDK refuses such a result ("missing required resultType"), which would
 * cut the hub (and the gateway behind it) off from servers that leave the field out. The rule is
 * installed on the session's transport, in front of the SDK: every JSON-RPC response the transport
 * delivers while the connection is modern has the field added when its result lacks it. Anything
 * else (a legacy connection, a request, an error, a result that has a resultType of any value) is
 * delivered unchanged, so a non-string resultType or `input_required` still behaves as before.
 */
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client"
import { carryTask } from "./TaskResult.ts"

type Handler = NonNullable<Transport["onmessage"]>

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** The message with `resultType: "complete"` added when it is a response whose result object has no resultType; otherwise the message itself. */
export const withDefaultResultType = <M extends JSONRPCMessage>(message: M): M => {
  const given: unknown = (message as { readonly result?: unknown }).result
  if (!isRecord(given) || !("id" in message)) return message
  // A CreateTaskResult, which the SDK would refuse, arrives carried in _meta (TaskResult.ts).
  const result = carryTask(given)
  if ("resultType" in result) return result === given ? message : { ...message, result }
  return { ...message, result: { ...result, resultType: "complete" } }
}

/**
 * Decorates `transport` in place: whatever handler the SDK installs as its `onmessage` receives
 * messages through `withDefaultResultType` while `modern()` holds. In place (an accessor on the
 * instance), so the transport keeps its class, its pid and the SDK's own feature checks on it.
 */
export const defaultResultType = (transport: Transport, modern: () => boolean): void => {
  let handler: Handler | undefined
  const installed = transport.onmessage
  Object.defineProperty(transport, "onmessage", {
    configurable: true,
    enumerable: true,
    get: () => handler,
    set: (next: Handler | null | undefined) => {
      handler = typeof next !== "function"
        ? undefined
        : (message, extra) => next(modern() ? withDefaultResultType(message) : message, extra)
    }
  })
  if (installed !== undefined) transport.onmessage = installed
}
