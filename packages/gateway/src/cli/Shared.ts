/**
 * What the CLI commands share: finding and loading the config, and progress lines (UserFacing.ts turns errors into one
 * line and exit 1).
 */
import { ConfigError } from "@interlock/core"
import { Effect, Option } from "effect"
import { existsSync } from "node:fs"
import * as path from "node:path"
import { CONFIG_NAMES, loadConfig, type LoadedConfig } from "../config/ConfigLoader.ts"
import type { Plan } from "../config/Plan.ts"
import { makePlan, type PlanOptions } from "../runtime/PlanBuilder.ts"

/** The config file: the given one, or the first interlock.config.* in the working directory. */
export const findConfig = (given: Option.Option<string>): Effect.Effect<string, ConfigError> => {
  if (Option.isSome(given)) return Effect.succeed(given.value)
  for (const name of CONFIG_NAMES) {
    const file = path.resolve(name)
    if (existsSync(file)) return Effect.succeed(file)
  }
  return Effect.fail(
    new ConfigError({
      path: "--config",
      detail: `no config given and none of ${CONFIG_NAMES.join(", ")} in ${process.cwd()}`
    })
  )
}

/** Loads the config named by --config (or found). */
export const loadFrom = (given: Option.Option<string>): Effect.Effect<LoadedConfig, ConfigError> =>
  Effect.flatMap(findConfig(given), loadConfig)

/** Loads the config named by --config (or found) and resolves it into a plan. */
export const planFrom = (given: Option.Option<string>, options?: PlanOptions): Effect.Effect<Plan, ConfigError> =>
  Effect.flatMap(loadFrom(given), (loaded) => {
    const plan = makePlan(loaded, options)
    return plan instanceof ConfigError ? Effect.fail(plan) : Effect.succeed(plan)
  })

/** Writes progress to stderr when it is a terminal (long startup, such as spawning servers). */
export const progress = (line: string): Effect.Effect<void> =>
  Effect.sync(() => {
    if (process.stderr.isTTY) process.stderr.write(`${line}\n`)
  })
