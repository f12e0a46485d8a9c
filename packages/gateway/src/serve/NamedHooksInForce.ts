/**
 * The config's hooks written as code, resolved and ready to run one by one (core's SingleHook) under a plan's hook
 * timeout, for `serve --interceptors` (front/HookInterceptors.ts). Each run names its target as the gateway's own
 * hooks would see it: a tool or prompt the invoking host names as this gateway exposes it, on its server.
 */
import { ConfigError, type HookContext, Hooks, type Principal, SingleHook, ToolCall } from "@interlock/core"
import { Context, Effect, Layer, type Scope } from "effect"
import type { Plan } from "../config/Plan.ts"
import type { HookQuery, NamedHooks } from "../front/HookInterceptors.ts"
import { inConfigOrder } from "../front/HookServing.ts"

/** How a run names its target and whom it runs for. */
export interface HookTargets {
  /** A tool's or prompt's server and own name, from the name the host gave ("*" for a server it does not know). */
  readonly target: (name: string) => { readonly serverId: string; readonly name: string }
  readonly context: (serverId: string, principal: Principal | undefined) => HookContext
}

// The call a post hook sees: a tools/call response payload is the result alone, so which tool answered is unknown.
const ANY_CALL = { serverId: "*", name: "*", args: {}, callId: "interceptor" }

const inputOf = (query: HookQuery, targets: HookTargets): SingleHook.Input => {
  switch (query._tag) {
    case "Call": {
      const { name, serverId } = targets.target(query.name)
      const meta = query.meta === undefined ? {} : { meta: query.meta }
      return {
        event: "preToolCall",
        call: new ToolCall({ serverId, name, args: query.args, callId: "interceptor", ...meta })
      }
    }
    case "Result":
      return { event: "postToolCall", call: new ToolCall(ANY_CALL), result: query.result }
    case "Read":
      return { event: "resourceRead", serverId: "*", uri: query.uri }
    case "Get": {
      const { name, serverId } = targets.target(query.name)
      return { event: "promptGet", serverId, name, args: query.args }
    }
  }
}

const serverOf = (input: SingleHook.Input): string =>
  input.event === "preToolCall" || input.event === "postToolCall" ? input.call.serverId : input.serverId

/**
 * A plan's code hooks, in the current scope (which ends their fibers). A hook whose service cannot be
 * found is a ConfigError here, as it stops the gateway's own generation from building.
 */
export const namedHooksOf = (plan: Plan, targets: HookTargets): Effect.Effect<NamedHooks, ConfigError, Scope.Scope> =>
  Effect.gen(function*() {
    const context = yield* Layer.build(Hooks.layer(plan.loaded.hooks)).pipe(
      Effect.catchDefect(() =>
        Effect.fail(new ConfigError({ path: "hooks", detail: "a hook's service could not be found" }))
      )
    )
    const hooks = Context.get(context, Hooks)
    const runner = yield* SingleHook.make(hooks, { hookTimeoutMs: plan.hookTimeoutMs })
    return {
      hooks: inConfigOrder(hooks.byEvent),
      run: (hook, query, principal) => {
        const input = inputOf(query, targets)
        return runner.run(hook, input, targets.context(serverOf(input), principal))
      }
    } satisfies NamedHooks
  })
