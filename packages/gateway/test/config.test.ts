import { assert, describe, it } from "@effect/vitest"
import { ConfigError, JsonText } from "@interlock/core"
import { Effect, Redacted, Schema } from "effect"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { GatewayConfig, jsonSchema } from "../src/config/Config.ts"
import { decodeConfig, loadConfig } from "../src/config/ConfigLoader.ts"
import { readSecret } from "../src/config/Secrets.ts"
import { makePlan } from "../src/runtime/PlanBuilder.ts"

const base = { servers: { files: { command: "npx", args: ["x"] } } }
const errorOf = (raw: unknown) => Effect.flip(decodeConfig(raw))

describe("config validation", () => {
  it.effect("accepts the issue's example", () =>
    Effect.gen(function*() {
      const config = yield* decodeConfig({
        servers: {
          everything: { command: "npx", args: ["mcp-server-everything"], env: {}, cwd: "." },
          remote: { url: "http://127.0.0.1:3001/mcp", headers: {}, token: "env:REMOTE_TOKEN" }
        },
        namespace: "auto",
        policy: {
          default: "allow",
          rules: [
            { match: "everything/get-env", decision: "deny", reason: "environment is private" },
            { match: "files/write_*", decision: "ask" },
            { match: "files/*", decision: "deny", when: { args: { path: { notStartsWith: "./sandbox" } } } }
          ]
        },
        redact: [{ match: "*", pattern: "sk-[A-Za-z0-9]{20,}", replacement: "[REDACTED]" }],
        pinTools: false,
        audit: { path: ".interlock/audit.db", capture: "metadata" },
        approvals: { timeoutSeconds: 120 },
        listen: { http: "127.0.0.1:7331", token: "env:INTERLOCK_TOKEN" }
      })
      assert.strictEqual(config.policy?.rules?.length, 3)
    }))

  it.effect("names the path at fault", () =>
    Effect.gen(function*() {
      const cases: Array<[unknown, string]> = [
        [{ ...base, policy: { rules: [{ match: "a/b", decision: "maybe" }] } }, "policy.rules[0].decision"],
        [
          {
            ...base,
            policy: { rules: [{ match: "a/b", decision: "deny" }, { match: "a", decision: "deny", whn: 1 }] }
          },
          "policy.rules[1].whn"
        ],
        [{ ...base, maxResultBytes: -3 }, "maxResultBytes"],
        [{ servers: { files: { command: 7 } } }, "servers.files.command"],
        [{}, "servers"],
        [{ ...base, listen: { principals: { alice: {} } } }, "listen.principals.alice.token"],
        [{
          ...base,
          policy: { rules: [{ match: "x", decision: "deny", when: { args: { path: { startsWith: 3 } } } }] }
        }, "policy.rules[0].when.args.path.startsWith"]
      ]
      for (const [raw, where] of cases) {
        const error = yield* errorOf(raw)
        assert.strictEqual(error.path, where, JSON.stringify(raw))
      }
    }))

  it.effect("never quotes a value in an error (a literal secret stays out of messages)", () =>
    Effect.gen(function*() {
      const error = yield* errorOf({ ...base, listen: { token: 12345678901 } })
      assert.strictEqual(error.path, "listen.token")
      assert.notInclude(error.message, "12345678901")
    }))

  it.effect.prop(
    "any JSON either decodes or fails with a ConfigError, never throws",
    [Schema.Json],
    ([json]) =>
      Effect.gen(function*() {
        const result = yield* Effect.result(decodeConfig(json))
        if (result._tag === "Failure") assert.instanceOf(result.failure, ConfigError)
        else assert.isObject(result.success.servers)
      })
  )

  it.effect.prop("any valid config decodes to itself", [GatewayConfig], ([config]) =>
    Effect.gen(function*() {
      const decoded = yield* decodeConfig(JsonText.parse(JSON.stringify(config)))
      assert.deepStrictEqual(Object.keys(decoded.servers).sort(), Object.keys(config.servers).sort())
    }), { arbitrary: { runs: 100 } })

  it("the published JSON Schema file is up to date and closed", () => {
    const file = path.join(import.meta.dirname, "..", "interlock.config.schema.json")
    const published = JSON.parse(readFileSync(file, "utf8"))
    assert.deepStrictEqual(published, jsonSchema())
    assert.strictEqual(published.additionalProperties, false)
    assert.deepStrictEqual(published.required, ["servers"])
  })
})

