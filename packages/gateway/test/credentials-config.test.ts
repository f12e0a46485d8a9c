/**
 * `servers.<id>.auth` in the config: every form decodes into a plan with its secrets read
 * (`env:`, `file:`) as Redacted, and every wrong combination or value is a ConfigError that names
 * the path at fault and never quotes a secret. `interlock check` prints each server's auth form.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigError } from "@interlock/core"
import { Effect, Redacted } from "effect"
import { generateKeyPairSync, type KeyObject } from "node:crypto"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { describePlan } from "../src/cli/CheckReport.ts"
import { fromObject } from "../src/config/ConfigLoader.ts"
import type { Plan } from "../src/config/Plan.ts"
import { makePlan } from "../src/runtime/PlanBuilder.ts"
import { cliIn } from "./cli-process.ts"
import { echoServer, NODE } from "./e2e.ts"

const dir = mkdtempSync(path.join(tmpdir(), "interlock-auth-config-"))
writeFileSync(path.join(dir, "alice.key"), "Bearer alice-file-SECRET-0001\n")
writeFileSync(path.join(dir, "empty.key"), "")

const MARK = "SECRET-"
const ENV = { CLIENT_SECRET: "client-SECRET-0002", BOB_KEY: "bob-SECRET-0003" }
const TOKEN_URL = "http://127.0.0.1:9/token"
const OAUTH = { oauth: { issuer: "http://127.0.0.1:9" } }
const PRINCIPALS = { principals: { alice: { token: "alice-static-token-00" }, bob: { token: "bob-static-token-000" } } }

const planOf = (raw: Record<string, unknown>) =>
  Effect.map(fromObject({ audit: { enabled: false }, ...raw }, dir), (loaded) => makePlan(loaded, { env: ENV }))

const errorOf = (raw: Record<string, unknown>) =>
  Effect.gen(function*() {
    const result = yield* Effect.result(planOf(raw))
    const error = result._tag === "Failure" ? result.failure : result.success
    assert.instanceOf(error, ConfigError)
    const text = String((error as ConfigError).message)
    assert.notInclude(text, MARK, "a config error quotes a secret")
    return error as ConfigError
  })

const http = (auth: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  servers: { remote: { url: "http://127.0.0.1:9/mcp", auth, ...extra } }
})

const okPlan = (raw: Record<string, unknown>) =>
  Effect.map(planOf(raw), (plan) => {
    assert.notInstanceOf(plan, ConfigError, plan instanceof ConfigError ? plan.message : "")
    return plan as Plan
  })

describe("servers.<id>.auth", () => {
  it.effect("each form decodes, its secrets read as Redacted, per-principal forms get per-principal sessions", () =>
    Effect.gen(function*() {
      const plan = yield* okPlan({
        listen: { ...OAUTH, ...PRINCIPALS },
        servers: {
          service: {
            url: "http://127.0.0.1:9/a",
            auth: {
              clientCredentials: { tokenUrl: TOKEN_URL, clientId: "gw", clientSecret: "env:CLIENT_SECRET" },
              identity: { audience: "https://a.example" }
            }
          },
          user: {
            url: "http://127.0.0.1:9/b",
            auth: {
              exchange: { tokenUrl: TOKEN_URL, clientId: "gw", clientSecret: "env:CLIENT_SECRET", audience: "b" },
              perPrincipal: {
                alice: { headers: { authorization: "file:alice.key" } },
                "role:ops": { headers: { "x-key": "env:BOB_KEY" } }
              }
            }
          },
          local: {
            command: "node",
            sessions: "per-principal",
            auth: { perPrincipal: { bob: { env: { API_KEY: "env:BOB_KEY" } } } }
          }
        }
      })
      const service = plan.servers.get("service")!
      assert.strictEqual(service.sessions, "shared")
      assert.strictEqual(Redacted.value(service.auth.clientCredentials!.clientSecret), ENV.CLIENT_SECRET)
      assert.deepStrictEqual(service.auth.identity, {
        header: "Interlock-Identity",
        audience: "https://a.example",
        ttlSeconds: 60
      })
      const user = plan.servers.get("user")!
      assert.strictEqual(user.sessions, "per-principal")
      assert.strictEqual(user.auth.exchange?.audience, "b")
      const [alice, ops] = user.auth.perPrincipal
      assert.strictEqual(alice.principal, "alice")
      assert.strictEqual(Redacted.value(alice.values.authorization), "Bearer alice-file-SECRET-0001")
      assert.strictEqual(ops.role, "ops")
      assert.strictEqual(Redacted.value(plan.servers.get("local")!.auth.perPrincipal[0].values.API_KEY), ENV.BOB_KEY)
      const described = describePlan(plan).join("\n")
      assert.include(described, "auth: clientCredentials at 127.0.0.1:9 + identity for https://a.example")
      assert.include(described, "auth: exchange at 127.0.0.1:9 + perPrincipal (2), per-principal sessions")
      assert.notInclude(described, MARK)
    }))

  it.effect("wrong combinations and values name their path", () =>
    Effect.gen(function*() {
      const client = { tokenUrl: TOKEN_URL, clientId: "gw", clientSecret: "env:CLIENT_SECRET" }
      const cases: ReadonlyArray<[Record<string, unknown>, string, string]> = [
        [
          { ...http({ clientCredentials: client, exchange: client }), listen: OAUTH },
          "servers.remote.auth",
          "not several"
        ],
        [
          { ...http({ oauth: {}, exchange: client }), listen: OAUTH },
          "servers.remote.auth",
          "set one of exchange, oauth"
        ],
        [http({ oauth: { clientSecret: "env:CLIENT_SECRET" } }), "servers.remote.auth.oauth.clientSecret", "clientId"],
        [
          http({ oauth: { clientMetadataUrl: "http://gateway.example.com/client.json" } }),
          "servers.remote.auth.oauth.clientMetadataUrl",
          "https URL with a path"
        ],
        [
          http({ oauth: {}, perPrincipal: { "role:x": { headers: { a: "b" } } } }),
          "servers.remote.auth.perPrincipal",
          "not with oauth"
        ],
        [http({ oauth: {} }, { sessions: "shared" }), "servers.remote.sessions", "auth.oauth"],
        [
          http({ clientCredentials: client }, { token: "static-SECRET-0004" }),
          "servers.remote.token",
          "set one of them"
        ],
        [http({ exchange: client }), "servers.remote.auth.exchange", "listen.oauth"],
        [
          http({ clientCredentials: { ...client, tokenUrl: "http://auth.example.com/token" } }),
          "servers.remote.auth.clientCredentials.tokenUrl",
          "https"
        ],
        [
          http({ clientCredentials: { ...client, clientSecret: "env:NOT_SET" } }),
          "servers.remote.auth.clientCredentials.clientSecret",
          "NOT_SET"
        ],
        [
          http({ clientCredentials: { ...client, resource: "not a uri" } }),
          "servers.remote.auth.clientCredentials.resource",
          "absolute URI"
        ],
        [
          { ...http({ perPrincipal: { carol: { headers: { a: "b" } } } }), listen: PRINCIPALS },
          "servers.remote.auth.perPrincipal.carol",
          "listen.principals"
        ],
        [
          http({ perPrincipal: { "role:": { headers: { a: "b" } } } }),
          "servers.remote.auth.perPrincipal.role:",
          "role name"
        ],
        [
          http({ perPrincipal: { "role:x": { headers: { "mcp-session-id": "b" } } } }),
          "servers.remote.auth.perPrincipal.role:x.headers.mcp-session-id",
          "header name"
        ],
        [
          http({ perPrincipal: { "role:x": { headers: { a: "file:missing.key" } } } }),
          "servers.remote.auth.perPrincipal.role:x.headers.a",
          "cannot read missing.key"
        ],
        [
          http({ perPrincipal: { "role:x": { headers: { a: "file:empty.key" } } } }),
          "servers.remote.auth.perPrincipal.role:x.headers.a",
          "empty"
        ],
        [
          http({ perPrincipal: { "role:x": { headers: { a: "b" } } } }, { sessions: "shared" }),
          "servers.remote.sessions",
          "per-principal"
        ],
        [
          http({ clientCredentials: client, perPrincipal: { "role:x": { headers: { a: "b" } } } }),
          "servers.remote.auth.perPrincipal",
          "not with clientCredentials"
        ],
        [
          http({ identity: { audience: "a", header: "Authorization" } }),
          "servers.remote.auth.identity.header",
          "other than Authorization"
        ],
        [http({ identity: { audience: "a", ttlSeconds: 0 } }), "servers.remote.auth.identity.ttlSeconds", ""],
        [
          { servers: { local: { command: "node", auth: { perPrincipal: { "role:x": { env: { A: "b" } } } } } } },
          "servers.local.sessions",
          "per-principal"
        ],
        [
          { servers: { local: { command: "node", auth: { perPrincipal: { "role:x": { headers: { A: "b" } } } } } } },
          "(root)",
          "is not a known key"
        ],
        [{ servers: {}, credentials: { identityKey: "not-a-key-SECRET-0005" } }, "credentials.identityKey", "PKCS #8"]
      ]
      for (const [raw, where, detail] of cases) {
        const error = yield* errorOf(raw)
        assert.strictEqual(error.path, where, `${where}: ${error.message}`)
        assert.include(error.detail, detail)
      }
    }))

  it.effect("credentials.identityKey takes an EC P-256, RSA or Ed25519 PKCS #8 key, from a file", () =>
    Effect.gen(function*() {
      const pem = (pair: { readonly privateKey: KeyObject }) =>
        String(pair.privateKey.export({ type: "pkcs8", format: "pem" }))
      const keys = {
        "p256.pem": pem(generateKeyPairSync("ec", { namedCurve: "P-256" })),
        "rsa.pem": pem(generateKeyPairSync("rsa", { modulusLength: 2048 })),
        "ed.pem": pem(generateKeyPairSync("ed25519"))
      }
      for (const [file, key] of Object.entries(keys)) {
        writeFileSync(path.join(dir, file), key)
        const plan = yield* okPlan({ servers: {}, credentials: { identityKey: `file:${file}` } })
        assert.strictEqual(Redacted.value(plan.identityKey!), key.replace(/\n$/, ""))
      }
      writeFileSync(path.join(dir, "p384.pem"), pem(generateKeyPairSync("ec", { namedCurve: "P-384" })))
      const error = yield* errorOf({ servers: {}, credentials: { identityKey: "file:p384.pem" } })
      assert.strictEqual(error.path, "credentials.identityKey")
    }))

  it.live(
    "check --connect lists the shared servers and says a per-principal one connects for each principal",
    () =>
      Effect.gen(function*() {
        const { cli, writeConfig } = cliIn("interlock-auth-check-")
        const file = writeConfig("auth.json", {
          servers: {
            echo: echoServer,
            local: {
              command: NODE,
              args: [path.join(import.meta.dirname, "fixtures", "env-server.ts")],
              env: { RECORD_FILE: path.join(dir, "never-spawned.jsonl") },
              sessions: "per-principal",
              auth: { perPrincipal: { alice: { env: { API_KEY: "env:ALICE_KEY" } } } }
            }
          },
          policy: { default: "allow" },
          listen: { principals: { alice: { token: "env:ALICE_TOKEN" } } }
        })
        const { code, stdout, stderr } = yield* cli(["check", "--config", file], undefined, {
          ALICE_KEY: "alice-key-SECRET-0007",
          ALICE_TOKEN: "alice-token-00000007"
        })
        assert.strictEqual(code, 0, stderr)
        assert.include(stdout, "auth: perPrincipal (1), per-principal sessions")
        assert.include(stdout, "local  per-principal: connects at each principal's first call, not listed here")
        assert.match(stdout, /Exposed tools \(\d+\):[\s\S]*\n {2}echo__echo\n/)
        assert.notInclude(stdout + stderr, MARK)
      }),
    60_000
  )
})
