/**
 * Between core's models and MCP wire shapes toward the host: tools, results, and what a failed call looks like. A
 * denial, hook failure, timeout, transport failure or missing credential is an isError result with Interlock's
 * message; a downstream protocol error keeps its JSON-RPC code. Messages never carry arguments, results or secrets.
 */
import type { ProtocolError, Receipt, Tool, ToolResult } from "@interlock/core"
import { TASKS_EXTENSION } from "@interlock/mcp"
import {
  type CallToolResult,
  inputRequired,
  type InputRequiredResult,
  ProtocolError as WireError,
  type Tool as WireTool
} from "@modelcontextprotocol/server"
import type { GatewayCallError } from "../calls/GatewayCalls.ts"
import type { StateRefused } from "../calls/StateRefused.ts"
import type { Era } from "./Era.ts"
import { hostErrorCode } from "./EraErrorCodes.ts"

// Core holds a tool's schemas and a result's content blocks as JSON records; they came from a
// server's answer that mcp's client validated against these very shapes, so the casts below only
// restore the types the SDK already checked.

/** A tool as tools/list returns it, under its host-side name. */
export const toWireTool = (tool: Tool, name: string): WireTool => {
  const out: { -readonly [K in keyof WireTool]: WireTool[K] } = {
    name,
    inputSchema: tool.inputSchema as WireTool["inputSchema"]
  }
  if (tool.title !== undefined) out.title = tool.title
  if (tool.description !== undefined) out.description = tool.description
  if (tool.outputSchema !== undefined) out.outputSchema = tool.outputSchema as WireTool["outputSchema"]
  if (tool.annotations !== undefined) out.annotations = tool.annotations
  if (tool.meta !== undefined) out._meta = tool.meta
  return out
}

/** A result as tools/call returns it (the receipt travels in `_meta`, without args or results). */
export const toWireResult = (result: ToolResult): CallToolResult => {
  const out: { -readonly [K in keyof CallToolResult]: CallToolResult[K] } = {
    content: result.content as CallToolResult["content"]
  }
  if (result.structuredContent !== undefined) out.structuredContent = result.structuredContent
  if (result.isError === true) out.isError = true
  const meta: Record<string, unknown> = { ...(result.meta ?? {}) }
  if (result.receipt !== undefined) {
    meta["interlock/receipt"] = {
      outcome: result.receipt.outcome,
      callId: result.receipt.callId,
      policy: result.receipt.policy
    }
  }
  if (Object.keys(meta).length > 0) out._meta = meta
  return out
}

/** The `_meta` key of a failed call's id, as its audit row records it (`interlock audit --call ID`). */
export const CALL_ID_META = "interlock/callId"

/**
 * The `_meta` key of the digest of a failed call's final call (after rewrites), as its receipt and audit row hold it.
 */
export const DIGEST_META = "interlock/digest"

/** The `_meta` key of a failed call's error tag. */
export const ERROR_META = "interlock/error"

/** A failed call's id and digest under their `_meta` keys (each when known). */
const callMeta = (
  error: { readonly receipt?: Receipt | undefined },
  callId: string | undefined
): Record<string, string> => {
  const meta: Record<string, string> = {}
  const id = callId ?? error.receipt?.callId
  if (id !== undefined) meta[CALL_ID_META] = id
  if (error.receipt?.digest !== undefined) meta[DIGEST_META] = error.receipt.digest
  return meta
}

/**
 * A -32021 error's data as the revision shapes it, for a 2026-07-28 host: `requiredCapabilities`, a ClientCapabilities
 * object.
 */
export const requiredData = (
  error: ProtocolError,
  era: Era
): { readonly requiredCapabilities?: Record<string, object> } =>
  error.requiredCapabilities === undefined || era !== "modern"
    ? {}
    : {
      requiredCapabilities: Object.fromEntries(
        error.requiredCapabilities.map((
          name
        ) => (name === TASKS_EXTENSION ? ["extensions", { [TASKS_EXTENSION]: {} }] : [name, {}]))
      )
    }

/**
 * A retry whose state the gateway refused, as the JSON-RPC error the host gets: its fixed message, and the call's id
 * when it has one.
 */
export const stateRefusedToWire = (error: StateRefused, callId?: string): WireError =>
  new WireError(
    error.code,
    `Interlock: ${error.message}`,
    callId === undefined ? undefined : { [CALL_ID_META]: callId }
  )

/** The code of the error that asks the host to complete URL-mode elicitations before a retry. */
export const URL_ELICITATION_REQUIRED = -32042

/**
 * The key of the URL-mode elicitation a 2026-07-28 host is asked to open a connect link with; a retry that answers
 * it and is still refused gets the link as a tool error instead, so that a host's input loop ends.
 */
export const CONNECT_INPUT = "interlock/connect"

const connectMessage = (serverId: string) => `Connect ${serverId}: sign in there, then retry.`

/**
 * A call refused for want of the principal's grant, to a host that takes URL-mode elicitation: the error that asks
 * it to open the principal's connect link (its id the call's), after which the host retries.
 */
const connectElicitation = (serverId: string, url: string, message: string, callId: string | undefined): WireError =>
  new WireError(URL_ELICITATION_REQUIRED, `Interlock: ${message}`, {
    elicitations: [{
      mode: "url",
      elicitationId: callId ?? crypto.randomUUID(),
      url,
      message: connectMessage(serverId)
    }],
    ...(callId === undefined ? {} : { [CALL_ID_META]: callId })
  })

const connectHint = (error: GatewayCallError): string =>
  error._tag === "CredentialError" && error.connect !== undefined
    ? `. To connect it, open ${error.connect} in a browser, then retry.`
    : ""

/**
 * What a failed call becomes for the host: an isError result, or a JSON-RPC error. The result's
 * `_meta` names the error's tag, the call's id and the receipt's digest, so the host's user can
 * find the audit row; nothing from the arguments or from what a hook raised. A downstream protocol
 * error keeps its code and message, and carries the same ids as its error data.
 */
export const failureToWire = (
  error: GatewayCallError,
  callId?: string,
  era: Era = "legacy",
  urlElicitation = false
): CallToolResult | InputRequiredResult | WireError => {
  if (error._tag === "CredentialError" && error.connect !== undefined && urlElicitation) {
    return era === "modern"
      ? inputRequired({
        inputRequests: {
          [CONNECT_INPUT]: inputRequired.elicitUrl({ url: error.connect, message: connectMessage(error.serverId) })
        }
      })
      : connectElicitation(error.serverId, error.connect, error.message, callId)
  }
  switch (error._tag) {
    case "StateRefused":
      return stateRefusedToWire(error, callId)
    case "InputRequired":
      // A host with a channel for the server's requests is asked within the call; this one has none.
      return new WireError(
        -32603,
        "Interlock: the server needs input from the host, which this connection cannot carry"
      )
    case "ProtocolError":
      // The server's own error data is not passed on (but the names of the capabilities it needs);
      // the host gets the ids of the audit row instead.
      return new WireError(hostErrorCode(error.code, era), error.detail, {
        ...callMeta(error, callId),
        ...requiredData(error, era)
      })
    case "AuditError":
      return new WireError(-32603, "the audit store could not record this call, so its answer is withheld")
    default:
      return {
        // A principal that has not connected the server is shown where it connects (its link, for it alone).
        content: [{ type: "text", text: `Interlock: ${error.message}${connectHint(error)}` }],
        isError: true,
        _meta: { [ERROR_META]: error._tag, ...callMeta(error, callId) }
      }
  }
}