describe("secrets", () => {
  it("env:NAME reads the environment as Redacted", () => {
    const secret = readSecret("env:TOKEN_A", "listen.token", { TOKEN_A: "s3cret-value" })
    assert.isTrue(Redacted.isRedacted(secret))
    if (!Redacted.isRedacted(secret)) return
    assert.strictEqual(Redacted.value(secret), "s3cret-value")
    assert.notInclude(String(secret), "s3cret")
    assert.notInclude(JSON.stringify({ secret }), "s3cret")
  })

  it("a missing variable names the path and the variable", () => {
    const error = readSecret("env:NOPE", "listen.principals.alice.token", {})
    assert.instanceOf(error, ConfigError)
    if (!(error instanceof ConfigError)) return
    assert.strictEqual(error.path, "listen.principals.alice.token")
    assert.include(error.detail, "NOPE")
  })
})

describe("config files and plans", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "interlock-config-"))

  it.effect("a JSON file with a syntax error says where, without quoting it", () =>
    Effect.gen(function*() {
      const file = path.join(dir, "bad.json")
      writeFileSync(file, "{ \"servers\": { \"a\": { \"command\": \"sk-secretsecretsecret\" } }, }")
      const error = yield* Effect.flip(loadConfig(file))
      assert.include(error.message, "not valid JSON")
      assert.notInclude(error.message, "sk-secret")
    }))

  it.effect("a TS config with hooks and a predicate loads through defineConfig", () =>
    Effect.gen(function*() {
      const file = path.join(dir, "interlock.config.ts")
      const entry = path.join(import.meta.dirname, "..", "src", "index.ts")
      writeFileSync(
        file,
        `import { defineConfig } from ${JSON.stringify(entry)}
export default defineConfig({
  servers: { files: { command: "npx" } },
  policy: { default: "allow", rules: [{ match: "files/*", decision: "deny", when: (args) => args.path === "/etc" }] },
  hooks: { preToolCall: [{ match: "*", id: "mine", run: () => ({ _tag: "Continue" }) }] }
})`
      )
      const loaded = yield* loadConfig(file)
      assert.strictEqual(loaded.predicates.size, 1)
      assert.strictEqual(loaded.hooks.preToolCall?.length, 1)
      assert.strictEqual(loaded.baseDir, dir)
    }))

  it.effect("refuses a non-loopback bind without a token, and says why", () =>
    Effect.gen(function*() {
      const loaded = yield* Effect.map(
        decodeConfig({ ...base, listen: { http: "0.0.0.0:7331" } }),
        (config) => ({ config, hooks: {}, predicates: new Map(), baseDir: dir, file: undefined })
      )
      const error = makePlan(loaded, { env: {} })
      assert.instanceOf(error, ConfigError)
      assert.include((error as ConfigError).message, "not loopback")
      const badOtlp = makePlan({
        ...loaded,
        config: { ...loaded.config, listen: {}, telemetry: { otlp: "localhost:4318" } }
      }, { env: {} })
      assert.strictEqual((badOtlp as ConfigError).path, "telemetry.otlp")
      const ok = makePlan(
        { ...loaded, config: { ...loaded.config, listen: { http: "0.0.0.0:7331", token: "env:T" } } },
        { env: { T: "tok" } }
      )
      assert.notInstanceOf(ok, ConfigError)
    }))
})
