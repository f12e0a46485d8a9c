/**
 * The callTool program, in the order DESIGN.md gives: 1. tools filter; 2. pre-hooks (onion order); 3. policy on
 * the final call, Ask -> Approvals; 4. the transport under the call's deadline; 5. post-hooks (reverse) on any
 * result, a failing one withholds it; 6. on an error, failure hooks (reverse): Recover ends the chain, a failing
 * one returns the original error. Every result and error carries a Receipt.
 */
import { Cause, type Duration, Effect, Exit, Tracer } from "effect"
import type { HookContext } from "../hooks/HookContext.ts"
import {
  type CallError,
  Denied,
  HookFailed,
  ProtocolError,
  Timeout,
  TransportError,
  type TransportFailure
} from "../model/Errors.ts"
import { toMillis } from "../model/Millis.ts"
import {
  type ApprovalRecord,
  type CallOutcome,
  type DetachedStep,
  type HookRun,
  makeReceipt,
  type PolicyRecord,
  type Receipt
} from "../model/Receipt.ts"
import type { Tool } from "../model/Tool.ts"
import type { ToolCall } from "../model/ToolCall.ts"
import { ToolResult, WITHHELD_TEXT } from "../model/ToolResult.ts"
import type { ApprovalOutcome } from "../policy/Approvals.ts"
import { decideAtOnce } from "../policy/Policy.ts"
import { deny as policyDeny, type PolicyDecision } from "../policy/PolicyDecision.ts"
import { now, recordCall, recordDetached, startSpan } from "../program/Telemetry.ts"
import type { CallInput, CallOptions } from "../program/ToolCalls.ts"
import { checkInput } from "./CallInputCheck.ts"
import { type ClientState, hookContext } from "./ClientState.ts"
import { type ChainSpec, type Recorder, refusal, runChain, STOP } from "./HookChain.ts"
import { isTimedOut, runWithin } from "./Supervisor.ts"
import * as SyncOrEffect from "./SyncOrEffect.ts"

/** The mutable record of one call, frozen into a Receipt when the call ends. */
interface Trail {
  call: ToolCall
  readonly runs: Array<HookRun>
  policy: PolicyRecord | undefined
  approval: ApprovalRecord | undefined
  sent: boolean
  toolChanged: boolean | undefined
  /** Steps that missed their deadline and were left running (rare: undefined until one is). */
  detached: Array<DetachedStep> | undefined
}

const preSpec = (ctx: HookContext): ChainSpec<ToolCall> => ({
  event: "preToolCall",
  call: (run, call) => run(call, ctx),
  input: (call) => ({ event: "preToolCall", call }),
  apply: (call, verdict) => (verdict._tag === "Rewrite" ? verdict.call : verdict._tag === "Continue" ? call : STOP)
})

const postSpec = (call: ToolCall, ctx: HookContext): ChainSpec<ToolResult> => ({
  event: "postToolCall",
  call: (run, result) => run(call, result, ctx),
  input: () => POST_INPUT,
  apply: (result, verdict) => (verdict._tag === "Replace" ? verdict.result : result)
})

const failedSpec = (call: ToolCall, ctx: HookContext): ChainSpec<CallError> => ({
  event: "toolCallFailed",
  call: (run, error) => run(call, error, ctx),
  input: () => FAILED_INPUT,
  apply: (error, verdict) => (verdict._tag === "Recover" ? STOP : error)
})

const POST_INPUT = { event: "postToolCall" } as const
const FAILED_INPUT = { event: "toolCallFailed" } as const
const POLICY_FAILED = policyDeny("the policy did not decide in time")
const NO_FACTS = {}

const millisOf = (input: Duration.Input | undefined, fallback: number): number => {
  if (input === undefined) return fallback
  const millis = toMillis(input)
  return millis >= 0 ? millis : fallback
}

const receiptOf = (trail: Trail, outcome: CallOutcome): Receipt => {
  const fields = {
    callId: trail.call.callId,
    serverId: trail.call.serverId,
    name: trail.call.name,
    hooks: trail.runs,
    policy: trail.policy,
    approval: trail.approval,
    sent: trail.sent,
    outcome,
    toolChanged: trail.toolChanged
  }
  // The key is there only when set: a receipt with nothing detached looks as it always did.
  return makeReceipt(trail.detached === undefined ? fields : { ...fields, detached: trail.detached }, trail.call)
}

