/**
 * The fan-out of the servers' notifications to the gateway's hosts: a resource update to the hosts
 * that follow that URI, a log message to the host whose call is running on that server (else to
 * every host, each at its own level), and anything else (list changes) to every host. What a
 * server added passes the config's redactions.
 */
import type { HubNotification } from "@interlock/mcp"
import type { LoggingLevel } from "@modelcontextprotocol/server"
import { Effect } from "effect"
import { exposeUiUri } from "../governance/AppUris.ts"
import type { Namespace } from "../governance/Namespace.ts"
import { type Redaction, redactionsFor, redactJson } from "../governance/Redactor.ts"
import type { HostSession, HostSessionsShape } from "./HostSessions.ts"
import { belowLevel } from "./LogLevels.ts"
import type { SubscriptionsShape } from "./Subscriptions.ts"

/** What the fan-out reads (the redactions on each use: a reload may replace them). */
export interface NotificationDeps {
  readonly hosts: HostSessionsShape
  readonly prompts: Namespace
  readonly redactions: ReadonlyArray<Redaction>
  readonly fork: (effect: Effect.Effect<unknown, unknown>) => void
}

const send = (host: HostSession, method: string, params?: Record<string, unknown>) =>
  void host.server.notification(params === undefined ? { method } : { method, params }).catch(() => undefined)

/** The handler of the hub's notifications, over the subscriptions and each host's logging level. */
export const notificationRouter = (
  deps: NotificationDeps,
  subscriptions: SubscriptionsShape,
  levelOf: (host: HostSession) => LoggingLevel | undefined
) =>
(notification: HubNotification): void => {
  const { hosts } = deps
  switch (notification.method) {
    case "notifications/resources/updated": {
      const uri = exposeUiUri(deps.prompts, notification.serverId, notification.params.uri)
      const entry = subscriptions.of(uri)
      if (entry !== undefined && entry.serverId === notification.serverId) {
        // The URI is the one the hosts subscribed to; anything else the server added passes the redactions.
        const params = redactJson(
          notification.params,
          redactionsFor(deps.redactions, entry.serverId, notification.params.uri)
        )
        for (const host of entry.hosts) send(host, notification.method, { ...params, uri })
      }
      return
    }
    case "notifications/message": {
      const { serverId, params } = notification
      const logger = deps.prompts.prefixed
        ? (params.logger === undefined ? serverId : `${serverId}/${params.logger}`)
        : params.logger
      const message = redactJson(
        logger === undefined ? params : { ...params, logger },
        redactionsFor(deps.redactions, serverId, params.logger ?? "log")
      )
      const owner = hosts.attribute(serverId)
      if (owner._tag === "Ambiguous") {
        // Several hosts' calls are running on that server: whose message this is cannot be told.
        deps.fork(
          Effect.logWarning("a server's log message could not be attributed to one host and was not forwarded").pipe(
            Effect.annotateLogs({ "interlock.server": serverId })
          )
        )
        return
      }
      // A message sent while one host's calls to that server run goes on that host's latest call stream.
      const targets = owner._tag === "Call" ? [owner.call.session] : hosts.all()
      for (const host of targets) {
        if (belowLevel(params.level, levelOf(host))) continue
        if (owner._tag === "Call" && owner.call.notify !== undefined) {
          void owner.call.notify({ method: "notifications/message", params: message }).catch(() => undefined)
        } else send(host, "notifications/message", message)
      }
      return
    }
    default:
      for (const host of hosts.all()) send(host, notification.method)
  }
}
