/**
 * A Cedar policy set as this package uses it: parsed once into its policies (id from `@id`, else Cedar's `policyN`;
 * effect; `@ask`/`@reason`; scope; place in the file), then sliced so that a request is evaluated only against the
 * policies whose scope could apply to its action and resource. Slices are loaded into the WASM module on first use.
 */
import type { DetailedError, PolicyJson } from "@cedar-policy/cedar-wasm/nodejs"
import { Effect } from "effect"
import { CedarPolicyInvalid, CedarWasmFailed } from "./CedarErrors.ts"
import { type CedarWasm, guarded } from "./CedarWasm.ts"
import { ACTIONS, canonicalId, type CedarAction, NAMESPACE, PROMPT, TOOL, uidKey } from "./RequestModel.ts"
import { byteLength, lineColumn } from "./SourcePosition.ts"

/** One policy of the set. */
export interface CedarPolicyInfo {
  /** Its `@id`, else Cedar's positional id `policyN`. */
  readonly id: string
  readonly effect: "permit" | "forbid"
  /** The `@ask("reason")` text of a permit that asks. */
  readonly ask: string | undefined
  /** The `@reason("...")` text. */
  readonly reason: string | undefined
  /** The actions its scope admits; undefined for every action. */
  readonly actions: ReadonlySet<string> | undefined
  /** The resource its scope names with `==` (as {@link uidKey}); undefined for any other scope. */
  readonly resource: string | undefined
  /** Its source text, and the UTF-8 byte offset of that text in the file. */
  readonly text: string
  readonly offset: number
}

/** A parsed policy set. */
export interface CedarPolicySet {
  readonly text: string
  readonly source: string | undefined
  readonly policies: ReadonlyArray<CedarPolicyInfo>
  readonly byId: ReadonlyMap<string, CedarPolicyInfo>
}

/** The error for a Cedar diagnostic at a byte `offset` of the file (the diagnostic's own offset is added). */
export const invalidAt = (
  set: Pick<CedarPolicySet, "text" | "source">,
  error: DetailedError | undefined,
  offset: number,
  policyId?: string
): CedarPolicyInvalid => {
  const location = error?.sourceLocations?.[0]
  const position = location === undefined ? undefined : lineColumn(set.text, offset + location.start)
  const detail = error === undefined
    ? "the policy set is not valid Cedar"
    : error.help === null
    ? error.message
    : `${error.message} (${error.help})`
  return new CedarPolicyInvalid({
    source: set.source,
    line: position?.line,
    column: position?.column,
    policyId,
    detail
  })
}

const scopeActions = (policy: PolicyJson): ReadonlySet<string> | undefined => {
  const action = policy.action
  if (action.op === "All") return undefined
  const uids = "entities" in action ? action.entities : "entity" in action ? [action.entity] : []
  // Actions have no parents in this model, so `action in A` is `action == A`.
  return new Set(uids.map((uid) => ("__entity" in uid ? uid.__entity.id : uid.id)))
}

const scopeResource = (policy: PolicyJson): { readonly type: string; readonly id: string } | undefined => {
  const resource = policy.resource
  if (resource.op !== "==" || !("entity" in resource)) return undefined
  return "__entity" in resource.entity ? resource.entity.__entity : resource.entity
}

const annotation = (policy: PolicyJson, name: string): string | undefined => policy.annotations?.[name]

/** Cedar's positional ids, in the order `policySetTextToParts` returns the policies (sorted by id). */
const positionalIds = (count: number): Array<string> => Array.from({ length: count }, (_, i) => `policy${i}`).sort()

/**
 * Parses a policy set. Errors name the file's line and column: a parse error, a template (not
 * supported: there is nothing to link it with), a duplicate `@id`, an `@ask` on a forbid, an
 * action outside Interlock's four, or a tool or prompt named in a scope by a non-canonical id
 * (Cedar compares ids exactly, so `fs/Write-File` would never match the request's `fs/write_file`).
 */