/** Records, when `detached`, that a step of the call was left running past its deadline. */
const markDetached = (trail: Trail, detached: boolean, step: DetachedStep): Effect.Effect<void> =>
  Effect.withFiber((fiber) => {
    if (!detached) return Effect.void
    if (trail.detached === undefined) trail.detached = [step]
    else trail.detached.push(step)
    recordDetached(fiber, { operation: "callTool", step })
    return Effect.void
  })

const withReceipt = (error: CallError, receipt: Receipt): CallError => {
  switch (error._tag) {
    case "Denied":
      return new Denied({ reason: error.reason, receipt })
    case "HookFailed":
      return new HookFailed({ hookId: error.hookId, event: error.event, kind: error.kind, receipt })
    case "Timeout":
      return new Timeout({ millis: error.millis, receipt })
    case "TransportError":
      return new TransportError({ serverId: error.serverId, detail: error.detail, receipt })
    case "ProtocolError":
      return new ProtocolError({
        serverId: error.serverId,
        code: error.code,
        detail: error.detail,
        ...(error.requiredCapabilities === undefined ? {} : { requiredCapabilities: error.requiredCapabilities }),
        receipt
      })
  }
}

/** The policy's decision, once the transport has described the tool (at once, or when it has learned it). */
const decidePolicy = (
  client: ClientState,
  trail: Trail,
  call: ToolCall,
  ctx: HookContext
): SyncOrEffect.SyncOrEffect<PolicyDecision, TransportFailure> => {
  const described = client.transport.describeTool?.(call.serverId, call.name)
  return SyncOrEffect.isEffect(described)
    ? Effect.flatMap(described, (tool) => SyncOrEffect.toEffect(decideOn(client, trail, call, ctx, tool)))
    : decideOn(client, trail, call, ctx, described)
}

const decideOn = (
  client: ClientState,
  trail: Trail,
  call: ToolCall,
  ctx: HookContext,
  tool: Tool | undefined
): SyncOrEffect.SyncOrEffect<PolicyDecision> => {
  const facts = tool === undefined ? NO_FACTS : { tool }
  const policy = client.policy
  // A policy that answers at once (the built-ins do) costs no fiber and no timer.
  const atOnce = decideAtOnce(policy)
  if (atOnce !== undefined) return atOnce(call, ctx, facts)
  return Effect.flatMap(
    runWithin(client.env.supervisor, policy.decide(call, ctx, facts), client.policyTimeoutMs),
    (answer) =>
      !isTimedOut(answer)
        ? Effect.succeed(Exit.isSuccess(answer) ? answer.value : POLICY_FAILED)
        : Effect.as(markDetached(trail, answer.detached, "policy"), POLICY_FAILED)
  )
}

const classify = (call: ToolCall, exit: Exit.Exit<ToolResult, CallError>): Effect.Effect<ToolResult, CallError> => {
  if (Exit.isSuccess(exit)) return exit
  if (Cause.hasInterruptsOnly(exit.cause)) return Effect.interrupt
  const error = Cause.findErrorOption(exit.cause)
  // A transport defect is reported without its content: it may quote the request.
  return Effect.fail(
    error._tag === "Some"
      ? error.value
      : new TransportError({ serverId: call.serverId, detail: "the transport failed unexpectedly" })
  )
}

/**
 * The transport call under the call's deadline. A transport that enforces deadlines itself (an MCP
 * request timeout) gets the deadline and no second timer; otherwise the request runs in a
 * supervised fiber started at once, and only one that does not finish synchronously (a native tool
 * usually does) costs a timer. That deadline is hard: a request that does not yield to
 * interruption is detached at it (still supervised) and the call fails with Timeout all the same.
 * Interrupting the call interrupts the request.
 */
const sendCall = (
  client: ClientState,
  trail: Trail,
  call: ToolCall,
  options: CallOptions | undefined,
  span: Tracer.Span | undefined
): Effect.Effect<ToolResult, CallError> => {
  const millis = millisOf(options?.timeout, client.callTimeoutMs)
  let request: Effect.Effect<ToolResult, CallError> = client.transport.callTool(call, {
    onProgress: options?.onProgress,
    timeoutMs: millis
  })
  if (span !== undefined) request = Effect.provideService(request, Tracer.ParentSpan, span)
  if (client.transport.enforcesDeadline === true) {
    return Effect.flatMap(Effect.exit(request), (exit) => classify(call, exit))
  }
  return Effect.flatMap(runWithin(client.env.supervisor, request, millis), (exit) =>
    !isTimedOut(exit)
      ? classify(call, exit)
      : Effect.andThen(markDetached(trail, exit.detached, "request"), Effect.fail(new Timeout({ millis }))))
}

