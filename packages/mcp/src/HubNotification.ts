/**
 * What a downstream server tells its client about features a host may follow: a list that changed,
 * a subscribed resource that changed, or a log message. The hub hands these to its listeners.
 */
import type { LoggingMessageNotificationParams, ResourceUpdatedNotificationParams } from "@modelcontextprotocol/client"

/** The list_changed notification methods the hub forwards. */
export const LIST_CHANGED = [
  "notifications/tools/list_changed",
  "notifications/prompts/list_changed",
  "notifications/resources/list_changed"
] as const

/** A notification from one server, named by the MCP method it arrived as. */
export type HubNotification =
  | { readonly serverId: string; readonly method: (typeof LIST_CHANGED)[number] }
  | {
    readonly serverId: string
    readonly method: "notifications/resources/updated"
    readonly params: ResourceUpdatedNotificationParams
  }
  | {
    readonly serverId: string
    readonly method: "notifications/message"
    readonly params: LoggingMessageNotificationParams
  }

/** Receives hub notifications; it must not throw. */
export type HubListener = (notification: HubNotification) => void
