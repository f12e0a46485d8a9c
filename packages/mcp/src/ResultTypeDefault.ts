/**
 * A missing `resultType` read as "complete" on a 2026-07-28 connection, as the revision asks of a client
 * (SEP-2322); the SDK would refuse the result and cut the hub off from servers that leave the field out. Installed
 * on the session's transport, in front of the SDK, it adds the field to a modern connection's response results
 * that lack it; anything else (an error, a resultType of any value) passes unchanged.
 */
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client"
import { carryTask } from "./TaskResult.ts"

type Handler = NonNullable<Transport["onmessage"]>

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * The message with `resultType: "complete"` added when it is a response whose result object has no resultType;
 * otherwise the message itself.
 */
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
