#!/usr/bin/env node
// The interlock CLI: `npx interlock --help`. Runs on Node 24, which strips the types.
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Effect } from "effect"
import { run } from "../src/cli/Cli.ts"

run.pipe(Effect.scoped, Effect.provide(NodeServices.layer), NodeRuntime.runMain)
