/**
 * `listen.oauth` and `listen.publicUrl` in the config and the plan: defaults, and the mistakes each is refused for, by
 * path.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigError } from "@interlock/core"
import { Effect } from "effect"
import { fromObject } from "../src/config/ConfigLoader.ts"
import type { Plan } from "../src/config/Plan.ts"
import { makePlan } from "../src/runtime/PlanBuilder.ts"

const servers = { files: { command: "npx", args: ["x"] } }

/** The plan of a config with this `listen` (and `extra` keys), or its error. */
const planOf = (listen: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  Effect.map(
    Effect.result(fromObject({ servers, audit: { enabled: false }, listen, ...extra }, process.cwd())),
    (loaded) => loaded._tag === "Failure" ? loaded.failure : makePlan(loaded.success, { env: {} })
  )

const errorPath = (result: Plan | ConfigError): string => result instanceof ConfigError ? result.path : "accepted"

describe("listen.oauth", () => {
  it.effect(
    "resolves with its defaults: principal claim sub, no roles claim, no scopes, audience and key set " +
      "found later",
    () =>
      Effect.gen(function*() {
        const plan = yield* planOf({ oauth: { issuer: "https://auth.example.com" } })
        assert.notInstanceOf(plan, ConfigError)
        assert.deepStrictEqual((plan as Plan).listen.oauth, {
          issuer: "https://auth.example.com",
          audience: undefined,
          jwksUri: undefined,
          principalClaim: "sub",
          rolesClaim: undefined,
          requiredScopes: []
        })
      })
  )

  it.effect(
    "refuses an issuer or key set URL that is not https (http only on loopback) or carries credentials, and " +
      "an unknown key",
    () =>
      Effect.gen(function*() {
        assert.strictEqual(
          errorPath(yield* planOf({ oauth: { issuer: "http://auth.example.com" } })),
          "listen.oauth.issuer"
        )
        assert.strictEqual(errorPath(yield* planOf({ oauth: { issuer: "not a url" } })), "listen.oauth.issuer")
        assert.strictEqual(errorPath(yield* planOf({ oauth: { issuer: "http://127.0.0.1:9000" } })), "accepted")
        assert.strictEqual(
          errorPath(
            yield* planOf({
              oauth: { issuer: "https://auth.example.com", jwksUri: "https://u:p@auth.example.com/keys" }
            })
          ),
          "listen.oauth.jwksUri"
        )
        const typo = yield* planOf({ oauth: { issuer: "https://auth.example.com", principalClain: "email" } })
        assert.include(errorPath(typo), "listen.oauth")
      })
  )

  it.effect(
    "off loopback, OAuth alone is enough to bind, with listen.publicUrl; its host name is allowed " +
      "by default",
    () =>
      Effect.gen(function*() {
        const oauth = { issuer: "https://auth.example.com" }
        assert.strictEqual(errorPath(yield* planOf({ http: "0.0.0.0:7331" })), "listen.http")
        assert.strictEqual(errorPath(yield* planOf({ http: "0.0.0.0:7331", oauth })), "listen.publicUrl")
        assert.strictEqual(
          errorPath(yield* planOf({ http: "0.0.0.0:7331", oauth, publicUrl: "https://mcp.example.com/mcp" })),
          "listen.publicUrl"
        )
        const plan = (yield* planOf({ http: "0.0.0.0:7331", oauth, publicUrl: "https://mcp.example.com" })) as Plan
        assert.deepStrictEqual([plan.listen.publicUrl, plan.listen.allowedHosts], ["https://mcp.example.com", [
          "0.0.0.0",
          "mcp.example.com"
        ]])
      })
  )

  it.effect("approvers may name principals the authorization server names, only with OAuth", () =>
    Effect.gen(function*() {
      const approvals = { approvers: ["alice@example.com", "role:security"] }
      assert.strictEqual(errorPath(yield* planOf({ token: "t0ken-value" }, { approvals })), "approvals.approvers[0]")
      assert.strictEqual(
        errorPath(yield* planOf({ oauth: { issuer: "https://auth.example.com" } }, { approvals })),
        "accepted"
      )
    }))
})
