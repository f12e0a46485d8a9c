/**
 * The config in force, as generations: the plan and the services built from it (GatewayCalls: hooks, policy, rate
 * limits, approvals, timeouts), in a scope of their own. A reload builds the next generation whole and puts it in
 * force with one assignment, so exactly one generation decides new calls. Each operation reads the generation
 * once, at its start, and runs under it to its end; a retired one closes after its last operation.
 */
import type { CallInput, CallOptions, ConfigError, ToolTransport } from "@interlock/core"
import { Context, Effect, Exit, Layer, Scope, Semaphore } from "effect"
import type { AuditStore } from "../audit/AuditStore.ts"
import { GatewayCalls, type GatewayCallsShape } from "../calls/GatewayCalls.ts"
import type { Plan } from "../config/Plan.ts"
import type { CredentialBroker } from "../credentials/CredentialBroker.ts"
import type { ApprovalQueue } from "../state/ApprovalQueue.ts"
import { StateSeal } from "../state/StateSeal.ts"
import type { UsedStates } from "../state/UsedStates.ts"

/** What a generation's services are built over: the gateway's long-lived services, which no reload replaces. */
export type GenerationServices =
  | ToolTransport
  | AuditStore
  | ApprovalQueue
  | StateSeal
  | UsedStates
  | CredentialBroker

/**
 * The services a generation builds from its plan. A config-derived service that a reload should
 * replace is merged in here, and read through {@link ConfigInForce.current} where it is used.
 */
export const generationLayer = (plan: Plan): Layer.Layer<GatewayCalls, ConfigError, GenerationServices> =>
  // A configured approvals.stateKey is the generation's own (a reload may change it; the same key opens the same
  // states); without one, the generation seals with the gateway's seal, so a reload keeps a generated key's states.
  plan.approvals.stateKey === undefined
    ? GatewayCalls.layer(plan)
    : GatewayCalls.layer(plan).pipe(Layer.provide(StateSeal.fromSecret(plan.approvals.stateKey)))

/** One config's services, in force or retiring. */
export interface Generation {
  /** 1 for the config the gateway started with, then one more per applied reload. */
  readonly number: number
  readonly plan: Plan
  readonly calls: GatewayCallsShape
  /** The whole output of {@link generationLayer}. */
  readonly context: Context.Context<GatewayCalls>
}

interface Slot {
  readonly generation: Generation
  readonly scope: Scope.Closeable
  /** Operations started under it and not yet ended. */
  active: number
  retired: boolean
  closed: boolean
}

/** The gateway's generations: the one in force, swapping, and the facades that run each operation under one. */
export interface ConfigInForce {
  /** The generation in force now. */
  readonly current: () => Generation
  /**
   * Builds `plan`'s generation; when it built, puts it in force and retires the previous one. A failure changes
   * nothing.
   */
  readonly apply: (plan: Plan) => Effect.Effect<Generation, ConfigError>
  /** GatewayCalls whose every operation runs under the generation in force when it starts. */
  readonly calls: GatewayCallsShape
}

/**
 * Builds the first generation from `plan` and returns the generations' holder. Closing the scope
 * closes every generation left (after the gateway's own finalizers added later, which drain calls).
 */
export const makeConfigInForce = (
  plan: Plan
): Effect.Effect<ConfigInForce, ConfigError, GenerationServices | Scope.Scope> =>
  Effect.gen(function*() {
    const services = yield* Effect.context<GenerationServices>()
    const live = new Set<Slot>()
    const close = (slot: Slot) =>
      Effect.suspend(() => {
        if (slot.closed) return Effect.void
        slot.closed = true
        live.delete(slot)
        return Scope.close(slot.scope, Exit.void)
      })
    yield* Effect.addFinalizer(() => Effect.forEach([...live], close, { discard: true }))
    let count = 0
    const build = (next: Plan) =>
      Effect.gen(function*() {
        const scope = yield* Scope.make()
        const context = yield* Layer.buildWithScope(generationLayer(next), scope).pipe(
          Effect.provideContext(services),
          Effect.onError((cause) => Scope.close(scope, Exit.failCause(cause)))
        )
        count += 1
        const generation: Generation = { number: count, plan: next, calls: Context.get(context, GatewayCalls), context }
        const slot: Slot = { generation, scope, active: 0, retired: false, closed: false }
        live.add(slot)
        return slot
      })
    let current = yield* build(plan)
    // Closing a generation's scope interrupts what still runs in it: that waits for its last operation.
    const retire = (slot: Slot) =>
      Effect.suspend(() => {
        slot.retired = true
        return slot.active === 0 ? Effect.asVoid(Effect.forkDetach(close(slot))) : Effect.void
      })
    const leave = (slot: Slot) =>
      Effect.suspend(() => {
        slot.active -= 1
        return slot.active === 0 && slot.retired ? Effect.asVoid(Effect.forkDetach(close(slot))) : Effect.void
      })
    const under = <A, E>(use: (calls: GatewayCallsShape) => Effect.Effect<A, E>): Effect.Effect<A, E> =>
      Effect.suspend(() => {
        const slot = current
        slot.active += 1
        return Effect.ensuring(use(slot.generation.calls), leave(slot))
      })
    const lock = yield* Semaphore.make(1)
    const apply = (next: Plan) =>
      lock.withPermit(Effect.gen(function*() {
        const built = yield* build(next)
        const previous = current
        current = built
        yield* retire(previous)
        return built.generation
      }))
    const calls: GatewayCallsShape = {
      callTool: (input: CallInput, options?: CallOptions) => under((calls) => calls.callTool(input, options)),
      refuse: (call, options) => under((calls) => calls.refuse(call, options)),
      listTools: (serverId, options) => under((calls) => calls.listTools(serverId, options)),
      readResource: (serverId, uri, options) => under((calls) => calls.readResource(serverId, uri, options)),
      getPrompt: (serverId, name, args, options) => under((calls) => calls.getPrompt(serverId, name, args, options)),
      decideRead: (operation, serverId, uri, options) =>
        under((calls) => calls.decideRead(operation, serverId, uri, options)),
      decidePrompt: (serverId, name, args, options) =>
        under((calls) => calls.decidePrompt(serverId, name, args, options)),
      visibleOperations: (entries, operationOf, options) =>
        under((calls) => calls.visibleOperations(entries, operationOf, options))
    }
    return { current: () => current.generation, apply, calls }
  })
