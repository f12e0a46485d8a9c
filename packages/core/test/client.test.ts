/**
 * The per-server hook-context cache is keyed by the serverId a caller sends: a flood of distinct
 * or very long serverIds must stay within its byte bound.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Interlock, Policy, ToolCalls } from "../src/index.ts"
import { type ClientState, CONTEXT_CACHE_BYTES, hookContext, makeContextCache } from "../src/internal/ClientState.ts"
import { recordingTransport } from "./fixtures.ts"

describe("ClientState: hook contexts", () => {
  it("a burst of distinct long serverIds leaves the context cache under its byte bound", () => {
    const contexts = makeContextCache()
    // Only the fields hookContext reads.
    const client = { name: "c", transport: { era: () => undefined }, contexts } as unknown as ClientState
    const base = "s".repeat(1024 * 1024)
    for (let i = 0; i < 40; i++) {
      assert.strictEqual(hookContext(client, `${i}${base}`, undefined).serverId.length, base.length + String(i).length)
    }
    for (let i = 0; i < 20_000; i++) hookContext(client, `srv_${i}_${"x".repeat(200)}`, undefined)
    assert.isAtMost(contexts.bytes(), CONTEXT_CACHE_BYTES)
    assert.isAbove(contexts.bytes(), 0)
    // A cached context is reused.
    assert.strictEqual(hookContext(client, "srv", undefined), hookContext(client, "srv", undefined))
  })

  it.effect("calls on many unknown servers still work and are answered", () =>
    Effect.gen(function*() {
      const transport = recordingTransport()
      const layer = Interlock.layer({ policy: Policy.allowAll }).pipe(Layer.provide(transport.layer))
      yield* Effect.provide(
        Effect.flatMap(ToolCalls, (calls) =>
          Effect.forEach([1, 2, 3], (i) => calls.callTool({ serverId: `srv${i}`, name: "echo", args: {} }))),
        layer
      )
      assert.deepStrictEqual(
        transport.log.calls.map((c) =>
          c.serverId
        ),
        ["srv1", "srv2", "srv3"]
      )
    }))
})
