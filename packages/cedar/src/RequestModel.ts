/**
 * The Cedar request model (see the README): the principal (roles as `Interlock::Role` parents, "anonymous" without
 * one), the action, the tool, resource or prompt by canonical name, and the context (`args`, `client`, `era`).
 * A request on names with lookalike letters is also made on their skeletons, so forbids see them. Pure.
 */
import type { CedarValueJson, Context, TypeAndId } from "@cedar-policy/cedar-wasm/nodejs"
import {
  canonicalName,
  effectiveHints,
  type HookContext,
  type JsonObject,
  skeletonName,
  type Tool
} from "@interlock/core"

/** An entity as this model builds it (Cedar's EntityJson, with plain uids). */
export interface Entity {
  readonly uid: TypeAndId
  readonly attrs: Record<string, CedarValueJson>
  readonly parents: Array<TypeAndId>
}

/** The namespace of every Interlock entity type and action. */
export const NAMESPACE = "Interlock"

/** The four actions. */
export const ACTIONS = ["callTool", "listTools", "readResource", "getPrompt"] as const

/** One of the four actions. */
export type CedarAction = typeof ACTIONS[number]

/** The principal of a call with none. */
export const ANONYMOUS = "anonymous"

const PRINCIPAL = `${NAMESPACE}::Principal`
const ROLE = `${NAMESPACE}::Role`
const ACTION = `${NAMESPACE}::Action`
/** The entity type of tools. */
export const TOOL = `${NAMESPACE}::Tool`
/** The entity type of resources. */
export const RESOURCE = `${NAMESPACE}::Resource`
/** The entity type of prompts. */
export const PROMPT = `${NAMESPACE}::Prompt`

/** A tool's or prompt's entity id: the canonical (loose) names of its server and itself. */
export const canonicalId = (serverId: string, name: string): string =>
  `${canonicalName(serverId)}/${canonicalName(name)}`

/** A server and a name, as a request reads them. */
export interface Names {
  readonly serverId: string
  readonly name: string
}

/** The names' confusable skeletons, or undefined when neither has lookalike letters. */
export const lookalikeNames = (serverId: string, name: string): Names | undefined => {
  const server = skeletonName(serverId)
  const skeleton = skeletonName(name)
  return server === canonicalName(serverId) && skeleton === canonicalName(name)
    ? undefined
    : { serverId: server, name: skeleton }
}

/** A resource read's server skeleton (its URI is no name: it stays), or undefined when it has no lookalike letters. */
export const lookalikeServer = (serverId: string, uri: string): Names | undefined => {
  const server = skeletonName(serverId)
  return server === canonicalName(serverId) ? undefined : { serverId: server, name: uri }
}

/** The key of an entity uid in slice indexes: `Type::"id"` as JSON. */
export const uidKey = (uid: TypeAndId): string => `${uid.type}\u0000${uid.id}`

/** One request, ready for Cedar (less the policies). */
export interface CedarRequest {
  readonly principal: TypeAndId
  readonly action: { readonly type: string; readonly id: CedarAction }
  readonly resource: TypeAndId
  readonly context: Context
  readonly entities: Array<Entity>
}

const actionUid = (action: CedarAction): CedarRequest["action"] => ({ type: ACTION, id: action })

const principalEntity = (ctx: HookContext): Entity => ({
  uid: { type: PRINCIPAL, id: ctx.principal?.id ?? ANONYMOUS },
  attrs: {},
  parents: (ctx.principal?.roles ?? []).map((role) => ({ type: ROLE, id: role }))
})

/** The Tool entity: canonical server and name, and the MCP hints with MCP's defaults. */
export const toolEntity = (serverId: string, name: string, tool: Tool | undefined): Entity => ({
  uid: { type: TOOL, id: canonicalId(serverId, name) },
  attrs: { server: canonicalName(serverId), name: canonicalName(name), ...effectiveHints(tool) },
  parents: []
})

/**
 * A request on `resource`. A principal without roles is left out of the entities: Cedar gives an
 * absent entity no attributes and no parents, as the entity would have, and parsing it costs.
 */
const request = (ctx: HookContext, action: CedarAction, resource: Entity, context: Context): CedarRequest => {
  const principal = principalEntity(ctx)
  const entities = principal.parents.length === 0 ? [resource] : [principal, resource]
  return { principal: principal.uid, action: actionUid(action), resource: resource.uid, context, entities }
}

