/**
 * `interlock serve [--config F] [--stdio] [--http HOST:PORT] [--watch] [--interceptors]`: run the gateway
 * until interrupted. SIGHUP reloads the config, and so does a change of its file with --watch
 * (runtime/ReloadTriggers.ts). --interceptors serves the policy, redactions and named hooks as interceptors too.
 */
import { Console, Effect, Layer, Option } from "effect"
import { Command, Flag } from "effect/cli"
import { type Plan, sharedServerIds } from "../config/Plan.ts"
import { claimStdout } from "../front/stdio/StdoutClaim.ts"
import { Gateway } from "../runtime/Gateway.ts"
import { reloadSignals, serveReloads } from "../runtime/ReloadTriggers.ts"
import { HttpFront } from "../serve/HttpFront.ts"
import { INTERCEPTORS_PATH, serveInterceptorsStdio } from "../serve/InterceptorRoute.ts"
import { serveStdio } from "../serve/StdioFront.ts"
import { telemetryLayer } from "../telemetry/OtlpExport.ts"
import { describeServedHooks } from "./InterceptorCheck.ts"
import { planFrom, progress } from "./Shared.ts"
import { userFacing } from "./UserFacing.ts"

/** The lines printed when the HTTP gateway is up: URLs and a one-line connect snippet. */
export const banner = (mcpUrl: string, consoleUrl: string, hasToken: boolean): ReadonlyArray<string> => [
  "Interlock gateway is running.",
  `  MCP endpoint: ${mcpUrl}`,
  `  Web console:  ${!hasToken ? consoleUrl : `${consoleUrl}?token=<your token>`}`,
  `  Connect:      claude mcp add --transport http interlock ${mcpUrl}${
    !hasToken ? "" : ` --header "Authorization: Bearer $INTERLOCK_TOKEN"`
  }`,
  "Press Ctrl-C to stop."
]

/** Says which of the config's hooks are served as interceptors, and why the others are not (stderr under --stdio). */
const logServedHooks = (plan: Plan) =>
  describeServedHooks(plan).pipe(
    // A hooks config that does not compile has already stopped the gateway: nothing to say here.
    Effect.catchTag("ConfigError", () => Effect.succeed([])),
    Effect.flatMap((lines) => Effect.forEach(lines, (line) => Console.log(`  ${line}`), { discard: true }))
  )

/** Connects every server now, reporting progress on a TTY; a server that fails is retried on first use. */
export const connectAll = (gateway: Gateway["Service"]) =>
  Effect.forEach(gateway.hub.serverIds, (serverId) =>
    !sharedServerIds(gateway.plan).includes(serverId)
      ? progress(`  ${serverId}: per-principal sessions, opened at each principal's first call`)
      : progress(`  connecting ${serverId}...`).pipe(
        Effect.andThen(gateway.hub.connect(serverId)),
        Effect.andThen(Effect.sync(() => gateway.hub.status(serverId))),
        Effect.flatMap((status) =>
          progress(
            `  ${serverId}: connected, ${status?.era ?? "unknown protocol"}${
              status?.pid === undefined ? "" : ` (pid ${status.pid})`
            }`
          )
        ),
        Effect.catch((error) =>
          Console.error(`  ${serverId}: not connected (${error.message}); will retry on first use`)
        )
      ), { discard: true, concurrency: "unbounded" })

/** The serve command. */
export const serveCommand = Command.make(
  "serve",
  {
    config: Flag.String("config").pipe(
      Flag.withAlias("c"),
      Flag.withDescription("The config file (default: interlock.config.* here)"),
      Flag.optional
    ),
    stdio: Flag.Boolean("stdio").pipe(
      Flag.withDescription("Serve one host over stdin/stdout instead of HTTP"),
      Flag.withDefault(false)
    ),
    http: Flag.String("http").pipe(Flag.withDescription("Listen on HOST:PORT (overrides listen.http)"), Flag.optional),
    watch: Flag.Boolean("watch").pipe(
      Flag.withDescription("Reload the config when its file (or its Cedar file) changes; SIGHUP always reloads"),
      Flag.withDefault(false)
    ),
    interceptors: Flag.Boolean("interceptors").pipe(
      Flag.withDescription(
        "Also serve the policy and redactions as MCP interceptors (SEP-1763): at /interceptors, or with --stdio " +
          "instead of the tools"
      ),
      Flag.withDefault(false)
    )
  },
  ({ config, http, interceptors, stdio, watch }) =>
    userFacing(Effect.scoped(Effect.gen(function*() {
      const triggers = yield* reloadSignals
      const options = { http: Option.getOrUndefined(http) }
      const plan = yield* planFrom(config, options)
      // The plan came from a file (planFrom found or was given one): reloads read it again, with the same options.
      const reloads = (gateway: Gateway["Service"]) =>
        plan.loaded.file === undefined
          ? Effect.void
          : serveReloads(triggers, gateway, { file: plan.loaded.file, options }, watch)
      yield* progress(`Starting ${plan.servers.size} server(s)...`)
      const gateway = Gateway.layer(plan).pipe(Layer.provide(telemetryLayer(plan)))
      if (stdio) {
        // stdout is the host's channel from here on: everything else written there goes to stderr, redacted.
        return yield* Effect.scoped(Effect.gen(function*() {
          const output = yield* claimStdout(plan.redactions)
          return yield* Effect.gen(function*() {
            yield* reloads(yield* Gateway)
            yield* connectAll(yield* Gateway)
            if (interceptors) {
              yield* logServedHooks(plan)
              return yield* serveInterceptorsStdio(yield* Gateway, { input: process.stdin, output })
            }
            yield* serveStdio({ input: process.stdin, output })
          }).pipe(Effect.provide(gateway))
        }))
      }
      return yield* Effect.scoped(Effect.gen(function*() {
        yield* reloads(yield* Gateway)
        yield* connectAll(yield* Gateway)
        const address = yield* HttpFront
        for (const line of banner(address.mcpUrl, address.consoleUrl, plan.listen.principals.size > 0)) {
          yield* Console.log(line)
        }
        if (interceptors) {
          yield* Console.log(`  Interceptors: ${address.mcpUrl.replace(/\/mcp$/, INTERCEPTORS_PATH)}`)
          yield* logServedHooks(plan)
        }
        return yield* Effect.never
      })).pipe(Effect.provide(HttpFront.layerWith({ interceptors }).pipe(Layer.provideMerge(gateway))))
    })))
).pipe(Command.withDescription("Run the gateway (Streamable HTTP by default, or --stdio)"))
