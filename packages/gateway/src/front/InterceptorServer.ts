/**
 * The gateway as an interceptor server (SEP-1763): `interceptors/list` offers `interlock.policy` (a validator: the
 * policy on a call, read or get), `interlock.redact` (a mutator: the redactions on a result) and each named hook
 * (`hook:<id>`, HookServing.ts); `interceptor/invoke` runs them. A request it cannot run (unknown name, an event
 * it does not hook, a payload that is no event's) is an error.
 */
import type { ConfigError, JsonObject, PolicyDecision, Principal } from "@interlock/core"
import { INTERCEPTORS_DRAFT, INTERCEPTORS_EXTENSION } from "@interlock/mcp"
import { ProtocolError, ProtocolErrorCode, Server } from "@modelcontextprotocol/server"
import { Effect, Schema } from "effect"
import { redactResultParts } from "../governance/ContentRedaction.ts"
import type { Redaction } from "../governance/Redactor.ts"
import { hookAnswer, hookQueryOf, type NamedHooks } from "./HookInterceptors.ts"
import { HOOK_INTERCEPTOR_PREFIX, hookDescriptor, hookInterceptorName, servingOf } from "./HookServing.ts"
import { decoder, invalid, Named, Uri } from "./InterceptorPayload.ts"
import type { Runner } from "./Runner.ts"

/** What the policy is asked: a call, a read or a get, as the invoking host names them. */
export type PolicyQuery =
  | { readonly _tag: "Call"; readonly name: string; readonly args: JsonObject }
  | { readonly _tag: "Read"; readonly uri: string }
  | { readonly _tag: "Get"; readonly name: string; readonly args: JsonObject }

/** What the interceptors are served over: the policy in force, the redactions in force, and the gateway's runner. */
export interface InterceptorServing {
  /** The policy's decision; undefined when it does not govern such an operation (it goes on). */
  readonly decide: (query: PolicyQuery, principal: Principal | undefined) => Effect.Effect<PolicyDecision | undefined>
  readonly redactions: () => ReadonlyArray<Redaction>
  /** The config's hooks in force; a ConfigError when they could not be loaded. */
  readonly namedHooks: Effect.Effect<NamedHooks, ConfigError>
  readonly run: Runner
  readonly version: string
}

/** The validator offering the gateway's policy. */
export const POLICY_INTERCEPTOR = "interlock.policy"

/** The mutator offering the config's redactions. */
export const REDACT_INTERCEPTOR = "interlock.redact"

const POLICY_EVENTS = ["tools/call", "resources/read", "prompts/get"]

/** The interceptors served, as `interceptors/list` gives them (SEP §Interface). */
export const SERVED_INTERCEPTORS = [
  {
    name: POLICY_INTERCEPTOR,
    description: "The Interlock gateway's policy (JSON rules or Cedar) on tool calls, resource reads and prompt gets",
    type: "validation",
    hook: { events: POLICY_EVENTS, phase: "request" }
  },
  {
    name: REDACT_INTERCEPTOR,
    description: "The Interlock gateway's configured redactions on tool results",
    type: "mutation",
    hook: { events: ["tools/call"], phase: "response" },
    priorityHint: 0
  }
] as const

const standard = <S extends Schema.Decoder<unknown>>(schema: S) => Schema.toStandardSchemaV1(schema)
const ListParams = standard(
  Schema.Struct({ cursor: Schema.optional(Schema.String), event: Schema.optional(Schema.String) })
)
const InvokeParams = standard(Schema.Struct({
  name: Schema.String,
  event: Schema.String,
  phase: Schema.Literals(["request", "response"]),
  payload: Schema.Unknown,
  config: Schema.optional(Schema.Unknown),
  timeoutMs: Schema.optional(Schema.Number),
  context: Schema.optional(Schema.Unknown)
}))

const Result = decoder(Schema.Struct({
  content: Schema.Array(Schema.Unknown),
  structuredContent: Schema.optional(Schema.JsonObject),
  isError: Schema.optional(Schema.Boolean),
  _meta: Schema.optional(Schema.JsonObject)
}))

const queryOf = (event: string, payload: unknown): PolicyQuery => {
  if (event === "resources/read") {
    const read = Uri(payload)
    if (read === undefined) throw invalid("the payload is not a resources/read request's params")
    return { _tag: "Read", uri: read.uri }
  }
  const named = Named(payload)
  if (named === undefined) throw invalid(`the payload is not a ${event} request's params`)
  return { _tag: event === "tools/call" ? "Call" : "Get", name: named.name, args: named.arguments ?? {} }
}

