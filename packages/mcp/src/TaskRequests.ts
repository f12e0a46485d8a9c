/**
 * The hub's side of the io.modelcontextprotocol/tasks methods (SEP-2663): `tasks/get`,
 * `tasks/update` and `tasks/cancel` sent to a server's 2026-07-28 session as they are, with the
 * extension declared in the request's client capabilities. The serving layer owns the task ids a host
 * sees and decides who may ask; this only carries the request and returns the server's result.
 */
import { type JsonObject, TransportError, type TransportFailure } from "@interlock/core"
import { CLIENT_CAPABILITIES_META_KEY } from "@modelcontextprotocol/client"
import { Effect } from "effect"
import { anyObjectResult } from "./ExtensionRequest.ts"
import type { ServerSlot } from "./ServerSlot.ts"
import type { Session } from "./Session.ts"
import { TASKS_EXTENSION } from "./TaskResult.ts"

/** A tasks method the hub carries. */
export type TaskMethod = "tasks/get" | "tasks/update" | "tasks/cancel"

/** Sends a tasks method to one server: the server's result, or why it failed. */
export type TaskRequest = (
  serverId: string,
  method: TaskMethod,
  params: JsonObject
) => Effect.Effect<JsonObject, TransportFailure>

/** The TaskRequest of a hub, over its way to the session of a request's caller. */
export const makeTaskRequest = (
  withSession: <A>(
    serverId: string,
    use: (slot: ServerSlot, session: Session) => Effect.Effect<A, TransportFailure>
  ) => Effect.Effect<A, TransportFailure>
): TaskRequest =>
(serverId, method, params) =>
  withSession(serverId, (slot, session) =>
    session.modern
      ? slot.request(session, `during ${method}`, (signal) =>
        session.client.request(
          {
            method,
            params: { ...params, _meta: { [CLIENT_CAPABILITIES_META_KEY]: { extensions: { [TASKS_EXTENSION]: {} } } } }
          },
          // The server's result is handed on after the serving layer redacts it: any JSON object is taken.
          anyObjectResult,
          { signal, timeout: slot.config.requestTimeoutMs }
        ))
      // A 2025 session has no such tasks: nothing is sent.
      : Effect.fail(
        new TransportError({ serverId, detail: "the server's session has no io.modelcontextprotocol/tasks" })
      ))
