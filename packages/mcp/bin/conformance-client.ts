#!/usr/bin/env node
/**
 * The MCP conformance client, built on @interlock/mcp with hooks active:
 *
 *   npm run --silent conformance-client -- <server-url>
 *
 * The harness (`npx @modelcontextprotocol/conformance client --command ...`) appends the server URL
 * and names the scenario in MCP_CONFORMANCE_SCENARIO. Every operation goes through the governed
 * program (ToolCalls): an audit hook sees each call, a toolsListed hook sees each listing, and the
 * policy allows. Elicitation is answered with the schema's defaults (SEP-1034).
 */
import { Interlock, Policy, ToolCalls, Verdict } from "@interlock/core"
import { Effect, Layer } from "effect"
import { Elicitation, McpHub } from "../src/index.ts"
import { conformanceAuth } from "./conformance-auth.ts"

const url = process.argv[process.argv.length - 1]
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "initialize"

if (url === undefined || !/^https?:\/\//.test(url)) {
  process.stderr.write("usage: conformance-client <server-url> (scenario in MCP_CONFORMANCE_SCENARIO)\n")
  process.exit(2)
}

/** Arguments for the tools the scenarios offer; any other tool is called with {}. */
const ARGUMENTS: Record<string, Record<string, number>> = { add_numbers: { a: 2, b: 3 } }

const seen = { calls: 0, listings: 0 }

const governed = Interlock.layer({
  client: "interlock-conformance",
  hooks: {
    preToolCall: [{ match: "*", id: "audit", kind: "observe", run: () => (seen.calls++, Verdict.continue) }],
    toolsListed: [{ match: "*", id: "listing", kind: "observe", run: () => (seen.listings++, Verdict.continue) }]
  },
  policy: Policy.rules({ rules: [{ match: "*", decision: "allow" }] })
}).pipe(
  Layer.provideMerge(McpHub.layer({
    clientInfo: { name: "interlock-conformance", version: "0.1.0" },
    servers: {
      conformance: {
        http: { url, ...(scenario.startsWith("auth/") ? conformanceAuth(url, scenario) : {}) },
        connect: "eager"
      }
    }
  })),
  Layer.provide(Elicitation.acceptDefaults)
)

const program = Effect.gen(function*() {
  const calls = yield* ToolCalls
  const tools = yield* calls.listTools("conformance")
  if (scenario !== "initialize") {
    for (const tool of tools) {
      const result = yield* calls.callTool({ serverId: "conformance", name: tool.name, args: ARGUMENTS[tool.name] ?? {} })
      process.stdout.write(`${tool.name}: ${result.isError === true ? "error result" : "ok"} (${result.receipt?.outcome})\n`)
    }
  }
  process.stdout.write(`scenario ${scenario}: ${tools.length} tools listed, ${seen.calls} calls audited, ${seen.listings} listings seen\n`)
})

const exit = await Effect.runPromiseExit(program.pipe(Effect.provide(governed)))
if (exit._tag === "Failure") {
  const error = exit.cause.reasons.find((reason) => reason._tag === "Fail")
  process.stderr.write(`conformance client failed: ${error?._tag === "Fail" ? String((error.error as Error).message) : "defect"}\n`)
  process.exit(1)
}
process.exit(0)
