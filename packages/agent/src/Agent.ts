/**
 * The agent: a language model proposes tool calls, and Interlock runs each one through core's pipeline
 * (hooks, policy, approvals, receipts). `Agent.make` builds a reusable agent in a scope; `Agent.run` is the
 * one-shot form:
 *   const result = yield* Agent.run("What is 1 + 1?", { tools: [add], policy: Policy.allowAll, model })
 */
import {
  Approvals,
  ConfigError,
  Hooks,
  Interlock,
  NativeTool,
  ToolCalls,
  ToolResult,
  ToolTransport
} from "@interlock/core"
import { Context, Effect, Layer, Option, Schema, type Scope, Stream } from "effect"
import { LanguageModel, Model } from "effect/ai"
import type { InvalidRunState, UntrustedRunState } from "./AgentErrors.ts"
import { compileAgentHooks } from "./AgentHooks.ts"
import {
  type AgentLayers,
  type AgentOptions,
  hookTimeoutOf,
  type LayersError,
  type LayersServices,
  resolveOptions
} from "./AgentOptions.ts"
import { type AgentRuns, makeRuns, type ResumeDecision } from "./AgentRuns.ts"
import { watchTransport } from "./CallWatch.ts"
import type { RunOptions } from "./RunReport.ts"
import type { RunResult } from "./RunResult.ts"
import type { RunState } from "./RunState.ts"
import type { StreamEvent } from "./StreamEvent.ts"

export type { LayersError, LayersServices, ModelNeeded } from "./AgentOptions.ts"
export type { ResumeDecision } from "./AgentRuns.ts"
export type { RunOptions } from "./RunReport.ts"

/** A built agent. */
export interface Agent extends AgentRuns {
  readonly name: string
  readonly model: string
  /** Runs the loop on a prompt: the fold of `stream`'s events (the model's answers come whole). */
  readonly run: (prompt: string, options?: RunOptions) => Effect.Effect<RunResult>
  /**
   * Runs the loop on a prompt as a Stream of its events, the RunResult last. The model's answers
   * stream; stopping the stream (or its signal, or interrupting its fiber) cancels the run and
   * closes the model request.
   */
  readonly stream: (prompt: string, options?: RunOptions) => Stream.Stream<StreamEvent>
  /**
   * Continues a suspended run: approved calls run once, bound to the digest they were suspended
   * with (an edited call needs a new approval); denied ones answer the model with the denial.
   * A state this agent did not seal (edited, or sealed with another stateKey) is refused before anything runs.
   */
  readonly resume: (
    state: RunState,
    decision: ResumeDecision,
    options?: RunOptions
  ) => Effect.Effect<RunResult, InvalidRunState | UntrustedRunState>
}

// Array.isArray does not narrow a ReadonlyArray out of a union.
const isToolList = (tools: NonNullable<AgentLayers["tools"]>): tools is ReadonlyArray<NativeTool.NativeTool<any>> =>
  Array.isArray(tools)

/** The agent's model and its name: from the `model` Layer when given, else from the context. */
const modelOf = (model: Layer.Layer<any, any, any> | undefined) =>
  Effect.gen(function*() {
    // The Layer's output is whatever provider the caller gave; the agent reads only these two services from it.
    const context: Context.Context<LanguageModel.LanguageModel | Model.ModelName> | undefined = model === undefined
      ? undefined
      : yield* Layer.build(model)
    const lm = context === undefined
      ? yield* LanguageModel.LanguageModel
      : Context.get(context, LanguageModel.LanguageModel)
    const name = (context === undefined ? undefined : Context.getOrUndefined(context, Model.ModelName)) ??
      Option.getOrElse(yield* Effect.serviceOption(Model.ModelName), () => "unknown")
    return { lm, name }
  })

/** The agent's transport, watched: a run sees which of its calls reached the tool (CallWatch.ts). */
const watched = <E, R>(transport: Layer.Layer<ToolTransport, E, R>) =>
  Layer.effect(ToolTransport, Effect.map(Effect.service(ToolTransport), watchTransport)).pipe(
    Layer.provide(transport)
  )

