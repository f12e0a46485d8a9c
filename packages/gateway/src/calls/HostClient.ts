/**
 * The values of a host's request that name the host, handed by the front to the call path for
 * hooks and the audit row: the host's client as it named itself (`clientInfo`) and the host's own
 * id of a tools/call (Claude Code's `claudecode/toolUseId`).
 */
import { Context } from "effect"

/** A host's client info, as the front read it (cut to its caps). */
export interface HostClient {
  readonly name: string
  readonly version: string
}

/** The client of the current request's host; none outside a host's request. */
export const CurrentHostClient = Context.Reference<HostClient | undefined>("@interlock/gateway/CurrentHostClient", {
  defaultValue: () => undefined
})

/** The host's own id of the current tools/call, for its audit row; none when the host sent none. */
export const CurrentHostToolUseId = Context.Reference<string | undefined>("@interlock/gateway/CurrentHostToolUseId", {
  defaultValue: () => undefined
})

/** The host's client as an audit row names it: `name/version` (just the name without a version). */
export const clientName = (client: HostClient | undefined): string | undefined =>
  client === undefined ? undefined : client.version !== "" ? `${client.name}/${client.version}` : client.name

/**
 * Claude Code's tool_use_id from a tools/call's `_meta` (`claudecode/toolUseId`, as Claude Code sends it), when it
 * looks like one (letters, digits, `_` and `-`, at most 200): the client chooses it, so nothing else reaches the row.
 */
export const hostToolUseId = (meta: Readonly<Record<string, unknown>> | undefined): string | undefined => {
  const id = meta?.["claudecode/toolUseId"]
  return typeof id === "string" && /^[A-Za-z0-9_-]{1,200}$/.test(id) ? id : undefined
}
