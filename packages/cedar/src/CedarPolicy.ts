/**
 * `Policy.cedar({ policies, schema? })`: core's Policy service from a Cedar policy set. Decisions:
 * a satisfied forbid, or no satisfied permit, denies; a satisfied permit allows, unless a satisfied
 * permit is annotated `@ask("reason")`, which asks. The decision names the deciding policies by id
 * and takes its reason from `@reason` (or `@ask`). Fail closed: an evaluation error in any policy
 * (a missing attribute among them), arguments Cedar cannot hold, and any WASM failure deny.
 * Each decision is one synchronous WASM call; a listing yields between tools.
 */
import type { AuthorizationAnswer, Context } from "@cedar-policy/cedar-wasm/nodejs"
import {
  type HookContext,
  Policy as CorePolicy,
  type PolicyDecision,
  type PolicyFacts,
  type PolicyOperation,
  type PolicyShape,
  type Tool,
  type ToolCall
} from "@interlock/core"
import { Effect, Exit, Layer } from "effect"
import type { CedarError } from "./CedarErrors.ts"
import { type CedarPolicySet, makeSlices, parsePolicySet, type Slices } from "./CedarPolicySet.ts"
import { type CedarSchemaInput, validatePolicySet } from "./CedarValidation.ts"
import { type CedarWasm, guarded, loadCedarWasm } from "./CedarWasm.ts"
import {
  callRequest,
  type CedarRequest,
  listRequest,
  promptListRequest,
  promptRequest,
  readRequest,
  uidKey,
  unknownArgsContext
} from "./RequestModel.ts"

/** Options of {@link cedar}. */
export interface CedarOptions {
  /** The Cedar policy set, as text. */
  readonly policies: string
  /** A Cedar schema (text or JSON) to validate the policies against when the Layer is built. */
  readonly schema?: CedarSchemaInput | undefined
  /** Where the policies came from (a file name), for error messages. */
  readonly source?: string | undefined
}

const { allow, ask, deny } = CorePolicy
const WASM_FAILED = deny("the Cedar policy could not be evaluated")
const NO_PERMIT = deny("no Cedar policy permits this request")
const UNREPRESENTABLE = deny("the arguments cannot be given to Cedar (a fraction, a null in a list, or a reserved key)")

/** Reads Cedar's answer as a decision (see the module's header). */
const interpret = (set: CedarPolicySet, answer: AuthorizationAnswer | undefined): PolicyDecision => {
  if (answer === undefined || answer.type === "failure") return WASM_FAILED
  const { decision, diagnostics } = answer.response
  if (diagnostics.errors.length > 0) {
    const ids = [...new Set(diagnostics.errors.map((error) => error.policyId))]
    // Cedar's message may quote an argument's name or value: the reason names the policies only.
    return deny(`Cedar policy ${ids.join(", ")} failed to evaluate`, ids.join(","))
  }
  const deciding = diagnostics.reason.flatMap((id) => {
    const policy = set.byId.get(id)
    return policy === undefined ? [] : [policy]
  }).sort((a, b) => a.offset - b.offset)
  if (decision === "deny") {
    if (deciding.length === 0) return NO_PERMIT
    const reason = deciding.find((policy) => policy.reason !== undefined)?.reason
    return deny(reason ?? "forbidden by Cedar policy", deciding.map((policy) => policy.id).join(","))
  }
  if (deciding.length === 0) return WASM_FAILED
  const asking = deciding.filter((policy) => policy.ask !== undefined)
  if (asking.length > 0) {
    return ask(
      asking[0].ask ?? "approval required by Cedar policy",
      asking.map((policy) => policy.id).join(",")
    )
  }
  return allow(deciding.map((policy) => policy.id).join(","))
}

/** Cedar's answer to one stateful request against its slice; "none" when no policy could apply. */
const answerOf = (wasm: CedarWasm, slices: Slices, request: CedarRequest): AuthorizationAnswer | "none" | undefined => {
  const slice = slices.slice(request.action.id, uidKey(request.resource))
  if (slice === null) return "none"
  if (slice === undefined) return undefined
  return guarded(() => wasm.statefulIsAuthorized({ ...request, preparsedPolicySetId: slice }))
}

/** One decision. */
const authorize = (
  wasm: CedarWasm,
  set: CedarPolicySet,
  slices: Slices,
  request: CedarRequest | undefined
): PolicyDecision => {
  if (request === undefined) return UNREPRESENTABLE
  const answer = answerOf(wasm, slices, request)
  return answer === "none" ? NO_PERMIT : interpret(set, answer)
}

const VISIBILITY_CACHE_ENTRIES = 10_000
/** Longer listing subjects (a long URI) are decided each time, not remembered. */
const MAX_REMEMBERED_SUBJECT = 1024

