/**
 * A secret placed in the arguments, in a result and in what a hook throws never shows up in
 * captured spans, logs or errors (their messages, their fields, their receipts).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Metric } from "effect"
import { Policy, ToolCalls, Verdict } from "../src/index.ts"
import { capturing, spanText } from "./capture.ts"
import { client, SECRET } from "./fixtures.ts"

const leakCheck = (label: string, value: unknown) => {
  const text = typeof value === "string"
    ? value
    : JSON.stringify(value) + String(value) + String((value as Error)?.message)
  assert.notInclude(text, SECRET, `${label} leaked the secret`)
}

describe("no leaks", () => {
  it.effect("secrets in args, results and hook errors never reach spans, logs, metrics or errors", () =>
    capturing((captured) =>
      Effect.gen(function*() {
        const { layer } = client({
          preToolCall: [
            {
              match: "srv/echo",
              id: "thrower",
              kind: "observe",
              run: () => {
                throw new Error(`bad key ${SECRET}`)
              }
            },
            { match: "srv/fail", id: "raiser", run: (call) => Effect.fail(new Error(JSON.stringify(call.args))) }
          ],
          postToolCall: [{ match: "srv/secret", id: "post", run: (_c, result) => Effect.die(result.text) }],
          toolCallFailed: [{
            match: "*",
            id: "failer",
            run: (call) => Promise.reject(new Error(String(call.args.key)))
          }],
          toolsListed: [{
            match: "*",
            id: "lister",
            run: () => {
              throw SECRET
            }
          }],
          resourceRead: [{ match: "*", id: "reader", run: (uri) => Effect.die(uri) }],
          promptGet: [{
            match: "*",
            id: "prompter",
            run: (_n, args) => {
              throw args
            }
          }]
        }, {
          policy: Policy.rules({
            rules: [{
              match: "srv/error",
              decision: "deny",
              when: (args) => {
                throw new Error(String(args.key))
              }
            }],
            default: "allow"
          })
        })
        const outputs = yield* Effect.gen(function*() {
          const calls = yield* ToolCalls
          return yield* Effect.all([
            Effect.result(calls.callTool({ serverId: "srv", name: "echo", args: { key: SECRET } })),
            Effect.result(calls.callTool({ serverId: "srv", name: "fail", args: { key: SECRET } })),
            Effect.result(calls.callTool({ serverId: "srv", name: "secret", args: { key: SECRET } })),
            Effect.result(calls.callTool({ serverId: "srv", name: "error", args: { key: SECRET } })),
            Effect.result(calls.listTools()),
            Effect.result(calls.readResource("srv", `secret://${SECRET}`)),
            Effect.result(calls.getPrompt("srv", "p", { key: SECRET }))
          ])
        }).pipe(Effect.provide(layer))
        // The echo call succeeded (observer failure ignored) and its own result may hold its own args:
        // that is the tool's answer to the caller, not a leak. Everything else must be clean.
        const [echo, ...rest] = outputs
        assert.strictEqual(echo._tag, "Success")
        for (const [i, out] of rest.entries()) {
          if (out._tag === "Failure") {
            leakCheck(`error ${i}`, out.failure)
            leakCheck(`error message ${i}`, out.failure.message)
          } else {
            leakCheck(`result ${i}`, out.success)
          }
        }
        assert.isAbove(captured.spans.length, 10)
        for (const span of captured.spans) leakCheck(`span ${span.name}`, spanText(span))
        for (const log of captured.logs) leakCheck("log", log)
        const metrics = yield* Metric.snapshot
        leakCheck("metrics", JSON.stringify(metrics))
        assert.isTrue(metrics.some((m) => m.id === "interlock_hook_runs_total"))
      })
    ))

  it.effect("a Deny reason is returned to the caller but never traced", () =>
    capturing((captured) =>
      Effect.gen(function*() {
        const { layer } = client({
          preToolCall: [{ match: "*", id: "gate", run: (call) => Verdict.deny(`no ${String(call.args.key)}`) }]
        })
        const error = yield* Effect.flip(Effect.provide(
          Effect.flatMap(ToolCalls, (c) => c.callTool({ serverId: "srv", name: "echo", args: { key: SECRET } })),
          layer
        ))
        assert.include(error.message, SECRET)
        for (const span of captured.spans) {
          leakCheck(`span ${span.name}`, spanText(span))
        }
      })
    ))
})
