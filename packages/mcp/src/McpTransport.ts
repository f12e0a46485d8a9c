/**
 * Single-server transport Layers: one MCP server as core's ToolTransport. Each is a hub of one
 * server, so it has the same connection lifetime, failure handling and fingerprint pinning.
 */
import type { ConfigError, ToolTransport, TransportFailure } from "@interlock/core"
import type { Layer } from "effect"
import type { HttpOptions, MemoryOptions, ServerConfig, StdioOptions } from "./HubConfig.ts"
import { McpHub } from "./McpHub.ts"

/** Per-server settings besides the endpoint. */
export type Settings = Omit<ServerConfig, "stdio" | "http" | "memory">

/** The Layer of a single-server hub. */
export type SingleLayer = Layer.Layer<McpHub | ToolTransport, ConfigError | TransportFailure>

const single =
  <O>(kind: "stdio" | "http" | "memory") => (serverId: string, options: O, settings: Settings = {}): SingleLayer =>
    McpHub.layer({ servers: { [serverId]: { ...settings, [kind]: options } } })

/** A server spawned as a child process, speaking MCP over stdio. */
export const stdio: (serverId: string, options: StdioOptions, settings?: Settings) => SingleLayer = single("stdio")

/** A server reached over Streamable HTTP. */
export const http: (serverId: string, options: HttpOptions, settings?: Settings) => SingleLayer = single("http")

/** An SDK McpServer in this process, over the SDK's InMemoryTransport. */
export const memory: (serverId: string, options: MemoryOptions, settings?: Settings) => SingleLayer = single("memory")
