/** Native tools for tests. */
import { Effect, Schema } from "effect"
import { NativeTool } from "@interlock/core"

/** add(a, b) = a + b. */
export const add = NativeTool.make({
  name: "add",
  description: "Adds two numbers",
  parameters: Schema.Struct({ a: Schema.Finite, b: Schema.Finite }),
  run: ({ a, b }) => Effect.succeed(String(a + b))
})

/** echo(text) = "echoed: text". */
export const echo = NativeTool.make({
  name: "echo",
  description: "Echoes its text",
  parameters: Schema.Struct({ text: Schema.String }),
  run: ({ text }) => Effect.succeed(`echoed: ${text}`)
})

/** A tool that must never run. */
export const blocked = NativeTool.make({
  name: "blocked",
  description: "Never allowed",
  parameters: Schema.Struct({}),
  run: () => Effect.die("blocked must never run")
})