/** Puts the receipt's decisions (never arguments or results) on the call's span. */
const annotateReceipt = (span: Tracer.Span, trail: Trail): void => {
  span.attribute("interlock.hooks", trail.runs.length)
  span.attribute("interlock.sent", trail.sent)
  if (trail.policy !== undefined) {
    span.attribute("interlock.policy", trail.policy.decision)
    if (trail.policy.rule !== undefined) span.attribute("interlock.policy_rule", trail.policy.rule)
  }
  if (trail.approval !== undefined) {
    span.attribute("interlock.approval", `${trail.approval.decision}:${trail.approval.source}`)
  }
  if (trail.toolChanged === true) span.attribute("interlock.tool_changed", true)
  if (trail.detached !== undefined) span.attribute("interlock.detached", trail.detached.join(","))
}

/** One call in flight: what every step of the program reads, and the trail it writes. */
interface CallRun {
  readonly client: ClientState
  readonly trail: Trail
  readonly recorder: Recorder
  readonly ctx: HookContext
  readonly options: CallOptions | undefined
  /** Freezes the trail into the call's receipt, ending its span and recording its metrics. */
  readonly finish: (outcome: CallOutcome) => Receipt
}

/** Runs one governed tool call. */
export const callTool = (client: ClientState, input: CallInput, options: CallOptions | undefined) =>
  Effect.withFiber<ToolResult, CallError>((fiber) => {
    const { call, invalid } = checkInput(input)
    const start = now()
    const ctx = hookContext(client, call.serverId, options)
    const span = startSpan(fiber, "interlock.callTool", start, {
      "interlock.server": call.serverId,
      "interlock.tool": call.name,
      "interlock.call_id": call.callId
    })
    const trail: Trail = {
      call,
      runs: [],
      policy: undefined,
      approval: undefined,
      sent: false,
      toolChanged: client.transport.toolChanged?.(call.serverId, call.name),
      detached: undefined
    }
    const recorder: Recorder = { fiber, span, subject: call, runs: trail.runs }
    const finish = (outcome: CallOutcome) => {
      if (span !== undefined) annotateReceipt(span, trail)
      recordCall({ fiber, span, operation: "callTool", outcome, start, end: now() })
      return receiptOf(trail, outcome)
    }
    const run = program({ client, trail, recorder, ctx, options, finish }, invalid)
    // An interrupted call's span must still end; without a span there is nothing to close.
    return span === undefined
      ? run
      : Effect.onInterrupt(
        run,
        () =>
          Effect.sync(() =>
            recordCall({ fiber, span, operation: "callTool", outcome: "interrupted", start, end: now() })
          )
      )
  })

/** What the governed request answered: the transport's result, or a pre-hook's Halt result. */
interface Requested {
  readonly halted: boolean
  readonly result: ToolResult
}

// The steps are plain combinators rather than generators: they run on every call, and a step that
// answers at once (a chain of synchronous hooks, a built-in policy) continues without an Effect.
const program = (run: CallRun, invalid: ProtocolError | undefined): Effect.Effect<ToolResult, CallError> => {
  // Post and failure hooks are selected by the call as it came in.
  const first = run.trail.call
  return Effect.matchCauseEffect(invalid === undefined ? governedRequest(run) : Effect.fail(invalid), {
    onFailure: (cause) => {
      const error = Cause.findErrorOption(cause)
      return error._tag === "None" ? Effect.failCause(cause) : failedCall(run, first, error.value)
    },
    onSuccess: (requested) => answeredCall(run, first, requested)
  })
}

