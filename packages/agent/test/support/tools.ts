/** Native tools for tests. */
import { NativeTool } from "@interlock/core"
import { Effect, Schema } from "effect"

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

/**
 * A tool `name({ n })` answering `${prefix}${n}` that counts its calls in flight: `peak()` is the most
 * at once. `during(n, inFlight)` runs while the call is counted.
 */
export const inFlightTool = (
  name: string,
  prefix: string,
  during: (n: number, inFlight: number) => Effect.Effect<void>
) => {
  let inFlight = 0
  let peak = 0
  const tool = NativeTool.make({
    name,
    parameters: Schema.Struct({ n: Schema.Finite }),
    run: ({ n }) =>
      Effect.gen(function*() {
        inFlight++
        peak = Math.max(peak, inFlight)
        yield* during(n, inFlight)
        inFlight--
        return `${prefix}${n}`
      })
  })
  return { tool, peak: () => peak }
}

/** A fresh `pay({ amount })` tool and the amounts it has paid (its side effect, for "nothing ran" checks). */
export const payTool = () => {
  const paid: Array<number> = []
  const pay = NativeTool.make({
    name: "pay",
    parameters: Schema.Struct({ amount: Schema.Finite }),
    run: ({ amount }) => Effect.sync(() => paid.push(amount)).pipe(Effect.as(`paid ${amount}`))
  })
  return { paid, pay }
}
