/**
 * The gates around listings, resource reads and prompt gets (and the decisions alone, for the
 * subscriptions and completions they lead to). They run like pre-hooks: outside-in,
 * a Deny ends the operation, and a failing hook fails it. A failing toolsListed hook fails the
 * listing: it never returns an empty list that looks like "no tools".
 */
import { Effect, Exit, type Fiber, Tracer } from "effect"
import type { HookContext } from "../hooks/HookContext.ts"
import type { ResolvedHook } from "../hooks/Hooks.ts"
import { sha256Hex } from "../model/Canonical.ts"
import { Denied, HookFailed, type TransportFailure } from "../model/Errors.ts"
import type { PromptResult } from "../model/PromptResult.ts"
import type { ResourceContents } from "../model/ResourceContents.ts"
import type { Tool } from "../model/Tool.ts"
import type { JsonObject } from "../model/ToolCall.ts"
import type { PolicyOperation } from "../policy/Policy.ts"
import type { PolicyDecision } from "../policy/PolicyDecision.ts"
import { now, recordCall, startSpan } from "../program/Telemetry.ts"
import type { OperationOptions } from "../program/ToolCalls.ts"
import { type ClientState, hookContext } from "./ClientState.ts"
import { type ChainSpec, type Recorder, refusal, runChain, STOP } from "./HookChain.ts"
import { isTimedOut, runWithin } from "./Supervisor.ts"
import * as SyncOrEffect from "./SyncOrEffect.ts"

/** Runs one gated operation inside its own span, recording its outcome. */
const operation = <A, E>(
  name: string,
  serverId: string,
  subject: string,
  body: (recorder: Recorder) => Effect.Effect<A, E>
): Effect.Effect<A, E> =>
  Effect.withFiber((fiber: Fiber.Fiber<unknown, unknown>) => {
    const start = now()
    const span = startSpan(fiber, `interlock.${name}`, start, {
      "interlock.server": serverId,
      "interlock.subject": subject
    })
    const recorder: Recorder = { fiber, span, subject: { serverId, name: subject, callId: "" }, runs: undefined }
    let effect = body(recorder)
    if (span !== undefined) effect = Effect.provideService(effect, Tracer.ParentSpan, span)
    return effect.pipe(
      Effect.onExit((exit) =>
        Effect.sync(() =>
          recordCall({
            fiber,
            span,
            operation: name,
            outcome: exit._tag === "Success" ? "ok" : "failed",
            start,
            end: now()
          })
        )
      )
    )
  })

const listSpec = (ctx: HookContext): ChainSpec<ReadonlyArray<Tool>> => {
  const select = (tools: ReadonlyArray<Tool>, hook: ResolvedHook) =>
    tools.filter((tool) => hook.matcher.restrictTest(tool.serverId, tool.name))
  // skip and call ask for the same hook's selection of the same listing: filter once for both.
  // The decoder's input is filtered afresh: the hook may have changed the array it was given.
  let last:
    | { readonly tools: ReadonlyArray<Tool>; readonly hook: ResolvedHook; readonly selected: ReadonlyArray<Tool> }
    | undefined
  const selected = (tools: ReadonlyArray<Tool>, hook: ResolvedHook): ReadonlyArray<Tool> => {
    if (last === undefined || last.tools !== tools || last.hook !== hook) {
      last = { tools, hook, selected: select(tools, hook) }
    }
    return last.selected
  }
  return {
    event: "toolsListed",
    skip: (tools, hook) => selected(tools, hook).length === 0,
    call: (run, tools, hook) => run(selected(tools, hook), ctx),
    input: (tools, hook) => ({ event: "toolsListed", tools: select(tools, hook) }),
    apply: (tools, verdict, hook) => {
      if (verdict._tag !== "ReplaceTools") return tools
      // Unselected tools stay where they were; a selected tool is replaced by the hook's version, or dropped.
      return tools.flatMap((tool) => {
        if (!hook.matcher.restrictTest(tool.serverId, tool.name)) return [tool]
        const kept = verdict.tools.find((t) => t.serverId === tool.serverId && t.name === tool.name)
        return kept === undefined ? [] : [kept]
      })
    }
  }
}