const baseContext = (ctx: HookContext): Context =>
  ctx.era === undefined ? { client: ctx.client } : { client: ctx.client, era: ctx.era }

/** Keys Cedar's JSON reads as escapes (an entity, an extension value): arguments may not use them. */
const ESCAPES = new Set(["__entity", "__extn", "__expr"])
const MAX_DEPTH = 64
const UNREPRESENTABLE = Symbol("unrepresentable")

const toCedar = (value: unknown, depth: number): CedarValueJson | typeof UNREPRESENTABLE => {
  if (typeof value === "string" || typeof value === "boolean") return value
  // Cedar's only number is a 64-bit integer: a fraction or an unsafe integer cannot be given.
  if (typeof value === "number") return Number.isSafeInteger(value) ? value : UNREPRESENTABLE
  if (depth >= MAX_DEPTH || typeof value !== "object" || value === null) return UNREPRESENTABLE
  if (Array.isArray(value)) {
    const set: Array<CedarValueJson> = []
    for (const element of value) {
      const converted = toCedar(element, depth + 1)
      if (converted === UNREPRESENTABLE) return UNREPRESENTABLE
      set.push(converted)
    }
    return set
  }
  const record: Record<string, CedarValueJson> = {}
  for (const key of Object.keys(value)) {
    if (ESCAPES.has(key)) return UNREPRESENTABLE
    const field = (value as Record<string, unknown>)[key]
    // Cedar has no null: a null argument is an absent one (`has` is false).
    if (field === null) continue
    const converted = toCedar(field, depth + 1)
    if (converted === UNREPRESENTABLE) return UNREPRESENTABLE
    record[key] = converted
  }
  return record
}

/**
 * Arguments as a Cedar record, or undefined when Cedar cannot hold them: a fraction or an integer
 * beyond 2^53, null inside an array, a key Cedar reads as an escape, or nesting deeper than 64.
 * A null field is left out. The caller denies what is undefined (fail closed).
 */
export const cedarArgs = (args: JsonObject): Record<string, CedarValueJson> | undefined => {
  const converted = toCedar(args, 0)
  return converted === UNREPRESENTABLE ? undefined : converted as Record<string, CedarValueJson>
}

/** A callTool request, or undefined when the arguments cannot be given to Cedar. */
export const callRequest = (
  serverId: string,
  name: string,
  args: JsonObject,
  ctx: HookContext,
  tool: Tool | undefined
): CedarRequest | undefined => {
  const record = cedarArgs(args)
  if (record === undefined) return undefined
  return request(ctx, "callTool", toolEntity(serverId, name, tool), { ...baseContext(ctx), args: record })
}

/** A listTools request on one tool (no arguments), under its own names or `names`. */
export const listRequest = (tool: Tool, ctx: HookContext, names: Names = tool): CedarRequest => {
  return request(ctx, "listTools", toolEntity(names.serverId, names.name, tool), baseContext(ctx))
}

/** The context of a partial callTool request whose arguments are unknown (for listings). */
export const unknownArgsContext = (ctx: HookContext): Context => ({
  ...baseContext(ctx),
  args: { __extn: { fn: "unknown", arg: "args" } }
})

/** A readResource request. */
export const readRequest = (serverId: string, uri: string, ctx: HookContext): CedarRequest => {
  return request(ctx, "readResource", {
    uid: { type: RESOURCE, id: uri },
    attrs: { server: canonicalName(serverId), uri },
    parents: []
  }, baseContext(ctx))
}

const promptEntity = (serverId: string, name: string): Entity => ({
  uid: { type: PROMPT, id: canonicalId(serverId, name) },
  attrs: { server: canonicalName(serverId), name: canonicalName(name) },
  parents: []
})

/** A getPrompt request, or undefined when the arguments cannot be given to Cedar. */
export const promptRequest = (
  serverId: string,
  name: string,
  args: JsonObject,
  ctx: HookContext
): CedarRequest | undefined => {
  const record = cedarArgs(args)
  if (record === undefined) return undefined
  return request(ctx, "getPrompt", promptEntity(serverId, name), { ...baseContext(ctx), args: record })
}

/** A getPrompt request on a listed prompt, its arguments not known (for partial evaluation). */
export const promptListRequest = (serverId: string, name: string, ctx: HookContext): CedarRequest =>
  request(ctx, "getPrompt", promptEntity(serverId, name), baseContext(ctx))