/** SEP §Validator: a policy's Allow is valid; its Deny, and an Ask (approval cannot be given here), are errors. */
const validation = (decision: PolicyDecision | undefined) => {
  const base = { interceptor: POLICY_INTERCEPTOR, type: "validation", phase: "request" } as const
  if (decision === undefined || decision._tag === "Allow") return { ...base, valid: true }
  const message = decision._tag === "Ask"
    ? `approval is needed, which an interceptor cannot give: ${decision.reason}`
    : `denied by policy${decision.rule === undefined ? "" : ` rule ${decision.rule}`}: ${decision.reason}`
  return { ...base, valid: false, severity: "error", messages: [{ path: "params", message, severity: "error" }] }
}

const mutation = (payload: unknown, redactions: ReadonlyArray<Redaction>) => {
  const result = Result(payload)
  if (result === undefined) throw invalid("the payload is not a tools/call result")
  const parts = { content: result.content, structuredContent: result.structuredContent, meta: result._meta }
  const redacted = redactResultParts(parts, redactions)
  const base = { interceptor: REDACT_INTERCEPTOR, type: "mutation", phase: "response" } as const
  if (redacted === parts) return { ...base, modified: false, payload: result }
  const { meta, ...rest } = redacted
  return { ...base, modified: true, payload: { ...result, ...rest, ...(meta === undefined ? {} : { _meta: meta }) } }
}

const hooks = (name: string, event: string, phase: string): boolean =>
  name === POLICY_INTERCEPTOR ? phase === "request" && POLICY_EVENTS.includes(event) : event === "tools/call" &&
    phase === "response"

/** The named hooks served, with how each is served. */
const servedHooks = (named: NamedHooks) =>
  named.hooks.flatMap((hook) => {
    const serving = servingOf(hook)
    return serving._tag === "Served" ? [{ hook, serving }] : []
  })

/** The served hooks in force, none when they could not be loaded (an invocation then says so). */
const listedHooks = (serving: InterceptorServing) =>
  serving.namedHooks.pipe(
    Effect.map((named) => servedHooks(named).map(({ hook, serving }) => hookDescriptor(hook, serving))),
    Effect.catchTag("ConfigError", () => Effect.succeed([]))
  )

/** Runs the named hook an invocation names, for the host's principal. */
const invokeHook = async (
  serving: InterceptorServing,
  params: { readonly name: string; readonly event: string; readonly phase: string; readonly payload: unknown },
  principal: Principal | undefined,
  signal: AbortSignal
) => {
  const named = await serving.run(Effect.result(serving.namedHooks), signal)
  if (named._tag === "Failure") {
    throw new ProtocolError(ProtocolErrorCode.InternalError, "the config's hooks could not be loaded")
  }
  const found = servedHooks(named.success).find(({ hook }) => hookInterceptorName(hook.id) === params.name)
  if (found === undefined) throw invalid(`no interceptor is named ${JSON.stringify(params.name)}`)
  const { hook, serving: how } = found
  if (how.event !== params.event || how.phase !== params.phase) {
    throw invalid(`${params.name} does not hook ${params.event} on the ${params.phase}`)
  }
  const query = hookQueryOf(how, params.payload)
  return hookAnswer(hook, how, query, await serving.run(named.success.run(hook, query, principal), signal))
}

/** An SDK server offering the interceptors to one host (its principal decides as its calls would). */
export const makeInterceptorServer = (serving: InterceptorServing, principal: Principal | undefined): Server => {
  const server = new Server(
    { name: "interlock-interceptors", version: serving.version },
    {
      capabilities: {
        extensions: {
          [INTERCEPTORS_EXTENSION]: { supportedEvents: POLICY_EVENTS, draft: INTERCEPTORS_DRAFT }
        }
      }
    }
  )
  server.setRequestHandler("interceptors/list", { params: ListParams }, async (params, ctx) => {
    const hooks = await serving.run(listedHooks(serving), ctx.mcpReq.signal)
    const all = [
      ...SERVED_INTERCEPTORS.map((i) => ({ ...i, hook: { ...i.hook, events: [...i.hook.events] } })),
      ...hooks
    ]
    return {
      interceptors: all.filter((i) => params?.event === undefined || i.hook.events.some((e) => e === params.event))
    }
  })
  server.setRequestHandler("interceptor/invoke", { params: InvokeParams }, async (params, ctx) => {
    if (params.name.startsWith(HOOK_INTERCEPTOR_PREFIX)) {
      return invokeHook(serving, params, principal, ctx.mcpReq.signal)
    }
    if (params.name !== POLICY_INTERCEPTOR && params.name !== REDACT_INTERCEPTOR) {
      throw invalid(`no interceptor is named ${JSON.stringify(params.name)}`)
    }
    if (!hooks(params.name, params.event, params.phase)) {
      throw invalid(`${params.name} does not hook ${params.event} on the ${params.phase}`)
    }
    if (params.name === REDACT_INTERCEPTOR) return mutation(params.payload, serving.redactions())
    const query = queryOf(params.event, params.payload)
    return validation(await serving.run(serving.decide(query, principal), ctx.mcpReq.signal))
  })
  return server
}