/** Lists tools: transport, then the tools filter, then toolsListed hooks. */
export const listTools = (client: ClientState, serverId: string | undefined, options: OperationOptions | undefined) =>
  operation<ReadonlyArray<Tool>, HookFailed | TransportFailure>(
    "listTools",
    serverId ?? "*",
    "tools",
    (recorder) =>
      Effect.flatMap(client.transport.listTools(serverId), (listed) => {
        const ctx = hookContext(client, serverId ?? "*", options)
        const visible = client.policy.visible
        const visibleTools = client.hideDenied ? client.policy.visibleTools : undefined
        const exposed: ReadonlyArray<Tool> = listed.filter((tool) =>
          client.exposed(tool.serverId, tool.name) &&
          (!client.hideDenied || visibleTools !== undefined || visible === undefined || visible(tool, ctx))
        )
        const chain = (tools: ReadonlyArray<Tool>) =>
          SyncOrEffect.flatMap(
            runChain(client.env, recorder, client.byEvent.toolsListed, tools, () => listSpec(ctx)),
            (end) =>
              end._tag === "Failed"
                ? Effect.fail(new HookFailed({ hookId: end.hook.id, event: "toolsListed", kind: end.kind }))
                : Effect.succeed(end.state)
          )
        return visibleTools === undefined
          ? chain(exposed)
          : Effect.flatMap(operationVerdict(visibleTools(exposed, ctx), []), chain)
      })
  )

/** A policy answer that fails or dies becomes `failed` (fail closed). */
const operationVerdict = <A>(answer: Effect.Effect<A>, failed: A): Effect.Effect<A> =>
  Effect.map(Effect.exit(answer), (exit) => (exit._tag === "Success" ? exit.value : failed))

/**
 * A policy answer on a read or get, under the client's policy deadline: one that fails, dies or misses it is `failed`.
 */
const answerWithin = <A>(client: ClientState, answer: Effect.Effect<A>, failed: A): Effect.Effect<A> => {
  // An answer given at once (Cedar's is an Exit) costs no fiber and no timer.
  if (Exit.isExit(answer)) {
    const given = answer as Exit.Exit<A>
    return Effect.succeed(Exit.isSuccess(given) ? given.value : failed)
  }
  return Effect.map(
    runWithin(client.env.supervisor, answer, client.policyTimeoutMs),
    (exit) => (!isTimedOut(exit) && Exit.isSuccess(exit) ? exit.value : failed)
  )
}

const OPERATION_FAILED: PolicyDecision = { _tag: "Deny", reason: "the policy failed to decide" }

/**
 * The policy's decision on a read or get, when the policy decides those (`decideOperation`):
 * Allow passes; Deny, and Ask (approvals bind tool calls, not reads or gets), refuse.
 */
const decideOperation = (
  client: ClientState,
  operation: PolicyOperation,
  ctx: HookContext
): Effect.Effect<void, Denied> => {
  const decide = client.policy.decideOperation
  if (decide === undefined) return Effect.void
  return Effect.flatMap(
    answerWithin(client, decide(operation, ctx), OPERATION_FAILED),
    (decision) =>
      decision._tag === "Allow" ? Effect.void : Effect.fail(
        new Denied({
          reason: {
            _tag: "PolicyDenied",
            rule: decision.rule,
            message: decision._tag === "Deny"
              ? decision.reason
              : `approval is not available for this operation (${decision.reason})`
          }
        })
      )
  )
}

/**
 * The entries of a resource, template or prompt listing that the policy lets a host see: all of
 * them without `hideDenied` (as tools/list), else those whose read or get could be allowed. An
 * entry the policy fails or hangs on is hidden (fail closed).
 */
export const visibleOperations = <A>(
  client: ClientState,
  entries: ReadonlyArray<A>,
  operationOf: (entry: A) => PolicyOperation,
  options: OperationOptions | undefined
): Effect.Effect<ReadonlyArray<A>> => {
  const { decideOperation: decide } = client.policy
  const visible = client.policy.visibleOperation ??
    (decide === undefined
      ? undefined
      : (operation: PolicyOperation, ctx: HookContext) =>
        Effect.map(decide(operation, ctx), (decision) => decision._tag === "Allow"))
  if (!client.hideDenied || entries.length === 0 || visible === undefined) return Effect.succeed(entries)
  const shown = (operation: PolicyOperation): Effect.Effect<boolean> =>
    answerWithin(client, visible(operation, hookContext(client, operation.serverId, options)), false)
  return Effect.map(
    Effect.forEach(entries, (entry) => shown(operationOf(entry))),
    (kept) => entries.filter((_, i) => kept[i])
  )
}

const resourceSpec = (ctx: HookContext): ChainSpec<string> => ({
  event: "resourceRead",
  call: (run, uri) => run(uri, ctx),
  input: () => ({ event: "resourceRead" }),
  apply: (uri, verdict) => (verdict._tag === "Deny" ? STOP : uri)
})

