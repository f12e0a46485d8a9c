/** The options of an agent, and their validation (a ConfigError names the option at fault). */
import {
  type Approvals,
  ConfigError,
  type HooksConfig,
  type NativeTool,
  type Policy,
  type ToolTransport
} from "@interlock/core"
import { Duration, Layer, Redacted } from "effect"
import type { LanguageModel } from "effect/ai"
import { isAgentEvent } from "./AgentEvent.ts"
import type { AgentHooksConfig } from "./AgentHookConfig.ts"
import type { CompactionOptions } from "./CompactionOptions.ts"
import type { MetricsSink } from "./Metrics.ts"
import { millisOf, type OnError, type RetryOptions, type RetryPolicy } from "./Resilience.ts"
import { ephemeralKey, MIN_KEY_LENGTH, type StateKey } from "./RunStateSeal.ts"

/** Tool-level (core) and model-level hooks, in one config. */
export type AgentHooks = HooksConfig & AgentHooksConfig

/**
 * The Layers an agent is given, each with its own error and requirement types. Only `policy` is
 * required: there is no implicit allow.
 */
export interface AgentLayers {
  /** Native Effect tools (served as server "local"), or a ToolTransport Layer such as an MCP hub's. */
  readonly tools?: ReadonlyArray<NativeTool.NativeTool<any>> | Layer.Layer<ToolTransport, any, any> | undefined
  /**
   * A LanguageModel Layer (OpenAiChat.layer, AnthropicMessages.layer, any effect/ai provider); default the one in
   * context.
   */
  readonly model?: Layer.Layer<any, any, any> | undefined
  /** The only allow authority for tool calls. */
  readonly policy: Layer.Layer<Policy, any, any>
  /** Answers the policy's Ask. Without one, an Ask suspends the run (status pending) for `resume`. */
  readonly approvals?: Layer.Layer<Approvals, any, any> | undefined
}

/** Layers that need nothing and cannot fail: the default of {@link AgentOptions}. */
export interface PlainLayers {
  readonly tools?: ReadonlyArray<NativeTool.NativeTool> | Layer.Layer<ToolTransport> | undefined
  readonly model?: Layer.Layer<LanguageModel.LanguageModel> | undefined
  readonly policy: Layer.Layer<Policy>
  readonly approvals?: Layer.Layer<Approvals> | undefined
}

/** The settings of an agent besides its Layers. */
export interface AgentSettings {
  /** The agent's name (hooks see it; subagents are named by it); default "main". */
  readonly name?: string
  /** A system message put first in every run. */
  readonly system?: string
  /** Model requests per run; default 10. */
  readonly maxTurns?: number
  /** Tool calls of one turn that run at once; default 8. */
  readonly concurrency?: number
  /** Core's tool-level hooks (preToolCall, postToolCall...) and the model-level ones (beforeModel, stop...). */
  readonly hooks?: AgentHooks
  /** Deadline of each hook; default 5 s. */
  readonly hookTimeout?: Duration.Input
  /** Deadline of each tool call; default 60 s. */
  readonly callTimeout?: Duration.Input
  /** Deadline of a whole run; when it passes, the run ends with status timeout. */
  readonly deadline?: Duration.Input
  /** Retries of failed model requests (429, 5xx, network): exponential backoff with jitter. */
  readonly retry?: RetryOptions
  /** Decides, for each failed model request, whether to retry (capped by retries) or fail. */
  readonly onError?: OnError
  /** Receives llm, tool and run metric events (observe-only). */
  readonly metrics?: MetricsSink
  /** Compacts the history when it grows past `maxMessages` (preCompact hooks run first). */
  readonly compaction?: CompactionOptions
  /**
   * Seals suspended states (HMAC-SHA256); `resume` refuses a state it does not verify. At least 32
   * characters, typically from a secret manager. Default: a random key of this agent only.
   */
  readonly stateKey?: StateKey
}

/** Options of an agent: its Layers (`L`, whose types the agent's error and requirements come from) and its settings. */
export type AgentOptions<L extends AgentLayers = PlainLayers> = L & AgentSettings

type LayerError<L> = L extends Layer.Layer<infer _A, infer E, infer _R> ? E : never
type LayerServices<L> = L extends Layer.Layer<infer _A, infer _E, infer R> ? R : never
type ToolServices<T> = T extends ReadonlyArray<NativeTool.NativeTool<infer R>> ? R : LayerServices<T>

/** What building an agent from these options may fail with, besides a ConfigError. */
export type LayersError<O extends AgentLayers> =
  | LayerError<O["policy"]>
  | LayerError<O["approvals"]>
  | LayerError<O["tools"]>
  | LayerError<O["model"]>

/** What an agent needs from its context for its model: the LanguageModel when `model` is not given. */
export type ModelNeeded<O extends AgentLayers> = O extends { readonly model: Layer.Layer<any, any, any> } ? never
  : LanguageModel.LanguageModel

/** What building an agent from these options needs from its context, besides a Scope. */
export type LayersServices<O extends AgentLayers> =
  | LayerServices<O["policy"]>
  | LayerServices<O["approvals"]>
  | ToolServices<O["tools"]>
  | LayerServices<O["model"]>
  | ModelNeeded<O>

