/** `interlock check --config F`: validate a config and print its servers, exposed tools and rules. */
import { Console, Effect, Layer, Option } from "effect"
import { Command, Flag } from "effect/cli"
import { Gateway } from "../Gateway.ts"
import { checkClaudeSettings } from "./ClaudeCheck.ts"
import * as PgAuditStore from "../PgAuditStore.ts"
import type { AuditPlan, Plan } from "../Plan.ts"
import { planFrom, progress, userFacing } from "./Shared.ts"

/** Which audit store a plan uses, without the Postgres password. */
export const describeAudit = (audit: AuditPlan): string =>
  audit.postgres !== undefined ? `Postgres ${PgAuditStore.describeUrl(audit.postgres)}` : audit.path === undefined ? "off" : `SQLite ${audit.path}`

/** The plan described in lines: servers, rules, listen address. */
export const describePlan = (plan: Plan): ReadonlyArray<string> => {
  const lines = [`Config OK: ${plan.loaded.file ?? "(inline)"}`, "Servers:"]
  for (const [name, server] of plan.servers) {
    lines.push(`  ${name.padEnd(16)} ${server._tag === "stdio" ? `stdio: ${[server.command, ...server.args].join(" ")}` : `http: ${server.url}`}`)
  }
  const rules = plan.loaded.config.policy?.rules ?? []
  lines.push(`Policy (default ${plan.loaded.config.policy?.default ?? "deny"}, ${rules.length} rule${rules.length === 1 ? "" : "s"}):`)
  rules.forEach((rule, index) => {
    const match = typeof rule.match === "string" ? rule.match : `${rule.match.server}/${rule.match.regex}`
    const extras = [
      rule.when === undefined ? undefined : `when args ${Object.keys(rule.when.args).join(", ")}`,
      rule.principals === undefined ? undefined : `principals ${rule.principals.join(", ")}`,
      plan.loaded.predicates.has(index) ? "when (code)" : undefined,
      rule.reason
    ].filter((x) => x !== undefined)
    lines.push(`  ${(rule.id ?? `rules[${index}]`).padEnd(16)} ${rule.decision.padEnd(5)} ${match}${extras.length === 0 ? "" : `  (${extras.join("; ")})`}`)
  })
  lines.push(`Listen: http://${plan.listen.host}:${plan.listen.port}/mcp (${plan.listen.principals.size === 0 ? "no token" : `${plan.listen.principals.size} token(s)`})`)
  lines.push(`Audit: ${describeAudit(plan.audit)} (capture ${plan.audit.capture})`)
  return lines
}

const listExposed = (plan: Plan) =>
  Effect.gen(function*() {
    const gateway = yield* Gateway
    for (const serverId of gateway.hub.serverIds) {
      yield* progress(`  connecting ${serverId}...`)
      yield* gateway.hub.connect(serverId)
    }
    const tools = yield* gateway.deps.calls.listTools()
    const names = tools.map((tool) => gateway.deps.namespace.expose(tool.serverId, tool.name)).sort()
    yield* Console.log(`Exposed tools (${names.length}):`)
    for (const name of names) yield* Console.log(`  ${name}`)
  }).pipe(Effect.provide(Gateway.layer({ ...plan, audit: { ...plan.audit, path: undefined, postgres: undefined } }).pipe(Layer.orDie)))

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
