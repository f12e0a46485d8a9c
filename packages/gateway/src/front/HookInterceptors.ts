/**
 * Invoking a named hook as an interceptor: the payload read as its event's arguments, the hook run as the gateway
 * runs it (its deadline, its verdict checked), its answer as the SEP's result. A Deny or Halt is invalid (from a
 * mutator, an error); a failure is an error, never a pass. No message holds the payload or what a hook raised.
 */
import type { JsonObject, Principal, ResolvedHook, SingleHook } from "@interlock/core"
import { ToolResult } from "@interlock/core"
import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server"
import { type Effect, Schema } from "effect"
import { hookInterceptorName, type HookServing } from "./HookServing.ts"
import { decoder, invalid, Named, Uri } from "./InterceptorPayload.ts"
import { toWireResult } from "./WireConvert.ts"

/** What a named hook is asked, as the invoking host sent it. */
export type HookQuery =
  | { readonly _tag: "Call"; readonly name: string; readonly args: JsonObject; readonly meta: JsonObject | undefined }
  | { readonly _tag: "Result"; readonly result: ToolResult }
  | { readonly _tag: "Read"; readonly uri: string }
  | { readonly _tag: "Get"; readonly name: string; readonly args: JsonObject }

/** The config's hooks in force (those written as code), and how one runs for the principal invoking it. */
export interface NamedHooks {
  readonly hooks: ReadonlyArray<ResolvedHook>
  readonly run: (
    hook: ResolvedHook,
    query: HookQuery,
    principal: Principal | undefined
  ) => Effect.Effect<SingleHook.Outcome>
}

type Served = Extract<HookServing, { _tag: "Served" }>

const Result = decoder(Schema.Struct({
  content: Schema.Unknown,
  structuredContent: Schema.optional(Schema.Unknown),
  isError: Schema.optional(Schema.Unknown),
  _meta: Schema.optional(Schema.Unknown)
}))
const AsToolResult = decoder(ToolResult)
const CallMeta = decoder(Schema.Struct({ _meta: Schema.optional(Schema.JsonObject) }))

/** The payload as the served event's arguments; a payload that is not one is InvalidParams. */
export const hookQueryOf = (serving: Served, payload: unknown): HookQuery => {
  if (serving.phase === "response") {
    const wire = Result(payload)
    const result = wire === undefined ? undefined : AsToolResult({
      content: wire.content,
      structuredContent: wire.structuredContent,
      isError: wire.isError,
      meta: wire._meta
    })
    if (result === undefined) throw invalid("the payload is not a tools/call result")
    return { _tag: "Result", result }
  }
  if (serving.event === "resources/read") {
    const read = Uri(payload)
    if (read === undefined) throw invalid("the payload is not a resources/read request's params")
    return { _tag: "Read", uri: read.uri }
  }
  const named = Named(payload)
  const meta = CallMeta(payload)
  if (named === undefined || meta === undefined) throw invalid(`the payload is not a ${serving.event} request's params`)
  const args = named.arguments ?? {}
  return serving.event === "tools/call"
    ? { _tag: "Call", name: named.name, args, meta: meta._meta }
    : { _tag: "Get", name: named.name, args }
}

const FAILURES: Record<string, string> = {
  raise: "it raised an error",
  exit: "it was interrupted",
  timeout: "it did not answer within its timeout",
  bad_return: "it answered no verdict of its event and kind"
}

/** A hook's failure: an error, so that the invoking host fails closed (or as its failOpen says). */
const failed = (name: string, kind: string) =>
  new ProtocolError(
    ProtocolErrorCode.InternalError,
    `${name} failed: ${FAILURES[kind] ?? "it gave no verdict"}, so the request is not let through`
  )

const refusal = (id: string, verdict: SingleHook.Decoded): string =>
  verdict._tag === "Deny"
    ? `denied by hook ${id}: ${verdict.reason}`
    : verdict._tag === "Halt"
    ? `hook ${id} answered the call itself (Halt), which an interceptor cannot do, so the call is refused`
    : `hook ${id} answered ${verdict._tag}, which this interceptor cannot apply, so the request is refused`

const noteOf = (verdict: SingleHook.Decoded) =>
  verdict._tag === "Continue" && verdict.note !== undefined ? { info: { note: verdict.note } } : {}

const validation = (hook: ResolvedHook, outcome: SingleHook.Outcome) => {
  const name = hookInterceptorName(hook.id)
  const base = { interceptor: name, type: "validation", phase: "request" } as const
  if (outcome._tag === "Failed") throw failed(name, outcome.kind)
  if (outcome._tag === "Skipped") return { ...base, valid: true }
  if (outcome.verdict._tag === "Continue") return { ...base, valid: true, ...noteOf(outcome.verdict) }
  const message = refusal(hook.id, outcome.verdict)
  return { ...base, valid: false, severity: "error", messages: [{ path: "params", message, severity: "error" }] }
}

/** The payload a mutator's verdict makes of the query; undefined when the verdict cannot be applied as a mutation. */
const mutated = (query: HookQuery, verdict: SingleHook.Decoded): JsonObject | undefined => {
  if (verdict._tag === "Rewrite" && query._tag === "Call") {
    const { args, meta } = verdict.call
    return { name: query.name, arguments: args, ...(meta === undefined ? {} : { _meta: meta }) }
  }
  if (verdict._tag === "RewriteArgs" && query._tag === "Get") return { name: query.name, arguments: verdict.args }
  if (verdict._tag === "Replace" && query._tag === "Result") {
    return toWireResult(verdict.result) as unknown as JsonObject
  }
  return undefined
}

const mutation = (hook: ResolvedHook, serving: Served, query: HookQuery, outcome: SingleHook.Outcome) => {
  const name = hookInterceptorName(hook.id)
  const base = { interceptor: name, type: "mutation", phase: serving.phase } as const
  if (outcome._tag === "Failed") throw failed(name, outcome.kind)
  if (outcome._tag === "Skipped") return { ...base, modified: false }
  const { verdict } = outcome
  if (verdict._tag === "Continue") return { ...base, modified: false, ...noteOf(verdict) }
  const payload = mutated(query, verdict)
  // A mutator cannot refuse (SEP §Mutator): a Deny or a Halt fails the invocation, closed.
  if (payload === undefined) throw new ProtocolError(ProtocolErrorCode.InternalError, refusal(hook.id, verdict))
  return { ...base, modified: true, payload }
}

/** The SEP result of a hook's outcome on a query, or the error it is. */
export const hookAnswer = (hook: ResolvedHook, serving: Served, query: HookQuery, outcome: SingleHook.Outcome) =>
  serving.type === "validation" ? validation(hook, outcome) : mutation(hook, serving, query, outcome)