export const parsePolicySet = (
  wasm: CedarWasm,
  text: string,
  source: string | undefined
): Effect.Effect<CedarPolicySet, CedarPolicyInvalid | CedarWasmFailed> =>
  Effect.suspend((): Effect.Effect<CedarPolicySet, CedarPolicyInvalid | CedarWasmFailed> => {
    const here = { text, source }
    const checked = guarded(() => wasm.checkParsePolicySet({ staticPolicies: text }))
    if (checked === undefined) {
      return Effect.fail(new CedarWasmFailed({ detail: "Cedar could not parse the policy set" }))
    }
    if (checked.type === "failure") return Effect.fail(invalidAt(here, checked.errors[0], 0))
    const parts = guarded(() => wasm.policySetTextToParts(text))
    if (parts === undefined || parts.type === "failure") {
      return Effect.fail(new CedarWasmFailed({ detail: "Cedar could not split the policy set" }))
    }
    const ids = positionalIds(parts.policies.length)
    const policies: Array<CedarPolicyInfo> = []
    const byId = new Map<string, CedarPolicyInfo>()
    let searchFrom = 0
    for (let i = 0; i < parts.policies.length; i++) {
      const part = parts.policies[i]
      const at = text.indexOf(part, searchFrom)
      const offset = byteLength(text.slice(0, Math.max(0, at)))
      if (at >= 0) searchFrom = at + part.length
      const json = guarded(() => wasm.policyToJson(part))
      if (json === undefined || json.type === "failure") {
        return Effect.fail(new CedarWasmFailed({ detail: "Cedar could not read a policy" }))
      }
      const policy = json.json
      const id = annotation(policy, "id") ?? ids[i]
      const fail = (detail: string) =>
        Effect.fail(
          invalidAt(
            here,
            {
              message: detail,
              help: null,
              code: null,
              url: null,
              severity: null,
              sourceLocations: [{ label: null, start: 0, end: 0 }]
            },
            offset,
            id
          )
        )
      if (byId.has(id)) return fail(`duplicate policy id "${id}"`)
      const ask = annotation(policy, "ask")
      if (ask !== undefined && policy.effect !== "permit") return fail("@ask is for permit policies only")
      const actions = scopeActions(policy)
      for (const action of actions ?? []) {
        if (!(ACTIONS as ReadonlyArray<string>).includes(action)) {
          return fail(`unknown action "${action}"; the actions are ${ACTIONS.join(", ")}`)
        }
      }
      const resource = scopeResource(policy)
      if (resource !== undefined && (resource.type === TOOL || resource.type === PROMPT)) {
        const slash = resource.id.indexOf("/")
        const canonical = slash < 0 ? undefined : canonicalId(resource.id.slice(0, slash), resource.id.slice(slash + 1))
        if (canonical !== resource.id) {
          return fail(
            `${resource.type}::"${resource.id}" is not a canonical "<server>/<name>" id${
              canonical === undefined ? "" : `; write "${canonical}"`
            }`
          )
        }
      }
      const info: CedarPolicyInfo = {
        id,
        effect: policy.effect,
        ask,
        reason: annotation(policy, "reason"),
        actions,
        resource: resource === undefined ? undefined : uidKey(resource),
        text: part,
        offset
      }
      policies.push(info)
      byId.set(id, info)
    }
    if (parts.policy_templates.length > 0) {
      return Effect.fail(
        new CedarPolicyInvalid({ source, detail: "templates are not supported: write static policies" })
      )
    }
    return Effect.succeed({ text, source, policies, byId })
  })

/** Slices of a policy set, pre-parsed on first use. */
export interface Slices {
  /**
   * The pre-parsed policy set id for (action, resource); null when no policy could apply, undefined
   * when the WASM module failed to pre-parse it.
   */
  readonly slice: (action: CedarAction, resourceKey: string) => string | null | undefined
  /** The policies of that slice as Cedar's static policy set (for calls that take text, like partial evaluation). */
  readonly texts: (action: CedarAction, resourceKey: string) => Record<string, string>
}

let instances = 0

/**
 * Slices `set` by the scope of its policies: a request sees the policies whose action scope
 * admits its action and whose resource scope is its resource, or is not an `==`. A slice that
 * fails to pre-parse (it parsed as a whole, so only a WASM failure can do that) is retried on the
 * next request; callers deny meanwhile.
 */
export const makeSlices = (wasm: CedarWasm, set: CedarPolicySet): Slices => {
  const prefix = `interlock-${NAMESPACE}-${++instances}`
  const named = new Set(set.policies.flatMap((policy) => (policy.resource === undefined ? [] : [policy.resource])))
  const parsed = new Map<string, string | null>()
  const members = (action: CedarAction, resourceKey: string) =>
    set.policies.filter((policy) =>
      (policy.actions === undefined || policy.actions.has(action)) &&
      (policy.resource === undefined || policy.resource === resourceKey)
    )
  const keyOf = (action: CedarAction, resourceKey: string) =>
    `${action}\u0000${named.has(resourceKey) ? resourceKey : ""}`
  const texts = (action: CedarAction, resourceKey: string): Record<string, string> =>
    Object.fromEntries(members(action, resourceKey).map((policy) => [policy.id, policy.text]))
  const slice = (action: CedarAction, resourceKey: string): string | null | undefined => {
    const key = keyOf(action, resourceKey)
    const known = parsed.get(key)
    if (known !== undefined) return known
    const policies = texts(action, resourceKey)
    let id: string | null = null
    if (Object.keys(policies).length > 0) {
      const candidate = `${prefix}-${parsed.size}`
      const answer = guarded(() => wasm.preparsePolicySet(candidate, { staticPolicies: policies }))
      if (answer?.type === "success") id = candidate
      else return undefined
    }
    parsed.set(key, id)
    return id
  }
  return { slice, texts }
}
