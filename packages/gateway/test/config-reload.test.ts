/**
 * Config reload in process: which changes a reload refuses (a property over any JSON), the one
 * line each outcome logs, and the swap of a running gateway: a generation that fails to build
 * changes nothing, one that builds is in force for the next call and the console at once.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigError } from "@interlock/core"
import { Effect, Schema } from "effect"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { versionOf } from "../src/config/ConfigHash.ts"
import { outcomeLine, reload, RESTART_ONLY, restartOnlyChange } from "../src/runtime/ConfigReload.ts"
import { toolText } from "./cli-process.ts"
import { echoServer, httpClient, startGateway } from "./e2e.ts"

const dir = mkdtempSync(path.join(tmpdir(), "interlock-config-reload-"))

/** Keys a reload applies. */
const RELOADABLE = [
  "policy",
  "redact",
  "rateLimits",
  "maxResultBytes",
  "pinTools",
  "approvals",
  "hookTimeoutMs",
  "callTimeoutMs",
  "claude",
  "maxArgBytes"
] as const

const Key = Schema.Literals(["servers", "listen", "audit", "telemetry", "namespace"])
const Reloadable = Schema.Literals(RELOADABLE)

describe("config reload", () => {
  it.effect.prop(
    "a change to a key a reload applies is never refused",
    [Reloadable, Schema.Json, Schema.Json],
    ([key, before, after]) =>
      Effect.sync(() => {
        const base = { servers: { echo: echoServer }, listen: { http: "127.0.0.1:0" } }
        assert.isUndefined(restartOnlyChange({ ...base, [key]: before }, { ...base, [key]: after }))
      })
  )

  it.effect.prop("a change to a restart-only key is refused, naming a key path under it and never a value", [
    Key,
    Schema.Json,
    Schema.String
  ], ([key, before, secret]) =>
    Effect.sync(() => {
      const value = `sk-${secret}-literal`
      const found = restartOnlyChange({ servers: {}, [key]: before }, { servers: {}, [key]: { token: value } })
      if (found === undefined) return assert.fail("refused nothing")
      assert.isTrue(found === key || found.startsWith(`${key}.`), found)
      assert.notInclude(found, value)
    }))

  it.effect(
    "the restart-only keys are the ones the README lists, and equal values in any key order " +
      "are no change",
    () =>
      Effect.sync(() => {
        const readme = readFileSync(path.join(import.meta.dirname, "..", "README.md"), "utf8")
        const restart = /\*\*Needs a restart\*\*[\s\S]*?(?=\n- )/.exec(readme)?.[0] ?? ""
        const reloads = /\*\*Applies on reload:\*\*[\s\S]*?(?=\n- )/.exec(readme)?.[0] ?? ""
        for (const key of RESTART_ONLY) assert.include(restart, `\`${key}\``, key)
        for (const key of RELOADABLE) assert.include(reloads, `\`${key}\``, key)
        assert.isUndefined(
          restartOnlyChange({ servers: { a: { url: "http://x", headers: { p: "1", q: "2" } } } }, {
            servers: { a: { headers: { q: "2", p: "1" }, url: "http://x" } }
          })
        )
        assert.strictEqual(
          restartOnlyChange({ servers: {}, listen: { principals: { alice: { token: "one" } } } }, {
            servers: {},
            listen: { principals: { alice: { token: "two" } } }
          }),
          "listen.principals.alice.token"
        )
      })
  )

  it.effect("a failure's line is one line, naming every problem's path", () =>
    Effect.sync(() => {
      const error = new ConfigError({
        path: "interlock.config.json",
        detail: "has 2 problems:\n  policy.default  has an invalid value\n  servers  is required"
      })
      const line = outcomeLine({ _tag: "Failed", version: "abc", error }, "/x/interlock.config.json")
      assert.notInclude(line, "\n")
      assert.include(line, "policy.default")
      assert.include(line, "servers")
      assert.match(line, /^config reload failed: .*; version abc stays in force$/)
    }))

  it.live(
    "a reload keeps the buckets of the rate limits it leaves as they were, so it hands no one a fresh burst",
    () =>
      Effect.gen(function*() {
        const file = path.join(dir, "limits.json")
        const config = (rateLimits: unknown, rules: unknown = []) => ({
          servers: { echo: echoServer },
          listen: { http: "127.0.0.1:0" },
          audit: { path: ":memory:" },
          policy: { default: "allow", rules },
          rateLimits
        })
        const limited = [{ match: "echo/echo", perMinute: 1 }]
        const { gateway, http } = yield* startGateway(config(limited))
        const client = yield* httpClient(http.mcpUrl)
        const echo = Effect.promise(() => client.callTool({ name: "echo", arguments: { text: "x" } }))
        assert.strictEqual(toolText(yield* echo), "x")
        assert.include(toolText(yield* echo), "rate limit exceeded")

        writeFileSync(file, JSON.stringify(config(limited, [{ match: "echo/mutate", decision: "deny" }])))
        assert.strictEqual((yield* reload(gateway, { file }))._tag, "Applied")
        assert.include(toolText(yield* echo), "rate limit exceeded", "the policy edit kept the spent bucket")

        writeFileSync(file, JSON.stringify(config([{ match: "echo/echo", perMinute: 2 }])))
        assert.strictEqual((yield* reload(gateway, { file }))._tag, "Applied")
        assert.strictEqual(toolText(yield* echo), "x", "a changed limit starts full")
      }),
    60_000
  )

  it.live(
    "a reload's redactions and argument cap apply to the next call, also where the long-lived parts read them",
    () =>
      Effect.gen(function*() {
        const file = path.join(dir, "settings.json")
        const config = (extra: Record<string, unknown>) => ({
          servers: { echo: echoServer },
          listen: { http: "127.0.0.1:0" },
          audit: { path: ":memory:" },
          policy: { default: "allow" },
          ...extra
        })
        const { gateway, http } = yield* startGateway(config({}))
        const client = yield* httpClient(http.mcpUrl)
        const echo = (text: string) =>
          Effect.promise(() =>
            client.callTool({ name: "echo", arguments: { text } }).then(toolText, (error: Error) => error.message)
          )
        assert.strictEqual(yield* echo("token-abc123"), "token-abc123")
        writeFileSync(file, JSON.stringify(config({ redact: [{ pattern: "token-\\w+" }], maxArgBytes: 64 })))
        assert.strictEqual((yield* reload(gateway, { file }))._tag, "Applied")
        assert.strictEqual(yield* echo("token-abc123"), "[REDACTED]")
        assert.strictEqual(gateway.deps.limits.maxArgBytes, 64)
        assert.include(yield* echo("x".repeat(100)), "64")
      }),
    60_000
  )

  it.live(
    "a running gateway: a build failure changes nothing; an applied reload decides the next call and shows in " +
      "the console",
    () =>
      Effect.gen(function*() {
        const file = path.join(dir, "interlock.config.json")
        const write = (policy: unknown) =>
          writeFileSync(
            file,
            JSON.stringify({
              servers: { echo: echoServer },
              listen: { http: "127.0.0.1:0" },
              audit: { path: ":memory:" },
              policy
            })
          )
        write({ default: "allow" })
        const { gateway, http } = yield* startGateway({
          servers: { echo: echoServer },
          audit: { path: ":memory:" },
          policy: { default: "allow" }
        })
        const client = yield* httpClient(http.mcpUrl)
        const state = () =>
          Effect.promise(() =>
            fetch(new URL("/api/state", http.consoleUrl)).then((response) =>
              response.json() as Promise<{ config: { hash: string } }>
            )
          )
        const before = gateway.plan.configHash
        // Same content, different file: the same hash, so nothing is rebuilt.
        assert.deepStrictEqual(yield* reload(gateway, { file }), {
          _tag: "Unchanged",
          version: versionOf(before).version
        })

        writeFileSync(path.join(dir, "bad.cedar"), "permit(principal, action, resource) when { nonsense };")
        write({ cedar: "bad.cedar" })
        const failed = yield* reload(gateway, { file })
        assert.strictEqual(failed._tag, "Failed")
        assert.include(outcomeLine(failed, file), "policy.cedar")
        assert.deepStrictEqual([gateway.generation().number, gateway.plan.configHash, (yield* state()).config.hash], [
          1,
          before,
          before
        ])

        write({ default: "allow", rules: [{ match: "echo/echo", decision: "deny", reason: "reloaded" }] })
        const applied = yield* reload(gateway, { file })
        assert.deepInclude(applied, { _tag: "Applied", previous: versionOf(before).version, generation: 2 })
        assert.notStrictEqual(gateway.plan.configHash, before)
        assert.strictEqual((yield* state()).config.hash, gateway.plan.configHash)
        const denied = yield* Effect.promise(() => client.callTool({ name: "echo", arguments: { text: "x" } }))
        assert.include(toolText(denied), "reloaded")
        const [row] = yield* gateway.store.query({ limit: 1 })
        assert.deepInclude(row, { outcome: "denied", configHash: gateway.plan.configHash })
      }),
    60_000
  )
})
