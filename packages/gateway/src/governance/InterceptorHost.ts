/**
 * The config's interceptor servers as @interlock/mcp's Interceptors: read when a generation is
 * built (and again on each reload), their hooks placed around the plan's by withInterceptorHooks.
 * A server that cannot be read stops the gateway from starting, with a ConfigError naming its entry.
 */
import { ConfigError, type HooksConfig } from "@interlock/core"
import { Interceptors } from "@interlock/mcp"
import { Effect, type Scope } from "effect"
import * as path from "node:path"
import type { InterceptorConfig } from "../config/InterceptorConfig.ts"
import type { Plan } from "../config/Plan.ts"

/** The default deadline of one invocation: the gateway's default hook timeout. */
export const DEFAULT_INTERCEPTOR_TIMEOUT_MS = 5_000

/** The hub id of the config's `interceptors[index]`, which errors and logs name. */
export const interceptorServerId = (index: number): string => `interceptors[${index}]`

const hubServer = (entry: InterceptorConfig, baseDir: string): Interceptors.InterceptorServer["server"] =>
  "command" in entry.server
    ? {
      stdio: {
        command: entry.server.command,
        args: entry.server.args ?? [],
        env: entry.server.env ?? {},
        cwd: path.resolve(baseDir, entry.server.cwd ?? ".")
      }
    }
    : {
      http: { url: entry.server.url, ...(entry.server.headers === undefined ? {} : { headers: entry.server.headers }) }
    }

/** The Interceptors options of a plan, or undefined when it names no interceptor server. */
export const interceptorOptions = (plan: Plan): Interceptors.InterceptorsOptions | undefined => {
  const entries = plan.loaded.config.interceptors ?? []
  if (entries.length === 0) return undefined
  return {
    servers: Object.fromEntries(entries.map((entry, index) => [interceptorServerId(index), {
      server: hubServer(entry, plan.loaded.baseDir),
      ...(entry.only === undefined ? {} : { only: entry.only }),
      ...(entry.events === undefined ? {} : { events: entry.events }),
      failOpen: entry.failOpen ?? "never"
    }])),
    timeout: plan.hookTimeoutMs ?? DEFAULT_INTERCEPTOR_TIMEOUT_MS,
    clientInfo: { name: "interlock-gateway", version: "0.1.0" }
  }
}

/** Reads a plan's interceptor servers (the scope keeps them) into their shape; an unreadable one is a ConfigError. */
export const readInterceptors = (
  plan: Plan
): Effect.Effect<Interceptors.InterceptorsShape | undefined, ConfigError, Scope.Scope> => {
  const options = interceptorOptions(plan)
  if (options === undefined) return Effect.succeed(undefined)
  return Interceptors.make(options).pipe(
    Effect.catchTag(
      "InterceptorsUnavailable",
      (error) => Effect.fail(new ConfigError({ path: error.serverId, detail: error.detail }))
    )
  )
}

/** Logs what the operator should know of the interceptors in force: declared failOpen refused, events not run. */
const warnings = (shape: Interceptors.InterceptorsShape) =>
  Effect.forEach([
    ...shape.interceptors.filter((i) => i.failOpenRefused).map((i) =>
      Effect.logWarning(
        `interceptor ${JSON.stringify(i.descriptor.name)} declares failOpen; it fails closed (failOpen: "never")`
      ).pipe(Effect.annotateLogs({ "interlock.interceptors": i.serverId }))
    ),
    ...shape.unsupported.map((u) =>
      Effect.logWarning(
        `interceptor ${
          JSON.stringify(u.interceptor)
        } hooks ${u.event} (${u.phase}), which Interlock has no hook for: it does not run there`
      ).pipe(Effect.annotateLogs({ "interlock.interceptors": u.serverId }))
    )
  ], (log) =>
    log, { discard: true })

/** The plan's hooks with its interceptors' hooks added (the plan's own when it names none). */
export const hooksWithInterceptors = (plan: Plan): Effect.Effect<HooksConfig, ConfigError, Scope.Scope> =>
  Effect.flatMap(readInterceptors(plan), (shape) =>
    shape === undefined
      ? Effect.succeed(plan.hooks)
      : Effect.as(warnings(shape), Interceptors.withInterceptorHooks(plan.hooks, shape.hooks)))
