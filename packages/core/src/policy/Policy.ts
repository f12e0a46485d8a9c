/**
 * The Policy service: the only allow authority. It answers Allow, Deny or Ask on the final call,
 * after every pre-hook. Built-ins: allowAll, denyAll, ordered rules (PolicyRules.ts, compiled into
 * an index), and a custom Effect. A custom policy that fails, dies or answers junk denies.
 */
import { Context, Effect, Exit, Layer, Scope } from "effect"
import type { HookContext } from "../hooks/HookContext.ts"
import { ConfigError } from "../model/Errors.ts"
import type { Tool } from "../model/Tool.ts"
import type { JsonObject, ToolCall } from "../model/ToolCall.ts"
import { allow, ask, deny, type PolicyDecision } from "./PolicyDecision.ts"
import { type CompiledRules, compileRules, type RulesConfig } from "./PolicyRules.ts"

/**
 * What the policy may know besides the call: the tool's definition (annotations included), when the transport has it.
 */
export interface PolicyFacts {
  readonly tool?: Tool | undefined
}

/**
 * An operation other than a tool call that a policy may decide: a resource read (on its final URI)
 * or a prompt get (on its final arguments), after the event's hooks. A subscription or a completion
 * is decided as the read or get it leads to (a template's completion on the template as its URI).
 */
export type PolicyOperation =
  | { readonly _tag: "ReadResource"; readonly serverId: string; readonly uri: string }
  | { readonly _tag: "GetPrompt"; readonly serverId: string; readonly name: string; readonly args: JsonObject }

/** The service interface. */
export interface PolicyShape {
  readonly decide: (call: ToolCall, ctx: HookContext, facts?: PolicyFacts) => Effect.Effect<PolicyDecision>
  /**
   * Whether a listed tool may be shown at all: false when every call to it would be denied. Used
   * by listings when the client sets `hideDenied`. Optional: without it every tool is shown.
   */
  readonly visible?: ((tool: Tool, ctx: HookContext) => boolean) | undefined
  /**
   * Like `visible` for a whole listing, for a policy whose answer costs work (it may yield between
   * tools): the tools to show, in order. Optional: when given, listings use it instead of `visible`.
   */
  readonly visibleTools?:
    | ((tools: ReadonlyArray<Tool>, ctx: HookContext) => Effect.Effect<ReadonlyArray<Tool>>)
    | undefined
  /**
   * Decides a resource read or a prompt get after its hooks. Optional: without it (JSON rules, the
   * built-ins) reads and gets are governed by their hooks only. Ask is refused: approvals bind tool calls.
   */
  readonly decideOperation?:
    | ((operation: PolicyOperation, ctx: HookContext) => Effect.Effect<PolicyDecision>)
    | undefined
  /**
   * Whether a listed resource, template or prompt may be shown (with `hideDenied`): false when every
   * read or get of it would be denied (a prompt's arguments are not known yet). Optional: without it
   * an entry is shown when `decideOperation` allows it (with the arguments empty).
   */
  readonly visibleOperation?: ((operation: PolicyOperation, ctx: HookContext) => Effect.Effect<boolean>) | undefined
}

const FAILED = deny("the policy failed to decide")

/** A rules policy's members for reads and gets, when its rules govern resources or prompts. */
const operationRules = (decide: CompiledRules["decideOperation"]): Partial<PolicyShape> => {
  if (decide === undefined) return {}
  const of = (operation: PolicyOperation, ctx: HookContext) =>
    operation._tag === "ReadResource"
      ? decide("resources", operation.serverId, operation.uri, ctx)
      : decide("prompts", operation.serverId, operation.name, ctx)
  return {
    decideOperation: (operation, ctx) => Effect.sync(() => of(operation, ctx)),
    visibleOperation: (operation, ctx) => Effect.sync(() => of(operation, ctx)._tag === "Allow")
  }
}

/** A policy's decision as a plain function, for a policy that never waits. */
type SyncDecide = (call: ToolCall, ctx: HookContext, facts?: PolicyFacts) => PolicyDecision

/** Where a built-in's `decide` keeps its plain form (a symbol: a wrapper's own `decide` does not have it). */
const AtOnce = Symbol.for("@interlock/core/Policy/atOnce")

/** A `decide` that also carries its answer as a plain function. */
interface DecideAtOnce {
  (call: ToolCall, ctx: HookContext, facts?: PolicyFacts): Effect.Effect<PolicyDecision>
  readonly [AtOnce]?: SyncDecide
}

/** A `decide` over a plain function, which the pipeline calls directly (no fiber, no timer). */
const answeringAtOnce = (decide: SyncDecide): DecideAtOnce =>
  Object.assign((call: ToolCall, ctx: HookContext, facts?: PolicyFacts) => Effect.succeed(decide(call, ctx, facts)), {
    [AtOnce]: decide
  })

/**
 * The plain form of a policy's decision, when its `decide` is a built-in's: undefined for any
 * other (a custom policy, or a wrapper that brings its own `decide`), which must run as an Effect.
 */
export const decideAtOnce = (policy: PolicyShape): SyncDecide | undefined => (policy.decide as DecideAtOnce)[AtOnce]

const isDecision = (value: unknown): value is PolicyDecision => {
  if (typeof value !== "object" || value === null) return false
  const v = value as Record<string, unknown>
  if (v.rule !== undefined && typeof v.rule !== "string") return false
  return v._tag === "Allow" || ((v._tag === "Deny" || v._tag === "Ask") && typeof v.reason === "string")
}

/** The Policy service. Provide one of its Layers to `Interlock.layer`. */
export class Policy extends Context.Service<Policy, PolicyShape>()("@interlock/core/Policy") {
  /** Decision constructors, for custom policies. */
  static readonly allow = allow
  static readonly deny = deny
  static readonly ask = ask

  /** Allows every call. */
  static readonly allowAll: Layer.Layer<Policy> = Layer.succeed(Policy, { decide: answeringAtOnce(() => allow()) })

  /** Denies every call. */
  static readonly denyAll: Layer.Layer<Policy> = Layer.succeed(Policy, {
    decide: answeringAtOnce(() => deny("all calls are denied by policy"))
  })

  /** Ordered rules with loose matchers, optional predicates and principals, and a default decision. */
  static rules(config: RulesConfig): Layer.Layer<Policy, ConfigError> {
    return Layer.effect(
      Policy,
      Effect.suspend(() => {
        const rules = compileRules(config)
        return rules instanceof ConfigError
          ? Effect.fail(rules)
          : Effect.succeed({
            decide: answeringAtOnce((call, ctx, facts) => rules.decide(call, ctx, facts?.tool)),
            visible: rules.visible,
            ...operationRules(rules.decideOperation)
          })
      })
    )
  }

  /** A custom policy. Failures, defects and answers that are not a decision deny (fail closed). */
  static make<E, R>(
    decide: (call: ToolCall, ctx: HookContext, facts?: PolicyFacts) => Effect.Effect<PolicyDecision, E, R>
  ): Layer.Layer<Policy, never, R> {
    return Layer.effect(
      Policy,
      Effect.map(Effect.context<R>(), (full) => {
        const context = Context.omit(Scope.Scope)(full) as Context.Context<R>
        return {
          decide: (call: ToolCall, ctx: HookContext, facts?: PolicyFacts) =>
            Effect.suspend(() => decide(call, ctx, facts)).pipe(
              Effect.provideContext(context),
              Effect.exit,
              Effect.map((exit) => (Exit.isSuccess(exit) && isDecision(exit.value) ? exit.value : FAILED))
            )
        }
      })
    )
  }
}
