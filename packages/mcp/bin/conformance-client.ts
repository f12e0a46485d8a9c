#!/usr/bin/env node
/**
 * The MCP conformance client, on @interlock/mcp with hooks active (`npm run --silent conformance-client -- <url>`;
 * the harness names the scenario in MCP_CONFORMANCE_SCENARIO). Every operation goes through the governed program
 * (an audit hook, a toolsListed hook, a policy that allows); elicitation gets the schema's defaults (SEP-1034). It
 * lists the tools, calls those MCP_CONFORMANCE_CONTEXT names (or all), reads each resource and gets each prompt.
 */
import { Interlock, type JsonObject, Policy, type Tool, ToolCalls, Verdict } from "@interlock/core"
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
const ARGUMENTS: Record<string, JsonObject> = { add_numbers: { a: 2, b: 3 } }

/**
 * Tools whose arguments are made from the listing: the echo tool takes the schema the client observed for another one.
 */
const FROM_LISTING: Record<string, (tools: ReadonlyArray<Tool>) => JsonObject> = {
  json_schema_echo: (tools) => ({
    schema: tools.find((tool) => tool.name === "json_schema_2020_12_tool")?.inputSchema ?? {}
  })
}

/** Scenarios that only list: their server answers nothing else (`json-schema-ref-no-deref` has no tools/call). */
const LIST_ONLY = new Set(["initialize", "json-schema-ref-no-deref"])

/** The tool calls a scenario asks for in MCP_CONFORMANCE_CONTEXT (`toolCalls`), if any. */
const plannedCalls = (
  raw: string | undefined
): ReadonlyArray<{ readonly name: string; readonly arguments: JsonObject }> | undefined => {
  const calls: unknown = raw === undefined ? undefined : (JSON.parse(raw) as { toolCalls?: unknown }).toolCalls
  return Array.isArray(calls) ? calls : undefined
}

const planned = plannedCalls(process.env.MCP_CONFORMANCE_CONTEXT)

const seen = { calls: 0, listings: 0 }
const observe = (what: keyof typeof seen) => {
  seen[what]++
  return Verdict.continue
}

const governed = Interlock.layer({
  client: "interlock-conformance",
  hooks: {
    preToolCall: [{ match: "*", id: "audit", kind: "observe", run: () => observe("calls") }],
    toolsListed: [{ match: "*", id: "listing", kind: "observe", run: () => observe("listings") }]
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
  const { features } = yield* McpHub
  const tools = yield* calls.listTools("conformance")
  if (!LIST_ONLY.has(scenario)) {
    const plan = planned ??
      tools.map((tool) => ({
        name: tool.name,
        arguments: FROM_LISTING[tool.name]?.(tools) ?? ARGUMENTS[tool.name] ?? {}
      }))
    for (const call of plan) {
      const result = yield* calls.callTool({ serverId: "conformance", name: call.name, args: call.arguments })
      process.stdout.write(
        `${call.name}: ${result.isError === true ? "error result" : "ok"} (${result.receipt?.outcome})\n`
      )
    }
    // What the server offers besides tools is read once each, through the same governed program.
    for (const resource of yield* features.listResources("conformance")) {
      yield* calls.readResource("conformance", resource.uri)
    }
    for (const prompt of yield* features.listPrompts("conformance")) {
      yield* calls.getPrompt("conformance", prompt.name, {})
    }
  }
  process.stdout.write(
    `scenario ${scenario}: ${tools.length} tools listed, ${seen.calls} calls audited, ${seen.listings} listings seen\n`
  )
})

const exit = await Effect.runPromiseExit(program.pipe(Effect.provide(governed)))
if (exit._tag === "Failure") {
  const error = exit.cause.reasons.find((reason) => reason._tag === "Fail")
  process.stderr.write(
    `conformance client failed: ${error?._tag === "Fail" ? String((error.error as Error).message) : "defect"}\n`
  )
  process.exit(1)
}
process.exit(0)