/**
 * Builds an agent in the current scope: compiles its hooks, builds core's ToolCalls over its tools
 * (Approvals.none when no approver is given: an Ask then suspends the run), and its model.
 */
export const make = <O extends AgentOptions<AgentLayers>>(
  options: O,
  subagent = false
): Effect.Effect<Agent, ConfigError | LayersError<O>, Scope.Scope | LayersServices<O>> =>
  Effect.gen(function*() {
    const resolved = resolveOptions(options)
    if (resolved._tag === "ConfigError") return yield* resolved
    const hooks = compileAgentHooks(resolved.agentHooks)
    if (hooks instanceof ConfigError) return yield* hooks
    const tools = options.tools
    const transport = tools === undefined
      ? ToolTransport.fromTools([])
      : isToolList(tools)
      ? ToolTransport.fromTools(tools)
      : tools
    const callsLayer = Interlock.layerFromServices({
      client: resolved.name,
      hookTimeout: hookTimeoutOf(resolved),
      callTimeout: options.callTimeout
    }).pipe(
      Layer.provideMerge(options.approvals ?? Approvals.none),
      Layer.provide(Layer.mergeAll(Hooks.layer(resolved.coreHooks), options.policy, watched(transport)))
    )
    const services = yield* Layer.build(callsLayer)
    const model = yield* modelOf(options.model)
    const runs = makeRuns({
      resolved,
      settings: options,
      suspend: options.approvals === undefined,
      subagent,
      lm: model.lm,
      modelName: model.name,
      toolCalls: Context.get(services, ToolCalls),
      grants: Context.get(services, Approvals),
      hooks
    })
    const agent: Agent = { name: resolved.name, model: model.name, ...runs }
    return agent
  })

/** Builds an agent and runs one prompt (the agent's services live for this run only). */
export const run = <O extends AgentOptions<AgentLayers>>(prompt: string, options: O & RunOptions) =>
  Effect.scoped(Effect.flatMap(make(options), (agent) => agent.run(prompt, options)))

/**
 * Builds an agent and streams one run of a prompt (the agent's services live as long as the stream):
 *   Agent.stream("hi", { model, policy }).pipe(Stream.runForEach((event) => ...))
 */
export const stream = <O extends AgentOptions<AgentLayers>>(
  prompt: string,
  options: O & RunOptions
): Stream.Stream<StreamEvent, ConfigError | LayersError<O>, LayersServices<O>> =>
  Stream.unwrap(Effect.map(make(options), (agent) => agent.stream(prompt, options)))

/** Builds an agent and resumes a suspended run with a decision; needs the `stateKey` that sealed the state. */
export const resume = <O extends AgentOptions<AgentLayers>>(
  state: RunState,
  decision: ResumeDecision,
  options: O & RunOptions
) =>
  // A new agent without a shared key seals with a random one of its own and could never check the state.
  options.stateKey === undefined
    ? Effect.fail(
      new ConfigError({
        path: "stateKey",
        detail: "Agent.resume builds a new agent, which can check a state only under the stateKey that sealed it: " +
          "pass that key"
      })
    )
    : Effect.scoped(Effect.flatMap(make(options), (agent) => agent.resume(state, decision, options)))

/**
 * An agent used as a tool by another agent (a subagent). Its argument is `{ prompt }`; its hooks
 * see subagentStart before it runs and subagentStop (instead of stop) when it would end. Its
 * answer is its final text; any other end is an isError result naming the status.
 */
export const asTool = <O extends AgentOptions<AgentLayers>>(
  options: O & { readonly name: string; readonly description?: string }
) =>
  NativeTool.make({
    name: options.name,
    description: options.description ?? `Runs the ${options.name} agent on a prompt`,
    parameters: Schema.Struct({ prompt: Schema.String }),
    run: ({ prompt }) =>
      Effect.scoped(Effect.flatMap(make(options, true), (agent) => agent.run(prompt))).pipe(
        Effect.map((result) =>
          result.status === "done"
            ? result.text
            : ToolResult.text(
              `subagent ${options.name} ended with status ${result.status}${
                result.error === undefined ? "" : `: ${result.error.message}`
              }`,
              { isError: true }
            )
        )
      )
  })
