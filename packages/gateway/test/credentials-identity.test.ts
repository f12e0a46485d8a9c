/**
 * `auth.identity`: every call toward the server carries a short-lived JWT the gateway signed,
 * naming the principal, its roles and the call's digest (as its audit row records it), for the
 * configured audience. The downstream verifies it with jose against the gateway's key set, fetched
 * over real HTTP from `/.well-known/jwks.json`. The key is generated at start, or the configured
 * `credentials.identityKey`; the key set is public under the gateway's own Host names only.
 */
import { assert, describe, it } from "@effect/vitest"
import { Canonical } from "@interlock/core"
import { Effect } from "effect"
import { createPublicKey, generateKeyPairSync } from "node:crypto"
import { request } from "node:http"
import { callTool, hostClient } from "./credential-harness.ts"
import { startDownstream } from "./downstream-server.ts"
import { startGateway } from "./e2e.ts"

const TOKENS = { alice: "alice-host-token-000001", bob: "bob-host-token-00000002" }
const AUDIENCE = "https://downstream.example/mcp"
const HEADER = "X-Caller-Identity"

const setup = (extra: Record<string, unknown> = {}, env: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const downstream = yield* startDownstream(async () => "anyone")
    const { gateway, http } = yield* startGateway({
      servers: {
        svc: { url: downstream.url, auth: { identity: { audience: AUDIENCE, header: HEADER, ttlSeconds: 30 } } }
      },
      policy: { default: "allow" },
      listen: {
        principals: {
          alice: { token: "env:ALICE_TOKEN", roles: ["ops", "security"] },
          bob: { token: "env:BOB_TOKEN" }
        }
      },
      ...extra
    }, { ALICE_TOKEN: TOKENS.alice, BOB_TOKEN: TOKENS.bob, ...env })
    const origin = new URL(http.mcpUrl).origin
    downstream.expectIdentity({
      header: HEADER,
      jwksUrl: `${origin}/.well-known/jwks.json`,
      audience: AUDIENCE,
      issuer: origin
    })
    const alice = yield* hostClient(http.mcpUrl, () => TOKENS.alice)
    const bob = yield* hostClient(http.mcpUrl, () => TOKENS.bob)
    return { downstream, gateway, origin, alice, bob }
  })

const digestOf = (tag: string) => Canonical.digestJson({ serverId: "svc", name: "whoami", args: { tag } })

describe("auth.identity", () => {
  it.live(
    "each call's identity token names its principal, roles and digest, verified downstream against the " +
      "gateway's key set",
    () =>
      Effect.gen(function*() {
        const { downstream, gateway, alice, bob } = yield* setup()
        const answers = yield* Effect.all(
          Array.from(
            { length: 12 },
            (_, i) => callTool(i % 2 === 0 ? alice : bob, "whoami", { tag: `${i % 2 === 0 ? "alice" : "bob"}-${i}` })
          ),
          { concurrency: "unbounded" }
        )
        for (const answer of answers) assert.isFalse(answer.isError, answer.text)
        assert.strictEqual(downstream.calls.length, 12)
        const jtis = new Set<unknown>()
        for (const call of downstream.calls) {
          assert.isUndefined(call.identityError, call.identityError)
          const who = call.tag.split("-")[0]
          const claims = call.identity!
          assert.strictEqual(claims.sub, who, `${call.tag} named ${claims.sub}`)
          assert.deepStrictEqual(claims.roles, who === "alice" ? ["ops", "security"] : [])
          assert.strictEqual(claims.digest, digestOf(call.tag))
          assert.strictEqual(claims.server, "svc")
          assert.strictEqual(claims.aud, AUDIENCE)
          assert.strictEqual(Number(claims.exp) - Number(claims.iat), 30)
          jtis.add(claims.jti)
        }
        assert.strictEqual(jtis.size, 12, "every token is its own")
        // The digest is the one the audit row records for the call.
        const rows = yield* gateway.store.query()
        for (const call of downstream.calls) {
          assert.isTrue(
            rows.some((row) => row.digest === call.identity?.digest && row.principal === call.identity?.sub)
          )
        }
      })
  )

  it.live("a configured key signs, and the published key set is its public part", () =>
    Effect.gen(function*() {
      const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" })
      const pem = String(privateKey.export({ type: "pkcs8", format: "pem" }))
      const { downstream, origin, alice } = yield* setup({ credentials: { identityKey: "env:IDENTITY_KEY" } }, {
        IDENTITY_KEY: pem
      })
      const jwks = yield* Effect.promise(() =>
        fetch(`${origin}/.well-known/jwks.json`).then((res) =>
          res.json() as Promise<{ keys: Array<Record<string, unknown>> }>
        )
      )
      const published = createPublicKey(pem).export({ format: "jwk" })
      assert.strictEqual(jwks.keys.length, 1)
      assert.deepStrictEqual([jwks.keys[0].x, jwks.keys[0].y, jwks.keys[0].alg], [published.x, published.y, "ES256"])
      assert.isUndefined(jwks.keys[0].d, "no private part is published")
      assert.strictEqual((yield* callTool(alice, "whoami", { tag: "alice-1" })).text, "anyone:alice-1")
      assert.strictEqual(downstream.calls[0].identity?.sub, "alice")
    }))

  it.live(
    "the key set is public, GET only, under the gateway's Host names; a gateway that signs " +
      "nothing has none",
    () =>
      Effect.gen(function*() {
        const { origin } = yield* setup()
        // node:http, not fetch: a test must be able to send another Host.
        const status = (options: { method?: string; host?: string }, url = `${origin}/.well-known/jwks.json`) =>
          Effect.promise(() =>
            new Promise<number>((resolve, reject) => {
              const headers = options.host === undefined ? {} : { host: options.host }
              request(url, { method: options.method ?? "GET", headers }, (res) => {
                res.resume()
                resolve(res.statusCode ?? 0)
              }).on("error", reject).end()
            })
          )
        assert.strictEqual(yield* status({}), 200)
        assert.strictEqual(yield* status({ method: "POST" }), 405)
        assert.strictEqual(yield* status({ host: "evil.example" }), 403)
        const plain = yield* startGateway({ servers: {}, policy: { default: "allow" } })
        assert.strictEqual(yield* status({}, `${new URL(plain.http.mcpUrl).origin}/.well-known/jwks.json`), 404)
      })
  )
})
