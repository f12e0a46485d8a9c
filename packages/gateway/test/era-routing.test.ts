/**
 * Which era a `/mcp` POST goes to (EraRouting.ts): the same answer as SDK 2's own classification
 * for every request it classifies as either era, though a request that claims nothing skips it.
 */
import { assert, describe, it } from "@effect/vitest"
import { classifyInboundRequest, PROTOCOL_VERSION_META_KEY } from "@modelcontextprotocol/server"
import { Effect, Schema } from "effect"
import { isModernRequest } from "../src/front/http/mcp/EraRouting.ts"
import { envelope } from "./modern-wire.ts"

const Version = Schema.Literals([
  "2024-11-05",
  "2025-06-18",
  "2025-11-25",
  "2026-07-28",
  "2099-01-01",
  " 2026-07-28 ",
  "junk"
])
const Method = Schema.Literals([
  "initialize",
  "tools/call",
  "tools/list",
  "server/discover",
  "subscriptions/listen",
  "notifications/initialized"
])
const Meta = Schema.Union([
  Schema.Literal("none"),
  Schema.Literal("envelope"),
  Schema.Struct({ claim: Schema.Union([Version, Schema.Int, Schema.Null]), extra: Schema.Json })
])

/** A request built from the drawn parts: the method, an id or none, `_meta`, and the three headers. */
const request = (method: string, id: boolean, meta: Schema.Schema.Type<typeof Meta>, name: string | undefined) => {
  const _meta = meta === "none"
    ? undefined
    : meta === "envelope"
    ? envelope()
    : { [PROTOCOL_VERSION_META_KEY]: meta.claim, extra: meta.extra }
  return {
    jsonrpc: "2.0",
    ...(id ? { id: 1 } : {}),
    method,
    params: { ...(name === undefined ? {} : { name }), ...(_meta === undefined ? {} : { _meta }) }
  }
}

describe("era routing", () => {
  it.effect.prop("agrees with the SDK's classification whenever it names an era", [
    Method,
    Schema.Boolean,
    Meta,
    Schema.UndefinedOr(Version),
    Schema.UndefinedOr(Method),
    Schema.UndefinedOr(Schema.Literals(["echo", "other"]))
  ], ([method, id, meta, version, methodHeader, name]) =>
    Effect.sync(() => {
      const body = request(method, id, meta, name)
      const headers = {
        ...(version === undefined ? {} : { "mcp-protocol-version": version }),
        ...(methodHeader === undefined ? {} : { "mcp-method": methodHeader }),
        ...(name === undefined ? {} : { "mcp-name": name })
      }
      const outcome = classifyInboundRequest({
        httpMethod: "POST",
        body,
        ...(version === undefined ? {} : { protocolVersionHeader: version }),
        ...(methodHeader === undefined ? {} : { mcpMethodHeader: methodHeader }),
        ...(name === undefined ? {} : { mcpNameHeader: name })
      })
      const modern = isModernRequest(headers, body)
      if (outcome.kind === "modern") assert.isTrue(modern, JSON.stringify({ body, headers }))
      if (outcome.kind === "legacy") assert.isFalse(modern, JSON.stringify({ body, headers }))
      // A request that claims nothing at all always stays on the 2025 path, whatever it is.
      if (meta === "none" && (version === undefined || version.trim() < "2026-07-28")) assert.isFalse(modern)
    }))

  it.effect("initialize, a session's request and a batch are 2025; an envelope or a modern header is 2026-07-28", () =>
    Effect.sync(() => {
      assert.isFalse(isModernRequest({}, request("initialize", true, "none", undefined)))
      assert.isFalse(
        isModernRequest(
          { "mcp-session-id": "s", "mcp-protocol-version": "2025-11-25" },
          request("tools/call", true, "none", "echo")
        )
      )
      assert.isFalse(isModernRequest({}, [request("tools/list", true, "envelope", undefined)]))
      assert.isTrue(
        isModernRequest(
          { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" },
          request("tools/list", true, "envelope", undefined)
        )
      )
      assert.isTrue(
        isModernRequest({ "mcp-protocol-version": "2026-07-28" }, request("tools/list", true, "none", undefined)),
        "a modern header without an envelope is refused there"
      )
      assert.isTrue(
        isModernRequest(
          { "mcp-protocol-version": "2025-11-25", "mcp-method": "tools/list" },
          request("tools/list", true, "envelope", undefined)
        ),
        "a header that disagrees is refused there"
      )
    }))
})
