/**
 * The agent: a language model proposes tool calls, and Interlock runs each one through core's
 * pipeline (hooks, policy, approvals, receipts). `Agent.make` builds a reusable agent in a scope;
 * `Agent.run` is the one-shot form.
 *
 *   const result = yield* Agent.run("What is 1 + 1?", { tools: [add], policy: Policy.allowAll, model })
 */
import { Context, Effect, Layer, Option, Schema, type Scope } from "effect"
import { Approvals, ConfigError, Hooks, Interlock, NativeTool, ToolCalls, ToolResult, ToolTransport } from "@interlock/core"
import { LanguageModel, Model, Prompt } from "effect/ai"
import { InvalidRunState, type UntrustedRunState } from "./AgentErrors.ts"
import { compileAgentHooks } from "./AgentHooks.ts"
import { runEvent, STOP } from "./AgentHookRunner.ts"
import { type AgentOptions, hookTimeoutOf, resolveOptions } from "./AgentOptions.ts"
import { AgentToolCall, Usage } from "./AgentToolCall.ts"
import { type Catalog, catalogCache, makeCatalog } from "./Catalog.ts"
import { runTurns, settleTurn, userText } from "./Loop.ts"
import { emit } from "./Metrics.ts"
import { type End, guardEnd, hookEnv, type LoopEnv, type Progress } from "./RunContext.ts"
import { RunResult } from "./RunResult.ts"
import { PendingCall, type RunState } from "./RunState.ts"
import * as RunStateSeal from "./RunStateSeal.ts"
import { trusted } from "./Trusted.ts"
import { type ExecEnv, execCall, requestDigest, type Slot } from "./ToolExec.ts"

/** Per-run options. */
export interface RunOptions {
  /** Aborting it interrupts the model request and the tools in flight; the run ends with status interrupted. */
  readonly signal?: AbortSignal | undefined
}

/** The decision for a suspended run's pending calls: for all of them, or by call id (missing ids are denied). */
export type ResumeDecision = "approve" | "deny" | Readonly<Record<string, "approve" | "deny">>

/** A built agent. */
export interface Agent {
  readonly name: string
  readonly model: string
  /** Runs the loop on a prompt. */
  readonly run: (prompt: string, options?: RunOptions) => Effect.Effect<RunResult>
  /**
   * Continues a suspended run: approved calls run once, bound to the digest they were suspended
   * with (an edited call needs a new approval); denied ones answer the model with the denial.
   * A state this agent did not seal (edited, or sealed with another stateKey) is refused before anything runs.
   */
  readonly resume: (state: RunState, decision: ResumeDecision, options?: RunOptions) => Effect.Effect<RunResult, InvalidRunState | UntrustedRunState>
}

declare const NoModelId: unique symbol

/** The type of an omitted `model` option: the agent then takes the LanguageModel from its context. */
export type NoModel = typeof NoModelId

/** What an agent needs from its context for its model: nothing when `model` is given. */
export type ModelNeeded<MO> = [MO] extends [NoModel] ? LanguageModel.LanguageModel : never

const TIMEOUT = (ms: number): End => ({ status: "timeout", limit: { kind: "deadline", value: ms } })
const INTERRUPTED: End = { status: "interrupted" }

const aborted = (signal: AbortSignal): Effect.Effect<void> =>
  Effect.callback<void>((resume) => {
    if (signal.aborted) return resume(Effect.void)
    const onAbort = () => resume(Effect.void)
    signal.addEventListener("abort", onAbort, { once: true })
    return Effect.sync(() => signal.removeEventListener("abort", onAbort))
  })

/**
 * Builds an agent in the current scope: compiles its hooks, builds core's ToolCalls over its tools
 * (Approvals.none when no approver is given: an Ask then suspends the run), and its model.
 */