/** Step 5: post-hooks on the result, then its receipt; a failing post-hook withholds it. */
const answeredCall = (run: CallRun, call: ToolCall, { halted, result }: Requested): Effect.Effect<ToolResult> => {
  const { client, trail, ctx, finish } = run
  const posting = runChain(
    client.env,
    run.recorder,
    client.select("postToolCall", call.serverId, call.name),
    result,
    () => postSpec(trail.call, ctx)
  )
  return SyncOrEffect.flatMap(posting, (post) => {
    if (post._tag === "Failed") {
      return Effect.succeed(ToolResult.text(WITHHELD_TEXT, { isError: true }).withReceipt(finish("withheld")))
    }
    const outcome: CallOutcome = halted ? "halted" : post.state.isError === true ? "tool_error" : "ok"
    return Effect.succeed(post.state.withReceipt(finish(outcome)))
  })
}

/** Step 6: failure hooks on the error, where Recover answers with its result; else the error with its receipt. */
const failedCall = (run: CallRun, call: ToolCall, error: CallError): Effect.Effect<ToolResult, CallError> => {
  const { client, trail, ctx, finish } = run
  const failing = runChain(
    client.env,
    run.recorder,
    client.select("toolCallFailed", call.serverId, call.name),
    error,
    () => failedSpec(trail.call, ctx)
  )
  return SyncOrEffect.flatMap(failing, (failed) => {
    if (failed._tag === "Stopped" && failed.verdict._tag === "Recover") {
      return Effect.succeed(failed.verdict.result.withReceipt(finish("recovered")))
    }
    return Effect.fail(withReceipt(error, finish(error._tag === "Denied" ? "denied" : "failed")))
  })
}

/** Steps 1 to 4: filter, pre-hooks, policy and approvals, transport. */
const governedRequest = (run: CallRun): Effect.Effect<Requested, CallError> => {
  const { client, trail, ctx } = run
  const first = trail.call
  if (!client.exposed(first.serverId, first.name)) return Effect.fail(new Denied({ reason: { _tag: "NotExposed" } }))
  const preparing = runChain(
    client.env,
    run.recorder,
    client.select("preToolCall", first.serverId, first.name),
    first,
    () => preSpec(ctx)
  )
  return SyncOrEffect.flatMap(preparing, (pre): Effect.Effect<Requested, CallError> => {
    trail.call = pre.state
    if (pre._tag === "Stopped" && pre.verdict._tag === "Halt") {
      return Effect.succeed({ halted: true, result: pre.verdict.result })
    }
    const refused = refusal(pre, "preToolCall")
    if (refused !== undefined) return Effect.fail(refused)
    if (client.pinTools && trail.toolChanged === true) {
      trail.policy = { decision: "deny", rule: "pinTools" }
      return Effect.fail(
        new Denied({
          reason: {
            _tag: "PolicyDenied",
            rule: "pinTools",
            message: "the tool's definition changed since it was pinned"
          }
        })
      )
    }
    return SyncOrEffect.flatMap(decidePolicy(client, trail, pre.state, ctx), (decision) => decided(run, decision))
  })
}

/** Steps 3 (after the policy) and 4: approvals on an Ask, then the transport. */
const decided = (run: CallRun, decision: PolicyDecision): Effect.Effect<Requested, CallError> => {
  const trail = run.trail
  const call = trail.call
  trail.policy = {
    decision: decision._tag === "Allow" ? "allow" : decision._tag === "Deny" ? "deny" : "ask",
    rule: decision.rule
  }
  if (decision._tag === "Deny") {
    return Effect.fail(new Denied({ reason: { _tag: "PolicyDenied", rule: decision.rule, message: decision.reason } }))
  }
  if (decision._tag === "Allow") return send(run, call)
  return Effect.flatMap(
    run.client.approvals.request({ call, ctx: run.ctx, reason: decision.reason, rule: decision.rule }),
    (approval: ApprovalOutcome) => {
      trail.approval = {
        decision: approval.decision,
        source: approval.source,
        ...(approval.by === undefined ? {} : { by: approval.by })
      }
      if (approval.decision !== "allow") {
        return Effect.fail(new Denied({ reason: { _tag: "ApprovalDenied", message: approval.reason } }))
      }
      return send(run, call)
    }
  )
}

/** Step 4: the request goes to the transport. */
const send = (run: CallRun, call: ToolCall): Effect.Effect<Requested, CallError> => {
  run.trail.sent = true
  return Effect.map(
    sendCall(run.client, run.trail, call, run.options, run.recorder.span),
    (result) => ({ halted: false, result })
  )
}
