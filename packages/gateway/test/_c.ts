import { Client } from "@modelcontextprotocol/client"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
const c = new Client({ name: "x", version: "1" }, { capabilities: {}, versionNegotiation: { mode: { pin: "2026-07-28" } } } as never)
await c.connect(new StreamableHTTPClientTransport(new URL("http://localhost:34285/mcp")))
const r = await c.callTool({ name: "slow_compute", arguments: { seconds: 1 }, _meta: { "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } } } } as never, { allowInputRequired: true } as never)
console.log(JSON.stringify(r))