export const make = <PE = never, PR = never, AE = never, AR = never, TE = never, TR = never, ME = never, MR = never, MO = NoModel>(
  options: AgentOptions<PE, PR, AE, AR, TE, TR, ME, MR, MO>,
  subagent = false
): Effect.Effect<Agent, ConfigError | PE | AE | TE | ME, Scope.Scope | PR | AR | TR | MR | ModelNeeded<MO>> =>
  (Effect.gen(function*() {
    const resolved = resolveOptions(options)
    if (!("maxTurns" in resolved)) return yield* resolved
    const hooks = compileAgentHooks(resolved.agentHooks)
    if (!("beforeModel" in hooks)) return yield* hooks
    const transport = options.tools === undefined
      ? ToolTransport.fromTools([])
      : Array.isArray(options.tools) ? ToolTransport.fromTools(options.tools) : options.tools as Layer.Layer<ToolTransport, TE, TR>
    const approvals = (options.approvals ?? Approvals.none) as Layer.Layer<Approvals, AE, AR>
    const callsLayer = Interlock.layerFromServices({ client: resolved.name, hookTimeout: hookTimeoutOf(resolved), callTimeout: options.callTimeout }).pipe(
      Layer.provideMerge(approvals),
      Layer.provide(Layer.mergeAll(Hooks.layer(resolved.coreHooks) as Layer.Layer<Hooks, ConfigError>, options.policy, transport))
    )
    const services = yield* Layer.build(callsLayer)
    const modelContext = options.model === undefined
      ? undefined
      : (yield* Layer.build(options.model)) as unknown as Context.Context<LanguageModel.LanguageModel | Model.ModelName>
    const lm = modelContext === undefined ? yield* LanguageModel.LanguageModel : Context.get(modelContext, LanguageModel.LanguageModel)
    const modelName = (modelContext === undefined ? undefined : Context.getOrUndefined(modelContext, Model.ModelName)) ??
      Option.getOrElse(yield* Effect.serviceOption(Model.ModelName), () => "unknown")
    const toolCalls = Context.get(services, ToolCalls)
    const grants = Context.get(services, Approvals)
    const system = options.system === undefined ? [] : [Prompt.systemMessage({ content: options.system })]
    const catalogOf = catalogCache()

    const envs = new WeakMap<Catalog, LoopEnv>()
    const loopEnv = (catalog: Catalog): LoopEnv => {
      const cached = envs.get(catalog)
      if (cached !== undefined) return cached
      const exec: ExecEnv = { toolCalls, catalog, suspend: options.approvals === undefined, concurrency: resolved.concurrency, metrics: options.metrics }
      const env: LoopEnv = {
        lm,
        model: modelName,
        agentName: resolved.name,
        stopEvent: subagent ? "subagentStop" : "stop",
        maxTurns: resolved.maxTurns,
        exec,
        hooks,
        hookTimeoutMs: resolved.hookTimeoutMs,
        retry: resolved.retry,
        metrics: options.metrics,
        compaction: options.compaction
      }
      envs.set(catalog, env)
      return env
    }

    const progressOf = (messages: Array<Prompt.Message>, catalog: Catalog): Progress => ({
      messages,
      tools: catalog.tools,
      turns: 0,
      usage: { inputTokens: 0, outputTokens: 0 },
      toolCalls: [],
      text: "",
      stopHookActive: false,
      hookRuns: []
    })

    /** Runs `body` under the deadline and the signal, then reports the run. */
    const finish = (progress: Progress, body: Effect.Effect<End>, runOptions: RunOptions | undefined) =>
      Effect.clockWith((clock) => {
        const start = clock.currentTimeMillisUnsafe()
        const deadline = resolved.deadlineMs
        let guarded = body
        if (deadline !== undefined) {
          guarded = deadline <= 0
            ? Effect.succeed(TIMEOUT(deadline))
            : Effect.map(Effect.timeoutOption(body, deadline), (end) => (end._tag === "Some" ? end.value : TIMEOUT(deadline)))
        }
        const signal = runOptions?.signal
        if (signal !== undefined) guarded = Effect.raceFirst(guarded, Effect.as(aborted(signal), INTERRUPTED))
        // A state that cannot be sealed (it always can: the loop built it) goes out unsealed, and resume refuses it.
        const sealed = (state: RunState | undefined) =>
          state === undefined ? Effect.succeed(undefined) : Effect.orElseSucceed(RunStateSeal.seal(resolved.stateKey, state), () => state)
        return Effect.flatMap(guarded, (end) => Effect.map(sealed(end.state), (state) => {
          const durationMs = clock.currentTimeMillisUnsafe() - start
          const usage = { ...progress.usage, totalTokens: progress.usage.inputTokens + progress.usage.outputTokens }
          emit(options.metrics, { type: "run", model: modelName, status: end.status, turns: progress.turns, toolCalls: progress.toolCalls.length, durationMs, ...usage })
          return trusted(RunResult, {
            status: end.status,
            text: end.status === "done" ? progress.text : "",
            messages: progress.messages,
            toolCalls: progress.toolCalls,
            toolCallCount: progress.toolCalls.length,
            turns: progress.turns,
            usage: trusted(Usage, usage),
            model: modelName,
            limit: end.limit,
            error: end.error,
            state,
            hooks: progress.hookRuns
          })
        }))
      })

    /** Lists the governed tools; a listing failure ends the run with status error. */
    const withCatalog = <E>(use: (catalog: Catalog) => Effect.Effect<RunResult, E>): Effect.Effect<RunResult, E> =>
      Effect.flatMap(Effect.result(toolCalls.listTools()), (listed) => {
        if (listed._tag === "Success") return use(catalogOf(listed.success))
        const progress = progressOf([], makeCatalog([]))
        return finish(progress, Effect.succeed({ status: "error", error: listed.failure }), undefined)
      })

    const run = (prompt: string, runOptions?: RunOptions): Effect.Effect<RunResult> =>
      withCatalog((catalog) => {
        const env = loopEnv(catalog)
        const progress = progressOf([...system, userText(prompt)], catalog)
        const event = subagent ? "subagentStart" : "userPromptSubmit"
        const input = subagent ? { agent: resolved.name, prompt } : { prompt, messages: progress.messages }
        const submitted = runEvent(hookEnv(env, progress), event, {
          input: () => input,
          apply: (notes: ReadonlyArray<string>, verdict) => (verdict._tag === "AddContext" ? [...notes, verdict.text] : verdict._tag === "Continue" ? notes : STOP)
        }, [] as ReadonlyArray<string>)
        const start = Effect.flatMap(submitted, (end): Effect.Effect<End> => {
          if (end._tag !== "Done") return Effect.succeed(guardEnd(event, end) ?? { status: "error" })
          const notes = end.state.map((text) => Prompt.systemMessage({ content: text }))
          progress.messages.splice(progress.messages.length - 1, 0, ...notes)
          return runTurns(env, progress)
        })
        return finish(progress, start, runOptions)
      })

    const resume = (given: RunState, decision: ResumeDecision, runOptions?: RunOptions) =>
      Effect.flatMap(RunStateSeal.verify(resolved.stateKey, given), (state) => withCatalog((catalog) => {
        if (state.version !== 1 || !Array.isArray(state.slots)) return Effect.fail(new InvalidRunState({ detail: "not a run state of this version" }))
        const env = loopEnv(catalog)
        const tools = state.tools.flatMap((name) => catalog.byName.get(name) ?? [])
        const progress: Progress = {
          ...progressOf([...state.messages], catalog),
          tools,
          turns: state.turns,
          usage: { inputTokens: state.inputTokens, outputTokens: state.outputTokens },
          toolCalls: [...state.toolCalls],
          stopHookActive: state.stopHookActive
        }
        const active = new Set(tools.map((tool) => tool.name))
        const turn = state.turns - 1
        const answer = (slot: RunState["slots"][number]): Effect.Effect<Slot> => {
          if (!(slot instanceof PendingCall)) {
            const call = new AgentToolCall({ id: slot.id, name: slot.name, args: null, output: slot.output, isError: slot.isError, turn })
            return Effect.succeed({ _tag: "settled", call, recorded: true })
          }
          const verdict = typeof decision === "string" ? decision : decision[slot.id] ?? "deny"
          if (verdict !== "approve") {
            const call = new AgentToolCall({ id: slot.id, name: slot.name, args: slot.args, output: "approval denied: the call was refused on resume", isError: true, turn })
            return Effect.succeed({ _tag: "settled", call })
          }
          // The grant is bound to the digest the call was suspended with; an edited call no longer matches it.
          const untouched = requestDigest(slot.serverId, slot.toolName, slot.args) === slot.requestDigest
          const grant = untouched ? grants.grant(slot.digest) : Effect.void
          return Effect.andThen(grant, execCall(env.exec, active, { id: slot.id, name: slot.name, params: slot.args }, turn))
        }
        const body = Effect.gen(function*() {
          const slots = yield* Effect.forEach(state.slots, answer, { concurrency: resolved.concurrency })
          const end = yield* settleTurn(env, progress, slots)
          return end ?? (yield* runTurns(env, progress))
        })
        return finish(progress, body, runOptions)
      }))

    const agent: Agent = { name: resolved.name, model: modelName, run, resume }
    return agent
  }) as Effect.Effect<Agent, any, any>)

