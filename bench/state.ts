/**
 * `npm run bench -- state`: what the shared rate limit of several replicas costs a call. Core's
 * pipeline around a native echo tool, with no rate limit (the baseline), with the gateway's
 * rate-limit guard in memory (one gateway), and with the same guard on the shared Postgres store
 * (effect/persistence's RateLimiter over PgRateLimiterStore: one upsert per call), against a real
 * Postgres server started for the suite on 127.0.0.1 (Debian's binaries, as the tests use; fsync
 * off, so the figure is the round trip and the statement, not the disk). Besides the harness's
 * medians, each case's per-call p50 and p99 over single timed calls.
 */
import {
  Approvals,
  Hooks,
  type HooksConfig,
  Interlock,
  NativeTool,
  Policy,
  ToolCalls,
  ToolTransport
} from "@interlock/core"
import { Effect, Exit, Layer, Redacted, Schema, Scope } from "effect"
import * as RateLimiter from "effect/persistence/RateLimiter"
import { rateLimitHook } from "../packages/gateway/src/governance/RateLimiter.ts"
import * as PgRateLimiterStore from "../packages/gateway/src/state/PgRateLimiterStore.ts"
import { open } from "../packages/gateway/src/state/StateDatabase.ts"
import { startPostgres } from "../packages/gateway/test/pg-server.ts"
import { measure, median, report, round3, serviceOf } from "./harness.ts"

const echo = NativeTool.make({
  name: "echo",
  parameters: Schema.Struct({ n: Schema.Finite }),
  run: ({ n }) => Effect.succeed(n)
})

// A limit no run reaches: every call takes a token and goes through.
const limited: HooksConfig = {
  preToolCall: [{ match: "*", id: "rateLimits[0]", kind: "guard", run: rateLimitHook({ perMinute: 1e9 }) }]
}

const client = <E>(hooks: HooksConfig, extra: Layer.Layer<never, E> | Layer.Layer<RateLimiter.RateLimiter, E>) =>
  Interlock.layerFromServices().pipe(
    Layer.provide(Layer.mergeAll(Hooks.layer(hooks), Policy.allowAll, Approvals.none)),
    Layer.provide(ToolTransport.fromTools([echo])),
    Layer.provide(extra)
  )

/** p50 and p99 of `count` single timed runs of `effect`, in ms. */
const perCall = async (effect: Effect.Effect<unknown, unknown>, count: number) => {
  const times: Array<number> = []
  for (let i = 0; i < count; i++) {
    const start = performance.now()
    await Effect.runPromise(effect)
    times.push(performance.now() - start)
  }
  times.sort((a, b) => a - b)
  return { p50: round3(median(times)), p99: round3(times[Math.floor(times.length * 0.99)]) }
}

export default async function run(): Promise<void> {
  const server = await startPostgres()
  const scope = Scope.makeUnsafe()
  try {
    const db = await Effect.runPromise(Scope.provide(scope)(open(Redacted.make(server.url()))))
    const shared = RateLimiter.layer.pipe(Layer.provide(PgRateLimiterStore.layer(db)))
    const build = <E>(layer: Layer.Layer<ToolCalls, E>) => Effect.runPromise(serviceOf(layer, ToolCalls, scope))
    const none = await build(client({}, Layer.empty))
    const memory = await build(client(limited, Layer.empty))
    const postgres = await build(client(limited, shared))
    const input = { serverId: "local", name: "echo", args: { n: 1 } }
    const result = await measure("state", { name: "no-rate-limit", effect: none.callTool(input), iterations: 2_000 }, [
      { name: "rate-limit-memory", effect: memory.callTool(input), iterations: 2_000 },
      { name: "rate-limit-postgres", effect: postgres.callTool(input), iterations: 500 }
    ], { rounds: 7 })
    const p = {
      none: await perCall(none.callTool(input), 2_000),
      memory: await perCall(memory.callTool(input), 2_000),
      postgres: await perCall(postgres.callTool(input), 2_000)
    }
    report({
      ...result,
      cases: result.cases.map((c) => ({ ...c, ...(c.name === "rate-limit-memory" ? p.memory : p.postgres) }))
    })
    console.log(
      `  per-call p50/p99 ms: none ${p.none.p50}/${p.none.p99}, memory ${p.memory.p50}/${p.memory.p99}, postgres ` +
        `${p.postgres.p50}/${p.postgres.p99}`
    )
    console.log(`  the shared rate limit adds ${round3(p.postgres.p50 - p.memory.p50)} ms p50 over the in-memory one`)
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    await server.stop()
  }
}
