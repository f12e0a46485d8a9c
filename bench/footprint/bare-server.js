/**
 * The smallest stdio MCP server: plain JavaScript, no SDK and no TypeScript to strip, so that its
 * start is a bare `node` process's. It answers initialize (any revision the client asks), tools/list
 * with one tool, ping, and every other request with "method not found".
 */
let pending = ""

/** Writes one JSON-RPC message as a line. */
const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`)

/** The result of a request this server answers, or undefined for any other. */
const answer = (request) => {
  switch (request.method) {
    case "initialize":
      return {
        protocolVersion: request.params?.protocolVersion ?? "2025-11-25",
        capabilities: { tools: {} },
        serverInfo: { name: "bare", version: "1.0.0" }
      }
    case "tools/list":
      return {
        tools: [{
          name: "echo",
          description: "Echoes its text",
          inputSchema: { type: "object", properties: { text: { type: "string" } } }
        }]
      }
    case "ping":
      return {}
    default:
      return undefined
  }
}

process.stdin.setEncoding("utf8")
process.stdin.on("data", (chunk) => {
  pending += chunk
  for (let end = pending.indexOf("\n"); end >= 0; end = pending.indexOf("\n")) {
    const line = pending.slice(0, end).trim()
    pending = pending.slice(end + 1)
    if (line === "") continue
    const request = JSON.parse(line)
    if (request.id === undefined || request.method === undefined) continue
    const result = answer(request)
    send(
      result === undefined
        ? { id: request.id, error: { code: -32601, message: `no method ${request.method}` } }
        : { id: request.id, result }
    )
  }
})