/** Options checked and resolved. */
export interface Resolved {
  readonly _tag: "Resolved"
  readonly name: string
  readonly maxTurns: number
  readonly concurrency: number
  readonly hookTimeoutMs: number
  readonly deadlineMs: number | undefined
  readonly retry: RetryPolicy
  readonly agentHooks: Record<string, unknown>
  readonly coreHooks: HooksConfig
  readonly stateKey: StateKey
}

const positiveInt = (value: unknown, fallback: number): number | undefined =>
  value === undefined ? fallback : Number.isSafeInteger(value) && (value as number) > 0 ? (value as number) : undefined

/** Checks the options; returns the resolved settings or a ConfigError naming the option. */
export const resolveOptions = (options: AgentOptions<AgentLayers>): Resolved | ConfigError => {
  const error = (path: string, detail: string) => new ConfigError({ path: `agent.${path}`, detail })
  if (typeof options !== "object" || options === null) return error("options", "must be an object")
  if (!Layer.isLayer(options.policy)) {
    return error("policy", "is required: a Policy Layer such as Policy.rules({ ... }) (there is no implicit allow)")
  }
  if (options.tools !== undefined && !Array.isArray(options.tools) && !Layer.isLayer(options.tools)) {
    return error("tools", "must be an array of native tools or a ToolTransport Layer")
  }
  if (options.model !== undefined && !Layer.isLayer(options.model)) {
    return error("model", "must be a LanguageModel Layer")
  }
  if (options.approvals !== undefined && !Layer.isLayer(options.approvals)) {
    return error("approvals", "must be an Approvals Layer")
  }
  const name = options.name ?? "main"
  if (typeof name !== "string" || name.length === 0) return error("name", "must be a non-empty string")
  if (options.system !== undefined && typeof options.system !== "string") return error("system", "must be a string")
  const maxTurns = positiveInt(options.maxTurns, 10)
  if (maxTurns === undefined) return error("maxTurns", "must be a positive integer")
  const concurrency = positiveInt(options.concurrency, 8)
  if (concurrency === undefined) return error("concurrency", "must be a positive integer")
  const hookTimeoutMs = millisOf(options.hookTimeout, 5_000)
  if (hookTimeoutMs === undefined || hookTimeoutMs === 0) {
    return error("hookTimeout", "must be a positive, finite duration")
  }
  const deadlineMs = options.deadline === undefined ? undefined : millisOf(options.deadline, 0)
  if (options.deadline !== undefined && deadlineMs === undefined) {
    return error("deadline", "must be a finite, non-negative duration")
  }
  const retry = options.retry ?? {}
  if (typeof retry !== "object" || retry === null) return error("retry", "must be an object")
  const retries = retry.retries ?? 2
  if (!Number.isSafeInteger(retries) || retries < 0) return error("retry.retries", "must be a non-negative integer")
  const baseMs = millisOf(retry.base, 500)
  if (baseMs === undefined || baseMs === 0) return error("retry.base", "must be a positive, finite duration")
  const maxDelayMs = millisOf(retry.maxDelay, 30_000)
  if (maxDelayMs === undefined) return error("retry.maxDelay", "must be a finite, non-negative duration")
  if (options.onError !== undefined && typeof options.onError !== "function") {
    return error("onError", "must be a function (info) => \"retry\" | \"fail\"")
  }
  if (options.metrics !== undefined && typeof options.metrics !== "function") {
    return error("metrics", "must be a function (event) => void")
  }
  const compaction = options.compaction
  if (compaction !== undefined) {
    if (typeof compaction !== "object" || compaction === null) return error("compaction", "must be an object")
    if (positiveInt(compaction.maxMessages, 0) === undefined || compaction.maxMessages === undefined) {
      return error("compaction.maxMessages", "must be a positive integer")
    }
    if (compaction.compact !== undefined && typeof compaction.compact !== "function") {
      return error("compaction.compact", "must be a function")
    }
  }
  const stateKey = options.stateKey ?? ephemeralKey()
  if (
    !Redacted.isRedacted(stateKey) || typeof Redacted.value(stateKey) !== "string" ||
    Redacted.value(stateKey).length < MIN_KEY_LENGTH
  ) {
    return error("stateKey", `must be a Redacted string of at least ${MIN_KEY_LENGTH} characters`)
  }
  const hooks = options.hooks ?? {}
  if (typeof hooks !== "object" || hooks === null || Array.isArray(hooks)) {
    return error("hooks", "must be an object of hook lists by event")
  }
  const agentHooks: Record<string, unknown> = {}
  const coreHooks: Record<string, unknown> = {}
  for (const [event, entries] of Object.entries(hooks)) {
    if (isAgentEvent(event)) agentHooks[event] = entries
    else coreHooks[event] = entries
  }
  return {
    _tag: "Resolved",
    name,
    maxTurns,
    concurrency,
    hookTimeoutMs,
    deadlineMs,
    retry: { retries, baseMs, maxDelayMs, onError: options.onError },
    agentHooks,
    coreHooks: coreHooks as HooksConfig,
    stateKey
  }
}

/** The hook timeout as the Duration core expects. */
export const hookTimeoutOf = (resolved: Resolved): Duration.Duration => Duration.millis(resolved.hookTimeoutMs)
