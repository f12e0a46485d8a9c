/**
 * The check command's work, apart from its flags: validate a config and print its servers, rules,
 * listen address, audit store and shared state, then (unless told not to) start the servers and list their
 * exposed tools. It imports no effect/cli parser, so that Cli.ts can run the plain
 * `check [--config F] [--no-connect]` directly.
 */
import { Console, Effect, type Option } from "effect"
import { describeUrl } from "../audit/PostgresUrl.ts"
import type { RuleConfig } from "../config/Config.ts"
import { shownPath } from "../config/ConfigLoader.ts"
import { type AuditPlan, type Plan, type ServerPlan, sharedServerIds } from "../config/Plan.ts"
import { formatTable } from "../config/TextTable.ts"
import { checkCedarPolicy, withListingGateway } from "./CedarCheck.ts"
import { checkInterceptors, describeInterceptors, describeServedHooks } from "./InterceptorCheck.ts"
import { npxWarnings } from "./NpxCheck.ts"
import { checkOAuthDiscovery } from "./OAuthCheck.ts"
import { planFrom, progress } from "./Shared.ts"

/** Which audit store a plan uses, without the Postgres password. */
export const describeAudit = (audit: AuditPlan): string =>
  audit.postgres !== undefined
    ? `Postgres ${describeUrl(audit.postgres)}`
    : audit.path === undefined
    ? "off"
    : `SQLite ${audit.path}`

const indent = (lines: ReadonlyArray<string>): ReadonlyArray<string> => lines.map((line) => `  ${line}`)

/**
 * How the gateway authenticates toward a server, in a few words (never a secret): its forms and whose token endpoint.
 */
export const describeAuth = (server: ServerPlan): string => {
  const { clientCredentials, exchange, identity, oauth, perPrincipal } = server.auth
  const forms = [
    clientCredentials === undefined ? undefined : `clientCredentials at ${new URL(clientCredentials.tokenUrl).host}`,
    exchange === undefined ? undefined : `exchange at ${new URL(exchange.tokenUrl).host}`,
    oauth === undefined
      ? undefined
      : `oauth (each principal connects at /connect/<server>${
        oauth.clientId === undefined ? "" : `, client ${oauth.clientId}`
      })`,
    perPrincipal.length === 0 ? undefined : `perPrincipal (${perPrincipal.length})`,
    identity === undefined ? undefined : `identity for ${identity.audience}`
  ].filter((form) => form !== undefined)
  if (server._tag === "http" && server.token !== undefined) forms.unshift("static token")
  const sessions = server.sessions === "per-principal" ? ", per-principal sessions" : ""
  return forms.length === 0 ? "" : `auth: ${forms.join(" + ")}${sessions}`
}

const ruleMatch = (
  rule: RuleConfig
): string => (typeof rule.match === "string" ? rule.match : `${rule.match.server}/${rule.match.regex}`)

/**
 * The plan described in lines: servers and rules as aligned tables, the listen address, the audit store, the shared
 * state.
 */
