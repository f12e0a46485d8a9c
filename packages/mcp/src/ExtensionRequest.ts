/**
 * A request of an extension's own method (one the SDK has no typed call for) sent to a server's
 * shared session as it is: the server's JSON object result, unchecked, or why it failed. Whoever
 * sends it decodes the result against its own Schema (Interceptors, the tasks methods).
 */
import type { JsonObject, Timeout, TransportFailure } from "@interlock/core"
import type { StandardSchemaV1 } from "@modelcontextprotocol/client"
import type { Effect } from "effect"
import { type ServerSlot, withSession } from "./ServerSlot.ts"

/** Sends `method` with `params` to one server, under `timeoutMs` (default the server's request timeout). */
export type ExtensionRequest = (
  serverId: string,
  method: string,
  params: JsonObject,
  timeoutMs?: number
) => Effect.Effect<JsonObject, TransportFailure | Timeout>

/** The SDK result Schema of an extension's request: any JSON object (its sender decodes it). */
export const anyObjectResult: StandardSchemaV1<unknown, JsonObject> = {
  "~standard": {
    version: 1,
    vendor: "interlock",
    validate: (
      value
    ) => (typeof value === "object" && value !== null && !Array.isArray(value)
      ? { value: value as JsonObject }
      : { issues: [{ message: "not an object" }] })
  }
}

/** The ExtensionRequest of a hub's slots: on each server's shared session, connecting it first when needed. */
export const makeExtensionRequest =
  (slots: ReadonlyMap<string, ServerSlot>): ExtensionRequest => (serverId, method, params, timeoutMs) =>
    withSession(slots, serverId, (slot, session) => {
      const timeout = timeoutMs ?? slot.config.requestTimeoutMs
      return slot.deadlineRequest(
        session,
        `during ${method}`,
        (signal) => session.client.request({ method, params }, anyObjectResult, { signal, timeout }),
        timeout
      )
    })
