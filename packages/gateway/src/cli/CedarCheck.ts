/**
 * The Cedar parts of `interlock check` and `interlock schema --cedar`: the policy file validated
 * against the Cedar schema generated from the live listing (each tool's input schema typing
 * `context.args`; see @interlock/cedar), and that schema printed. @interlock/cedar (and its WASM
 * module) is loaded only when a config names a Cedar policy or `--cedar` is given.
 */
import { ConfigError, type Tool } from "@interlock/core"
import { Console, Effect, Layer } from "effect"
import { type Plan, sharedServerIds } from "../config/Plan.ts"
import { cedarPolicyFile, readCedarFile } from "../governance/PolicyLayer.ts"
import type { GatewayShape } from "../runtime/Gateway.ts"
import { progress } from "./Shared.ts"

const loadCedar = Effect.tryPromise({
  try: () => import("@interlock/cedar"),
  catch: () => new ConfigError({ path: "policy.cedar", detail: "@interlock/cedar could not be loaded" })
})

/** The tools every server of the plan lists (its tools filter applied, the policy not), connecting them first. */
export const liveTools = (plan: Plan): Effect.Effect<ReadonlyArray<Tool>, ConfigError> =>
  plan.servers.size === 0 ?
    Effect.succeed([]) :
    withListingGateway(plan, (gateway) =>
      Effect.gen(function*() {
        // A per-principal server has no session without a principal: its tools are not listed here.
        const shared = sharedServerIds(plan)
        for (const serverId of shared) {
          yield* progress(`  connecting ${serverId}...`)
          yield* gateway.hub.connect(serverId)
        }
        return (yield* Effect.forEach(shared, (id) => gateway.hub.transport.listTools(id))).flat()
      }).pipe(
        Effect.mapError((error) =>
          new ConfigError({ path: "servers", detail: `could not list the tools: ${error.message}` })
        )
      )).pipe(Effect.scoped)

/**
 * Runs `use` on a gateway of the plan that only lists (check, schema --cedar): no audit store, and
 * a generated approval-state key without serve's notice about it, since nothing is approved here.
 */
export const withListingGateway = <A, E, R>(
  plan: Plan,
  use: (gateway: GatewayShape) => Effect.Effect<A, E, R>
) =>
  Effect.flatMap(
    Effect.promise(() => Promise.all([import("../runtime/Gateway.ts"), import("../state/StateSeal.ts")])),
    ([{ Gateway }, { StateSeal }]) =>
      Effect.gen(function*() {
        return yield* use(yield* Gateway)
      }).pipe(
        Effect.provide(
          Gateway.layer(
            { ...plan, audit: { ...plan.audit, path: undefined, postgres: undefined } },
            StateSeal.generated
          )
            .pipe(Layer.orDie)
        )
      )
  )

/**
 * Checks the plan's Cedar policy file, if it has one: against the listing `tools`, or (undefined:
 * `--no-connect`) only that it parses. Prints every error as `file:line:column: message` and
 * fails when there is one.
 */
export const checkCedarPolicy = (
  plan: Plan,
  tools: ReadonlyArray<Tool> | undefined
): Effect.Effect<void, ConfigError> =>
  Effect.gen(function*() {
    const file = cedarPolicyFile(plan.loaded.config, plan.loaded.baseDir)
    if (file === undefined) return
    if (file instanceof ConfigError) return yield* Effect.fail(file)
    const policies = yield* readCedarFile(file)
    const cedar = yield* loadCedar
    const errors = yield* cedar.CedarTools.check(policies, file, tools).pipe(
      Effect.mapError((error) => new ConfigError({ path: "policy.cedar", detail: error.message }))
    )
    for (const error of errors) yield* Console.error(error.message)
    if (errors.length > 0) {
      return yield* Effect.fail(
        new ConfigError({
          path: "policy.cedar",
          detail: `${errors.length} error${errors.length === 1 ? "" : "s"} in ${file}`
        })
      )
    }
    yield* Console.log(
      tools === undefined
        ? `Cedar policy parses: ${file}`
        : `Cedar policy valid against the schema of ${tools.length} listed tool${tools.length === 1 ? "" : "s"}`
    )
  })

/** The Cedar schema of the plan's live listing, in Cedar's schema text. */
export const cedarSchemaOf = (plan: Plan): Effect.Effect<string, ConfigError> =>
  Effect.gen(function*() {
    const tools = yield* liveTools(plan)
    const cedar = yield* loadCedar
    return yield* cedar.CedarTools.schemaText(tools).pipe(
      Effect.mapError((error) => new ConfigError({ path: "policy.cedar", detail: error.message }))
    )
  })
