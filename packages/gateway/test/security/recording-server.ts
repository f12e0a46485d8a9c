#!/usr/bin/env node
/**
 * An MCP stdio server for the approval tests that appends every tool call it receives (name and
 * arguments, one JSON line) to the file named by RECORD_FILE, so that a test can prove a call
 * never reached it. One tool, `transfer_funds`.
 */
import { McpServer } from "@modelcontextprotocol/server"
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio"
import { Schema } from "effect"
import { appendFileSync } from "node:fs"

const file = process.env.RECORD_FILE
if (file === undefined) throw new Error("RECORD_FILE is not set")

const server = new McpServer({ name: "recording-fixture", version: "1.0.0" })

server.registerTool(
  "transfer_funds",
  {
    description: "Pretends to move money",
    inputSchema: Schema.toStandardJSONSchemaV1(
      Schema.toStandardSchemaV1(Schema.Struct({ to: Schema.String, memo: Schema.String }))
    )
  },
  async (args) => {
    appendFileSync(file, `${JSON.stringify({ name: "transfer_funds", args })}\n`)
    return { content: [{ type: "text", text: `sent to ${args.to}` }] }
  }
)

await server.connect(new StdioServerTransport())
