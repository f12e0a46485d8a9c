/**
 * What `interlock check` says of the config's interceptor servers: each entry, and once connected,
 * each interceptor it lists, where it runs, and what Interlock does differently from what it declares
 * (a failOpen treated as fail-closed, an event with no hook). The MCP client is loaded only to connect.
 * And of its code hooks: which interceptor `serve --interceptors` serves each as, or why it does not.
 */
import { type ConfigError, Hooks } from "@interlock/core"
import { Console, Effect } from "effect"
import type { Plan } from "../config/Plan.ts"
import { formatTable } from "../config/TextTable.ts"
import { describeHookServing, inConfigOrder } from "../front/HookServing.ts"
import { progress } from "./Shared.ts"

const indent = (lines: ReadonlyArray<string>): ReadonlyArray<string> => lines.map((line) => `  ${line}`)

/** The config's interceptor servers in lines (nothing when there are none). */
export const describeInterceptors = (plan: Plan): ReadonlyArray<string> => {
  const entries = plan.loaded.config.interceptors ?? []
  if (entries.length === 0) return []
  return [
    "Interceptor servers:",
    ...indent(formatTable(entries.map((entry, index) => [
      `interceptors[${index}]`,
      "command" in entry.server ? "stdio" : "http",
      "command" in entry.server ? [entry.server.command, ...(entry.server.args ?? [])].join(" ") : entry.server.url,
      `failOpen ${entry.failOpen ?? "never"}`
    ])))
  ]
}

/** The config's code hooks in lines, each served as which interceptor or why not (nothing when it has none). */
export const describeServedHooks = (plan: Plan): Effect.Effect<ReadonlyArray<string>, ConfigError> =>
  Effect.map(Hooks.compile(plan.loaded.hooks), (compiled) => {
    const hooks = inConfigOrder(compiled.byEvent)
    if (hooks.length === 0) return []
    return ["Hooks as interceptors (serve --interceptors):", ...indent(formatTable(describeHookServing(hooks)))]
  })

/** Reads every interceptor server and prints its interceptors, with what is refused or not run. */
export const checkInterceptors = (plan: Plan) =>
  (plan.loaded.config.interceptors ?? []).length === 0 ? Effect.void : Effect.scoped(Effect.gen(function*() {
    yield* progress("  reading interceptors...")
    const { readInterceptors } = yield* Effect.promise(() => import("../governance/InterceptorHost.ts"))
    const shape = yield* readInterceptors(plan)
    if (shape === undefined) return
    yield* Console.log(`Interceptors (${shape.interceptors.length}):`)
    const rows = shape.interceptors.map(({ descriptor, serverId }) => [
      descriptor.name,
      serverId,
      descriptor.type,
      descriptor.mode ?? "enforce",
      descriptor.hooked.map((h) => `${h.event} ${h.phase}`).join(", ")
    ])
    for (const line of indent(formatTable(rows))) yield* Console.log(line)
    for (const refused of shape.interceptors.filter((i) => i.failOpenRefused)) {
      yield* Console.log(
        `  note: ${
          JSON.stringify(refused.descriptor.name)
        } declares failOpen; it is treated as fail-closed (${refused.serverId} has failOpen: "never")`
      )
    }
    for (const u of shape.unsupported) {
      yield* Console.log(
        `  note: ${
          JSON.stringify(u.interceptor)
        } hooks ${u.event} (${u.phase}), which Interlock has no hook for: it does not run there`
      )
    }
  }))