/**
 * A URI can carry secrets (signed URLs, tokens in query strings), so telemetry names a resource by
 * a short digest of its URI, never by the URI itself.
 */
const uriLabel = (uri: string): string => `uri:${sha256Hex(uri).slice(0, 16)}`

/** The read's gate: its resourceRead hooks, then the policy. */
const readGate = (
  client: ClientState,
  recorder: Recorder,
  serverId: string,
  uri: string,
  options: OperationOptions | undefined
): Effect.Effect<void, Denied | HookFailed> =>
  // Suspended so that the chain runs inside the operation's span.
  Effect.suspend(() =>
    SyncOrEffect.flatMap(
      runChain(
        client.env,
        recorder,
        client.select("resourceRead", serverId, uri),
        uri,
        () => resourceSpec(hookContext(client, serverId, options))
      ),
      (end): Effect.Effect<void, Denied | HookFailed> => {
        const refused = refusal(end, "resourceRead")
        if (refused !== undefined) return Effect.fail(refused)
        return decideOperation(client, { _tag: "ReadResource", serverId, uri }, hookContext(client, serverId, options))
      }
    )
  )

/** Reads a resource through the resourceRead gate. */
export const readResource = (
  client: ClientState,
  serverId: string,
  uri: string,
  options: OperationOptions | undefined
) =>
  operation<ResourceContents, Denied | HookFailed | TransportFailure>(
    "readResource",
    serverId,
    uriLabel(uri),
    (recorder) =>
      Effect.andThen(readGate(client, recorder, serverId, uri, options), client.transport.readResource(serverId, uri))
  )

/** Decides a read of `uri` (hooks and policy) without reading: for a subscription, or a template's completion. */
export const decideRead = (
  client: ClientState,
  serverId: string,
  uri: string,
  options: OperationOptions | undefined
) =>
  operation<void, Denied | HookFailed>(
    "decideRead",
    serverId,
    uriLabel(uri),
    (recorder) => readGate(client, recorder, serverId, uri, options)
  )

const promptSpec = (name: string, ctx: HookContext): ChainSpec<JsonObject> => ({
  event: "promptGet",
  call: (run, args) => run(name, args, ctx),
  input: () => ({ event: "promptGet", name }),
  apply: (args, verdict) => (verdict._tag === "RewriteArgs" ? verdict.args : verdict._tag === "Deny" ? STOP : args)
})

/** The get's gate: its promptGet hooks (which may rewrite the arguments), then the policy; the final arguments. */
const promptGate = (
  client: ClientState,
  recorder: Recorder,
  serverId: string,
  name: string,
  args: JsonObject,
  options: OperationOptions | undefined
): Effect.Effect<JsonObject, Denied | HookFailed> =>
  // Suspended so that the chain runs inside the operation's span.
  Effect.suspend(() =>
    SyncOrEffect.flatMap(
      runChain(
        client.env,
        recorder,
        client.select("promptGet", serverId, name),
        args,
        () => promptSpec(name, hookContext(client, serverId, options))
      ),
      (end): Effect.Effect<JsonObject, Denied | HookFailed> => {
        const refused = refusal(end, "promptGet")
        if (refused !== undefined) return Effect.fail(refused)
        const decided = decideOperation(
          client,
          { _tag: "GetPrompt", serverId, name, args: end.state },
          hookContext(client, serverId, options)
        )
        return Effect.as(decided, end.state)
      }
    )
  )

/** Gets a prompt through the promptGet gate (which may rewrite its arguments). */
export const getPrompt = (
  client: ClientState,
  serverId: string,
  name: string,
  args: JsonObject,
  options: OperationOptions | undefined
) =>
  operation<PromptResult, Denied | HookFailed | TransportFailure>(
    "getPrompt",
    serverId,
    name,
    (recorder) =>
      Effect.flatMap(
        promptGate(client, recorder, serverId, name, args, options),
        (final) => client.transport.getPrompt(serverId, name, final)
      )
  )

/** Decides a get of prompt `name` with `args` (hooks and policy) without getting it: for a completion. */
export const decidePrompt = (
  client: ClientState,
  serverId: string,
  name: string,
  args: JsonObject,
  options: OperationOptions | undefined
) =>
  operation<void, Denied | HookFailed>(
    "decidePrompt",
    serverId,
    name,
    (recorder) => Effect.asVoid(promptGate(client, recorder, serverId, name, args, options))
  )