/** Builds an agent and runs one prompt (the agent's services live for this run only). */
export const run = <PE = never, PR = never, AE = never, AR = never, TE = never, TR = never, ME = never, MR = never, MO = NoModel>(
  prompt: string,
  options: AgentOptions<PE, PR, AE, AR, TE, TR, ME, MR, MO> & RunOptions
) => Effect.scoped(Effect.flatMap(make(options), (agent) => agent.run(prompt, options)))

/** Builds an agent and resumes a suspended run with a decision; needs the `stateKey` that sealed the state. */
export const resume = <PE = never, PR = never, AE = never, AR = never, TE = never, TR = never, ME = never, MR = never, MO = NoModel>(
  state: RunState,
  decision: ResumeDecision,
  options: AgentOptions<PE, PR, AE, AR, TE, TR, ME, MR, MO> & RunOptions
) =>
  // A new agent without a shared key seals with a random one of its own and could never check the state.
  options.stateKey === undefined
    ? Effect.fail(new ConfigError({ path: "stateKey", detail: "Agent.resume builds a new agent, which can check a state only under the stateKey that sealed it: pass that key" }))
    : Effect.scoped(Effect.flatMap(make(options), (agent) => agent.resume(state, decision, options)))

/**
 * An agent used as a tool by another agent (a subagent). Its argument is `{ prompt }`; its hooks
 * see subagentStart before it runs and subagentStop (instead of stop) when it would end. Its
 * answer is its final text; any other end is an isError result naming the status.
 */
export const asTool = <PE = never, PR = never, AE = never, AR = never, TE = never, TR = never, ME = never, MR = never, MO = NoModel>(
  options: AgentOptions<PE, PR, AE, AR, TE, TR, ME, MR, MO> & { readonly name: string; readonly description?: string }
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
            : ToolResult.text(`subagent ${options.name} ended with status ${result.status}${result.error === undefined ? "" : `: ${result.error.message}`}`, { isError: true })
        )
      )
  })
