/**
 * Which era a `/mcp` POST belongs to, decided as SDK 2's own handler decides it (classifyInboundRequest): a request
 * whose `_meta` claims a protocol version, or whose MCP-Protocol-Version header names 2026-07-28 or later, is modern
 * (or a modern request to refuse: a malformed envelope, a header that disagrees with the body, an unknown version);
 * everything else, initialize and a session's requests included, is legacy.
 */
import { classifyInboundRequest, PROTOCOL_VERSION_META_KEY } from "@modelcontextprotocol/server"
import type { IncomingHttpHeaders } from "node:http"

/** The first protocol revision of the modern era. */
export const FIRST_MODERN_REVISION = "2026-07-28"

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const header = (value: string | Array<string> | undefined): string | undefined =>
  Array.isArray(value) ? value.join(", ") : value

/** Whether the body or the headers claim the modern era at all. */
const claimsModern = (headers: IncomingHttpHeaders, body: unknown): boolean => {
  const version = header(headers["mcp-protocol-version"])?.trim()
  if (version !== undefined && version >= FIRST_MODERN_REVISION) return true
  if (!isObject(body) || !isObject(body.params)) return false
  const meta = body.params._meta
  return isObject(meta) && PROTOCOL_VERSION_META_KEY in meta
}

/**
 * Whether a parsed `/mcp` POST goes to the modern front (to be served or refused there). A request that claims nothing
 * is legacy without being classified at all, so the 2025 path costs a lookup.
 */
export const isModernRequest = (headers: IncomingHttpHeaders, body: unknown): boolean => {
  if (!claimsModern(headers, body)) return false
  const mcpMethodHeader = header(headers["mcp-method"])
  const mcpNameHeader = header(headers["mcp-name"])
  const protocolVersionHeader = header(headers["mcp-protocol-version"])
  const outcome = classifyInboundRequest({
    httpMethod: "POST",
    body,
    ...(protocolVersionHeader === undefined ? {} : { protocolVersionHeader }),
    ...(mcpMethodHeader === undefined ? {} : { mcpMethodHeader }),
    ...(mcpNameHeader === undefined ? {} : { mcpNameHeader })
  })
  return outcome.kind !== "legacy"
}