/** Builds the Policy service from a parsed set (for the Layer and for tools such as replay). */
export const makeCedarPolicy = (wasm: CedarWasm, set: CedarPolicySet): PolicyShape => {
  const slices = makeSlices(wasm, set)
  const decide = (call: ToolCall, ctx: HookContext, facts?: PolicyFacts) =>
    Exit.succeed(authorize(wasm, set, slices, callRequest(call.serverId, call.name, call.args, ctx, facts?.tool)))
  /**
   * Whether some `action` request could be permitted, its arguments unknown: Cedar's partial
   * evaluation says "deny" only when no arguments could be permitted. An undetermined answer, an
   * error or a WASM failure shows the entry (each request is still decided on its own).
   */
  const permittable = (request: CedarRequest, action: "callTool" | "getPrompt", ctx: HookContext): boolean => {
    const context: Context = unknownArgsContext(ctx)
    const policies = slices.texts(action, uidKey(request.resource))
    if (Object.keys(policies).length === 0) return false
    const answer = guarded(() =>
      wasm.isAuthorizedPartial({
        ...request,
        action: { type: request.action.type, id: action },
        context,
        policies: { staticPolicies: policies }
      })
    )
    return answer === undefined || answer.type !== "residuals" || answer.response.decision !== "deny" ||
      answer.response.errored.length > 0
  }
  /** Whether some callTool request on the tool could be permitted (see `permittable`). */
  const callable = (tool: Tool, ctx: HookContext): boolean => permittable(listRequest(tool, ctx), "callTool", ctx)
  /** A listTools request is refused only by a satisfied forbid: listing needs no permit of its own. */
  const listForbidden = (tool: Tool, ctx: HookContext): boolean => {
    const answer = answerOf(wasm, slices, listRequest(tool, ctx))
    if (answer === "none" || answer === undefined || answer.type === "failure") return false
    const { decision, diagnostics } = answer.response
    return decision === "deny" && diagnostics.errors.length === 0 && diagnostics.reason.length > 0
  }
  const cache = new Map<string, boolean>()
  /** A listing's answer on `subject` for the context's principal, client and era, remembered (subjects up to 1 KiB). */
  const remembered = (subject: string, ctx: HookContext, answer: () => boolean): boolean => {
    if (subject.length > MAX_REMEMBERED_SUBJECT) return answer()
    const key = `${subject}\u0000${ctx.principal?.id ?? ""}\u0000${
      (ctx.principal?.roles ?? []).join("\u0001")
    }\u0000${ctx.client}\u0000${ctx.era ?? ""}`
    const known = cache.get(key)
    if (known !== undefined) return known
    const computed = answer()
    if (cache.size >= VISIBILITY_CACHE_ENTRIES) cache.clear()
    cache.set(key, computed)
    return computed
  }
  const visible = (tool: Tool, ctx: HookContext): boolean =>
    remembered(
      `tool\u0000${tool.serverId}\u0000${tool.name}\u0000${tool.fingerprint}`,
      ctx,
      () => !listForbidden(tool, ctx) && callable(tool, ctx)
    )
  const visibleTools = (tools: ReadonlyArray<Tool>, ctx: HookContext) =>
    Effect.map(
      Effect.forEach(tools, (tool) => Effect.andThen(Effect.yieldNow, Effect.sync(() => visible(tool, ctx)))),
      (shown) => tools.filter((_, i) => shown[i])
    )
  const decideOperation = (operation: PolicyOperation, ctx: HookContext) =>
    Exit.succeed(authorize(
      wasm,
      set,
      slices,
      operation._tag === "ReadResource"
        ? readRequest(operation.serverId, operation.uri, ctx)
        : promptRequest(operation.serverId, operation.name, operation.args, ctx)
    ))
  /** A resource is listed when its read is permitted; a prompt when some get of it could be. */
  const visibleOperation = (operation: PolicyOperation, ctx: HookContext) =>
    Exit.succeed(
      operation._tag === "ReadResource"
        ? remembered(
          `read\u0000${operation.serverId}\u0000${operation.uri}`,
          ctx,
          () => authorize(wasm, set, slices, readRequest(operation.serverId, operation.uri, ctx))._tag === "Allow"
        )
        : remembered(
          `prompt\u0000${operation.serverId}\u0000${operation.name}`,
          ctx,
          () => permittable(promptListRequest(operation.serverId, operation.name, ctx), "getPrompt", ctx)
        )
    )
  return { decide, visible, visibleTools, decideOperation, visibleOperation }
}

/** Parses (and, given a schema, validates) a Cedar policy set into a Policy service. */
export const compileCedar = (options: CedarOptions): Effect.Effect<PolicyShape, CedarError> =>
  Effect.gen(function*() {
    const wasm = yield* loadCedarWasm
    const set = yield* parsePolicySet(wasm, options.policies, options.source)
    if (options.schema !== undefined) yield* validatePolicySet(wasm, set, options.schema)
    return makeCedarPolicy(wasm, set)
  })

/** The Policy Layer of a Cedar policy set. A set that does not parse or validate fails the Layer. */
export const cedar = (options: CedarOptions): Layer.Layer<CorePolicy, CedarError> =>
  Layer.effect(CorePolicy, compileCedar(options))
