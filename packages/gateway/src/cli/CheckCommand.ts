/** `interlock check --config F`: validate a config and print its servers, exposed tools and rules. */
import { Console, Effect, Layer, Option } from "effect"
import { Command, Flag } from "effect/cli"
import type { RuleConfig } from "../Config.ts"
import { checkClaudeSettings } from "./ClaudeCheck.ts"
import type { AuditPlan, Plan } from "../Plan.ts"
import { describeUrl } from "../PostgresUrl.ts"
import { formatTable } from "../TextTable.ts"
import { planFrom, progress, userFacing } from "./Shared.ts"

/** Which audit store a plan uses, without the Postgres password. */
export const describeAudit = (audit: AuditPlan): string =>
  audit.postgres !== undefined ? `Postgres ${describeUrl(audit.postgres)}` : audit.path === undefined ? "off" : `SQLite ${audit.path}`

const indent = (lines: ReadonlyArray<string>): ReadonlyArray<string> => lines.map((line) => `  ${line}`)

const ruleMatch = (rule: RuleConfig): string => (typeof rule.match === "string" ? rule.match : `${rule.match.server}/${rule.match.regex}`)

/** The plan described in lines: servers and rules as aligned tables, the listen address, the audit store. */
export const describePlan = (plan: Plan): ReadonlyArray<string> => {
  const lines = [`Config OK: ${plan.loaded.file ?? "(inline)"}`, "Servers:"]
  lines.push(...indent(formatTable([...plan.servers].map(([name, server]) =>
    server._tag === "stdio" ? [name, "stdio", [server.command, ...server.args].join(" ")] : [name, "http", server.url]
  ))))
  const rules = plan.loaded.config.policy?.rules ?? []
  lines.push(`Policy (default ${plan.loaded.config.policy?.default ?? "deny"}, ${rules.length} rule${rules.length === 1 ? "" : "s"}):`)
  if (rules.length > 0) {
    const rows = rules.map((rule, index) => {
      const extras = [
        rule.when === undefined ? undefined : `when args ${Object.keys(rule.when.args).join(", ")}`,
        rule.principals === undefined ? undefined : `principals ${rule.principals.join(", ")}`,
        plan.loaded.predicates.has(index) ? "when (code)" : undefined,
        rule.reason
      ].filter((x) => x !== undefined)
      return [rule.id ?? `rules[${index}]`, rule.decision, ruleMatch(rule), extras.join("; ")]
    })
    lines.push(...indent(formatTable([["RULE", "DECISION", "MATCH", "CONDITIONS / REASON"], ...rows])))
  }
  lines.push(`Listen: http://${plan.listen.host}:${plan.listen.port}/mcp (${plan.listen.principals.size === 0 ? "no token" : `${plan.listen.principals.size} token(s)`})`)
  lines.push(`Audit: ${describeAudit(plan.audit)} (capture ${plan.audit.capture})`)
  return lines
}

const printExposed = (names: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    yield* Console.log(`Exposed tools (${names.length}):`)
    for (const name of names) yield* Console.log(`  ${name}`)
  })

// The gateway (MCP hub and SDK client) is loaded only when there are servers to connect.
const listExposed = (plan: Plan) =>
  plan.servers.size === 0 ? printExposed([]) : Effect.flatMap(Effect.promise(() => import("../Gateway.ts")), ({ Gateway }) =>
    Effect.gen(function*() {
      const gateway = yield* Gateway
      for (const serverId of gateway.hub.serverIds) {
        yield* progress(`  connecting ${serverId}...`)
        yield* gateway.hub.connect(serverId)
      }
      const tools = yield* gateway.deps.calls.listTools()
      yield* printExposed(tools.map((tool) => gateway.deps.namespace.expose(tool.serverId, tool.name)).sort())
    }).pipe(Effect.provide(Gateway.layer({ ...plan, audit: { ...plan.audit, path: undefined, postgres: undefined } }).pipe(Layer.orDie))))

/** The check command. */
export const checkCommand = Command.make(
  "check",
  {
    config: Flag.String("config").pipe(Flag.withAlias("c"), Flag.withDescription("The config file to check"), Flag.optional),
    connect: Flag.Boolean("connect").pipe(Flag.withDescription("Start the servers to list their exposed tools (--no-connect to skip)"), Flag.withDefault(true)),
    claude: Flag.String("claude").pipe(Flag.withDescription("Check a Claude Code settings.json for bridge hooks that could fail open, instead of a config"), Flag.optional)
  },
  ({ config, connect, claude }) =>
    userFacing(Effect.gen(function*() {
      if (Option.isSome(claude)) return yield* checkClaudeSettings(claude.value)
      const plan = yield* planFrom(config)
      for (const line of describePlan(plan)) yield* Console.log(line)
      if (connect) yield* listExposed(plan)
    }))
).pipe(Command.withDescription("Validate a config and print its servers, exposed tools and rules; exit 1 on an error"))
