/**
 * `Policy.cedar({ policies, schema? })`: core's Policy service from a Cedar policy set. A satisfied forbid, or no
 * satisfied permit, denies; a satisfied permit allows, unless one annotated `@ask("reason")` is satisfied, which asks.
 * Lookalike names are also decided on their skeletons, where a plain permit grants nothing. Fail closed: an
 * evaluation error, arguments Cedar cannot hold, or a WASM failure denies.
 */
import type { AuthorizationAnswer, Context, PartialAuthorizationAnswer } from "@cedar-policy/cedar-wasm/nodejs"
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
import { type CedarPolicyInfo, type CedarPolicySet, makeSlices, parsePolicySet, type Slices } from "./CedarPolicySet.ts"
import { type CedarSchemaInput, validatePolicySet } from "./CedarValidation.ts"
import { type CedarWasm, guarded, loadCedarWasm } from "./CedarWasm.ts"
import {
  callRequest,
  type CedarRequest,
  listRequest,
  lookalikeNames,
  lookalikeServer,
  type Names,
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

/** Cedar's answer to one request: "none" when no policy could apply, undefined when WASM failed. */
type Answer = AuthorizationAnswer | "none" | undefined

const idsOf = (policies: ReadonlyArray<CedarPolicyInfo>): string => policies.map((policy) => policy.id).join(",")

/**
 * Reads Cedar's answers as one decision (see the module's header): the answer on the names, then
 * the one on their lookalike skeletons if any, whose plain permits grant nothing.
 */
const interpret = (set: CedarPolicySet, answers: ReadonlyArray<Answer>): PolicyDecision => {
  const errored = new Set<string>()
  const forbids = new Map<string, CedarPolicyInfo>()
  const asks = new Map<string, CedarPolicyInfo>()
  const permits: Array<CedarPolicyInfo> = []
  for (let i = 0; i < answers.length; i++) {
    const answer = answers[i]
    if (answer === "none") continue
    if (answer === undefined || answer.type === "failure") return WASM_FAILED
    const { decision, diagnostics } = answer.response
    for (const error of diagnostics.errors) errored.add(error.policyId)
    if (decision === "allow" && diagnostics.reason.length === 0) return WASM_FAILED
    for (const id of diagnostics.reason) {
      const policy = set.byId.get(id)
      if (policy === undefined) continue
      if (decision === "deny") forbids.set(id, policy)
      else if (policy.ask !== undefined) asks.set(id, policy)
      else if (i === 0) permits.push(policy)
    }
  }
  if (errored.size > 0) {
    const ids = [...errored].join(",")
    // Cedar's message may quote an argument's name or value: the reason names the policies only.
    return deny(`Cedar policy ${ids.replaceAll(",", ", ")} failed to evaluate`, ids)
  }
  const byOffset = (policies: Iterable<CedarPolicyInfo>) => [...policies].sort((a, b) => a.offset - b.offset)
  if (forbids.size > 0) {
    const deciding = byOffset(forbids.values())
    const reason = deciding.find((policy) => policy.reason !== undefined)?.reason
    return deny(reason ?? "forbidden by Cedar policy", idsOf(deciding))
  }
  if (asks.size > 0) {
    const asking = byOffset(asks.values())
    return ask(asking[0].ask ?? "approval required by Cedar policy", idsOf(asking))
  }
  return permits.length > 0 ? allow(idsOf(byOffset(permits))) : NO_PERMIT
}

/** Cedar's answer to one stateful request against its slice. */
const answerOf = (wasm: CedarWasm, slices: Slices, request: CedarRequest): Answer => {
  const slice = slices.slice(request.action.id, uidKey(request.resource))
  if (slice === null) return "none"
  if (slice === undefined) return undefined
  return guarded(() => wasm.statefulIsAuthorized({ ...request, preparsedPolicySetId: slice }))
}

/**
 * One decision on `names`, and on `lookalike` (their skeletons) when given; `build` makes the
 * request on a pair of names (undefined: the arguments cannot be given to Cedar).
 */
const authorize = (
  wasm: CedarWasm,
  set: CedarPolicySet,
  slices: Slices,
  build: (names: Names) => CedarRequest | undefined,
  names: Names,
  lookalike: Names | undefined
): PolicyDecision => {
  const request = build(names)
  if (request === undefined) return UNREPRESENTABLE
  const answer = answerOf(wasm, slices, request)
  if (lookalike === undefined) return answer === "none" ? NO_PERMIT : interpret(set, [answer])
  const skeletal = build(lookalike)
  return skeletal === undefined ? UNREPRESENTABLE : interpret(set, [answer, answerOf(wasm, slices, skeletal)])
}

/** Whether a satisfied forbid refuses the request whatever its arguments (partial evaluation). */
const forbidsAll = (set: CedarPolicySet, answer: PartialAuthorizationAnswer | undefined): boolean =>
  answer !== undefined && answer.type === "residuals" &&
  answer.response.satisfied.some((id) => set.byId.get(id)?.effect === "forbid")

const VISIBILITY_CACHE_ENTRIES = 10_000
/** Longer listing subjects (a long URI) are decided each time, not remembered. */
const MAX_REMEMBERED_SUBJECT = 1024

/** Builds the Policy service from a parsed set (for the Layer and for tools such as replay). */
export const makeCedarPolicy = (wasm: CedarWasm, set: CedarPolicySet): PolicyShape => {
  const slices = makeSlices(wasm, set)
  const decide = (call: ToolCall, ctx: HookContext, facts?: PolicyFacts) =>
    Exit.succeed(authorize(
      wasm,
      set,
      slices,
      (names) => callRequest(names.serverId, names.name, call.args, ctx, facts?.tool),
      call,
      lookalikeNames(call.serverId, call.name)
    ))
  /** Cedar's partial answer to an `action` request whose arguments are unknown; "none" when no policy could apply. */
  const partial = (request: CedarRequest, action: "callTool" | "getPrompt", ctx: HookContext) => {
    const policies = slices.texts(action, uidKey(request.resource))
    if (Object.keys(policies).length === 0) return "none"
    const context: Context = unknownArgsContext(ctx)
    return guarded(() =>
      wasm.isAuthorizedPartial({
        ...request,
        action: { type: request.action.type, id: action },
        context,
        policies: { staticPolicies: policies }
      })
    )
  }
  /**
   * Whether some `action` request could be permitted, its arguments unknown: Cedar's partial
   * evaluation says "deny" only when no arguments could be permitted. An undetermined answer, an
   * error or a WASM failure shows the entry (each request is still decided on its own).
   */
  const permittable = (request: CedarRequest, action: "callTool" | "getPrompt", ctx: HookContext): boolean => {
    const answer = partial(request, action, ctx)
    if (answer === "none") return false
    return answer === undefined || answer.type !== "residuals" || answer.response.decision !== "deny" ||
      answer.response.errored.length > 0
  }
  /** Whether a forbid refuses every `action` request on the lookalike skeletons (none: false). */
  const lookalikeForbidden = (
    request: CedarRequest | undefined,
    action: "callTool" | "getPrompt",
    ctx: HookContext
  ) => {
    if (request === undefined) return false
    const answer = partial(request, action, ctx)
    return answer !== "none" && forbidsAll(set, answer)
  }
  /** A listTools request is refused only by a satisfied forbid: listing needs no permit of its own. */
  const listForbidden = (tool: Tool, ctx: HookContext, names: Names = tool): boolean => {
    const answer = answerOf(wasm, slices, listRequest(tool, ctx, names))
    if (answer === "none" || answer === undefined || answer.type === "failure") return false
    const { decision, diagnostics } = answer.response
    return decision === "deny" && diagnostics.errors.length === 0 && diagnostics.reason.length > 0
  }
  /**
   * Shown when no forbid refuses listing it and some call of it could be permitted, on its names and their skeletons.
   */
  const shown = (tool: Tool, ctx: HookContext): boolean => {
    if (listForbidden(tool, ctx) || !permittable(listRequest(tool, ctx), "callTool", ctx)) return false
    const lookalike = lookalikeNames(tool.serverId, tool.name)
    return lookalike === undefined ||
      !(listForbidden(tool, ctx, lookalike) || lookalikeForbidden(listRequest(tool, ctx, lookalike), "callTool", ctx))
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
    remembered(`tool\u0000${tool.serverId}\u0000${tool.name}\u0000${tool.fingerprint}`, ctx, () => shown(tool, ctx))
  const visibleTools = (tools: ReadonlyArray<Tool>, ctx: HookContext) =>
    Effect.map(
      Effect.forEach(tools, (tool) => Effect.andThen(Effect.yieldNow, Effect.sync(() => visible(tool, ctx)))),
      (shown) => tools.filter((_, i) => shown[i])
    )
  const read = (serverId: string, uri: string, ctx: HookContext) =>
    authorize(
      wasm,
      set,
      slices,
      (names) => readRequest(names.serverId, uri, ctx),
      { serverId, name: uri },
      lookalikeServer(serverId, uri)
    )
  const decideOperation = (operation: PolicyOperation, ctx: HookContext) =>
    Exit.succeed(
      operation._tag === "ReadResource"
        ? read(operation.serverId, operation.uri, ctx)
        : authorize(
          wasm,
          set,
          slices,
          (names) => promptRequest(names.serverId, names.name, operation.args, ctx),
          operation,
          lookalikeNames(operation.serverId, operation.name)
        )
    )
  /** A resource is listed when its read is permitted; a prompt when some get of it could be. */
  const prompted = (serverId: string, name: string, ctx: HookContext): boolean => {
    if (!permittable(promptListRequest(serverId, name, ctx), "getPrompt", ctx)) return false
    const lookalike = lookalikeNames(serverId, name)
    return lookalike === undefined ||
      !lookalikeForbidden(promptListRequest(lookalike.serverId, lookalike.name, ctx), "getPrompt", ctx)
  }
  const visibleOperation = (operation: PolicyOperation, ctx: HookContext) =>
    Exit.succeed(
      operation._tag === "ReadResource"
        ? remembered(
          `read\u0000${operation.serverId}\u0000${operation.uri}`,
          ctx,
          () => read(operation.serverId, operation.uri, ctx)._tag === "Allow"
        )
        : remembered(
          `prompt\u0000${operation.serverId}\u0000${operation.name}`,
          ctx,
          () => prompted(operation.serverId, operation.name, ctx)
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