export const describePlan = (plan: Plan): ReadonlyArray<string> => {
  const lines = [`Config OK: ${plan.loaded.file === undefined ? "(inline)" : shownPath(plan.loaded.file)}`, "Servers:"]
  const authed = [...plan.servers.values()].some((server) => describeAuth(server) !== "")
  lines.push(
    ...indent(
      formatTable([...plan.servers].map(([name, server]) => {
        const row = server._tag === "stdio"
          ? [name, "stdio", [server.command, ...server.args].join(" ")]
          : [name, "http", server.url]
        return authed ? [...row, describeAuth(server)] : row
      }))
    )
  )
  const rules = plan.loaded.config.policy?.rules ?? []
  const cedar = plan.loaded.config.policy?.cedar
  if (cedar !== undefined) lines.push(`Policy: Cedar ${cedar}`)
  else {lines.push(
      `Policy (default ${plan.loaded.config.policy?.default ?? "deny"}, ${rules.length} rule${
        rules.length === 1 ? "" : "s"
      }):`
    )}
  if (rules.length > 0) {
    const rows = rules.map((rule, index) => {
      const extras = [
        rule.on === undefined || rule.on === "tools" ? undefined : `on ${rule.on}`,
        rule.when === undefined ? undefined : `when args ${Object.keys(rule.when.args).join(", ")}`,
        rule.principals === undefined ? undefined : `principals ${rule.principals.join(", ")}`,
        plan.loaded.predicates.has(index) ? "when (code)" : undefined,
        rule.reason
      ].filter((x) => x !== undefined)
      return [rule.id ?? `rules[${index}]`, rule.decision, ruleMatch(rule), extras.join("; ")]
    })
    lines.push(...indent(formatTable([["RULE", "DECISION", "MATCH", "CONDITIONS / REASON"], ...rows])))
  }
  const tokens = plan.listen.principals.size === 0 ? [] : [`${plan.listen.principals.size} token(s)`]
  const auth = [...tokens, ...(plan.listen.oauth === undefined ? [] : [`OAuth from ${plan.listen.oauth.issuer}`])]
  lines.push(
    `Listen: http://${plan.listen.host}:${plan.listen.port}/mcp (${auth.length === 0 ? "no token" : auth.join(", ")})`
  )
  lines.push(...describeInterceptors(plan))
  lines.push(`Audit: ${describeAudit(plan.audit)} (capture ${plan.audit.capture})`)
  if (plan.statePostgres !== undefined) {
    lines.push(`State: shared by replicas in Postgres ${describeUrl(plan.statePostgres)}`)
  }
  return lines
}

const printExposed = (names: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    yield* Console.log(`Exposed tools (${names.length}):`)
    for (const name of names) yield* Console.log(`  ${name}`)
  })

// The gateway (MCP hub and SDK client) is loaded only when there are servers to connect.
const listExposed = (plan: Plan) =>
  plan.servers.size === 0 ?
    printExposed([]) :
    Effect.scoped(withListingGateway(plan, (gateway) =>
      Effect.gen(function*() {
        // A per-principal server opens its sessions for each principal: a check, which is no principal, has none.
        const shared = sharedServerIds(plan)
        for (const serverId of shared) {
          yield* progress(`  connecting ${serverId}...`)
          yield* gateway.hub.connect(serverId)
        }
        // Which protocol era each server got (2026-07-28 when it offers server/discover, else its 2025 revision).
        yield* Console.log("Server protocols:")
        for (const serverId of gateway.hub.serverIds) {
          const era = shared.includes(serverId)
            ? gateway.hub.status(serverId)?.era ?? "unknown"
            : "per-principal: connects at each principal's first call, not listed here"
          yield* Console.log(`  ${serverId}  ${era}`)
        }
        const tools = (yield* Effect.forEach(shared, (id) => gateway.deps.calls.listTools(id))).flat()
        yield* printExposed(tools.map((tool) => gateway.deps.namespace.expose(tool.serverId, tool.name)).sort())
        if (plan.loaded.config.policy?.cedar !== undefined) {
          const listed = yield* Effect.forEach(shared, (id) => gateway.hub.transport.listTools(id))
          yield* checkCedarPolicy(plan, listed.flat())
        }
      })))

/**
 * Checks the config named by --config (or found), listing the exposed tools when `connect`; fails with what is wrong.
 */
export const checkConfig = (config: Option.Option<string>, connect: boolean) =>
  Effect.gen(function*() {
    const plan = yield* planFrom(config)
    for (const line of describePlan(plan)) yield* Console.log(line)
    for (const line of yield* describeServedHooks(plan)) yield* Console.log(line)
    for (const line of npxWarnings(plan)) yield* Console.error(line)
    // A Cedar policy that does not parse is reported (file:line:column) before any server starts.
    yield* checkCedarPolicy(plan, undefined)
    if (connect) yield* checkInterceptors(plan)
    if (connect) yield* checkOAuthDiscovery(plan)
    if (connect) yield* listExposed(plan)
  })
