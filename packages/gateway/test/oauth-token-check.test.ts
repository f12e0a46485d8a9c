/**
 * The OAuth resource server's parts on their own: the key set cache on a real loopback HTTP server
 * but Effect's TestClock (bounded unknown-kid refetch, age-based refresh, stale keys when the
 * issuer is down, discovery), token checks on a local key set (algorithm allow-list first, skew on
 * `exp`/`nbf`, claims), and the pure rules (list claims, the refetch budget, challenges).
 */
import { assert, describe, it } from "@effect/vitest"
import { Principal } from "@interlock/core"
import { Effect, Exit, Schema } from "effect"
import { TestClock } from "effect/testing"
import { createLocalJWKSet, exportJWK, generateKeyPair, type JWK, SignJWT } from "jose"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import {
  ALGORITHMS,
  CLOCK_SKEW_SECONDS,
  principalFromClaims,
  verifyAccessToken
} from "../src/front/http/auth/AccessToken.ts"
import { challengeHeader } from "../src/front/http/auth/BearerChallenge.ts"
import {
  type KeySetShape,
  makeKeySet,
  MAX_AGE_MS,
  metadataUrls,
  REFETCH_WINDOW_MS,
  refetchAllowed,
  RETRY_MS,
  UNKNOWN_KEY_REFETCHES
} from "../src/front/http/auth/KeySet.ts"
import { listClaim } from "../src/front/http/auth/TokenClaims.ts"
import { TokenRefused } from "../src/front/http/auth/TokenRefused.ts"
import { cachedVerify, VERIFIED_TTL_MS } from "../src/front/http/auth/VerifiedTokens.ts"

const signingKey = () =>
  Effect.promise(async () => {
    const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true })
    const kid = crypto.randomUUID()
    return { privateKey, kid, jwk: { ...(await exportJWK(publicKey)), kid, alg: "ES256", use: "sig" } as JWK }
  })

/**
 * A loopback issuer serving OpenID metadata (no RFC 8414 document) and a key set; counts key set requests; `down`
 * answers 500.
 */
const issuerServer = (keys: () => ReadonlyArray<JWK>, metadataIssuer?: string) =>
  Effect.gen(function*() {
    let jwks = 0
    let down = false
    let issuer = ""
    const server = createServer((req, res) => {
      if (down) return res.writeHead(500).end()
      if (req.url === "/.well-known/openid-configuration") {
        return res.writeHead(200, { "content-type": "application/json" }).end(
          JSON.stringify({ issuer: metadataIssuer ?? issuer, jwks_uri: `${issuer}/keys` })
        )
      }
      if (req.url === "/keys") {
        jwks++
        return res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: keys() }))
      }
      res.writeHead(404).end()
    })
    const port = yield* Effect.acquireRelease(
      Effect.callback<number>((resume) =>
        void server.listen(0, "127.0.0.1", () => resume(Effect.succeed((server.address() as AddressInfo).port)))
      ),
      () => Effect.callback<void>((resume) => void server.close(() => resume(Effect.void)))
    )
    issuer = `http://127.0.0.1:${port}`
    return { issuer, requests: () => jwks, setDown: (value: boolean) => (down = value) }
  })

const RULES = {
  issuer: "https://issuer.example",
  audience: "https://gw.example/mcp",
  principalClaim: "sub",
  rolesClaim: "roles",
  requiredScopes: []
}

/** A key set that holds `keys` and never fetches. */
const localKeys = (keys: ReadonlyArray<JWK>): KeySetShape => {
  const held = { generation: 1, resolve: createLocalJWKSet({ keys: [...keys] }) }
  return { current: Effect.succeed(held), refreshFor: () => Effect.succeed(undefined) }
}

const sign = (key: Parameters<SignJWT["sign"]>[0], kid: string, claims: Record<string, unknown>) =>
  Effect.promise(() => new SignJWT(claims).setProtectedHeader({ alg: "ES256", kid }).sign(key))

const refusal = <A>(effect: Effect.Effect<A, unknown>) =>
  Effect.map(Effect.exit(effect), (exit) => {
    if (Exit.isSuccess(exit)) return "accepted"
    const error = exit.cause.reasons.find((reason) => reason._tag === "Fail")
    return error !== undefined && error.error instanceof TokenRefused ? error.error.reason : "other"
  })

/** An issuer with one key, and a key set cache on it (found by discovery unless `direct`) that has fetched once. */
const cachedIssuer = (direct = false) =>
  Effect.gen(function*() {
    const key = yield* signingKey()
    const issuer = yield* issuerServer(() => [key.jwk])
    const keySet = yield* makeKeySet({ issuer: issuer.issuer, jwksUri: direct ? `${issuer.issuer}/keys` : undefined })
    const first = yield* keySet.current
    return { issuer, keySet, first }
  })

describe("KeySet", () => {
  it.effect("an unknown kid refetches at most UNKNOWN_KEY_REFETCHES times in the window, then again after it", () =>
    Effect.gen(function*() {
      const { first, issuer, keySet } = yield* cachedIssuer()
      assert.strictEqual(issuer.requests(), 1)
      let seen = first
      for (let i = 0; i < 20; i++) seen = (yield* keySet.refreshFor(seen)) ?? seen
      assert.strictEqual(issuer.requests(), 1 + UNKNOWN_KEY_REFETCHES)
      assert.isUndefined(yield* keySet.refreshFor(seen))
      yield* TestClock.adjust(REFETCH_WINDOW_MS)
      assert.isDefined(yield* keySet.refreshFor(seen))
      assert.strictEqual(issuer.requests(), 2 + UNKNOWN_KEY_REFETCHES)
    }))

  it.effect("concurrent requests for the same unknown kid share one fetch", () =>
    Effect.gen(function*() {
      const { first, issuer, keySet } = yield* cachedIssuer(true)
      const all = yield* Effect.forEach(Array.from({ length: 30 }), () => keySet.refreshFor(first), {
        concurrency: "unbounded"
      })
      assert.strictEqual(issuer.requests(), 2)
      assert.isTrue(all.every((keys) => keys?.generation === 2))
    }))

  it.effect(
    "keys older than MAX_AGE_MS are fetched again; with the issuer down, the stale keys serve and the fetch " +
      "waits RETRY_MS",
    () =>
      Effect.gen(function*() {
        const { first, issuer, keySet } = yield* cachedIssuer()
        yield* TestClock.adjust(MAX_AGE_MS - 1)
        assert.strictEqual((yield* keySet.current).generation, first.generation)
        yield* TestClock.adjust(1)
        assert.strictEqual((yield* keySet.current).generation, first.generation + 1)
        yield* TestClock.adjust(MAX_AGE_MS)
        issuer.setDown(true)
        assert.strictEqual((yield* keySet.current).generation, first.generation + 1)
        const requests = issuer.requests()
        yield* TestClock.adjust(RETRY_MS - 1)
        yield* keySet.current
        issuer.setDown(false)
        yield* keySet.current
        assert.strictEqual(issuer.requests(), requests)
        yield* TestClock.adjust(1)
        assert.strictEqual((yield* keySet.current).generation, first.generation + 2)
      })
  )

  it.effect(
    "discovery refuses metadata that names another issuer, and an issuer that is down, with " +
      "KeysUnavailable",
    () =>
      Effect.gen(function*() {
        const key = yield* signingKey()
        const liar = yield* issuerServer(() => [key.jwk], "https://someone-else.example")
        const error = yield* Effect.flip((yield* makeKeySet({ issuer: liar.issuer, jwksUri: undefined })).current)
        assert.deepStrictEqual([error._tag, error.detail], ["KeysUnavailable", "metadata names another issuer"])
        const down = yield* issuerServer(() => [key.jwk])
        down.setDown(true)
        assert.strictEqual(
          (yield* Effect.flip((yield* makeKeySet({ issuer: down.issuer, jwksUri: undefined })).current))._tag,
          "KeysUnavailable"
        )
      })
  )

  it("metadataUrls: RFC 8414 inserts the issuer's path, OpenID appends it", () => {
    assert.deepStrictEqual(metadataUrls("https://auth.example/tenant/1"), [
      "https://auth.example/.well-known/oauth-authorization-server/tenant/1",
      "https://auth.example/tenant/1/.well-known/openid-configuration"
    ])
    assert.deepStrictEqual(metadataUrls("https://auth.example"), [
      "https://auth.example/.well-known/oauth-authorization-server",
      "https://auth.example/.well-known/openid-configuration"
    ])
  })

  it.effect.prop("refetchAllowed never lets more than UNKNOWN_KEY_REFETCHES through in any window", [
    Schema.Array(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 200_000 })))
  ], ([gaps]) =>
    Effect.sync(() => {
      const taken: Array<number> = []
      let now = 0
      for (const gap of gaps) {
        now += gap
        if (refetchAllowed(taken, now)) taken.push(now)
      }
      for (const at of taken) {
        assert.isAtMost(
          taken.filter((other) => other >= at && other - at < REFETCH_WINDOW_MS).length,
          UNKNOWN_KEY_REFETCHES
        )
      }
    }))
})

describe("verifyAccessToken", () => {
  it.effect.prop("junk is refused as a token, never accepted", [Schema.String], ([token]) =>
    Effect.gen(function*() {
      const key = yield* signingKey()
      assert.notStrictEqual(yield* refusal(verifyAccessToken(token, RULES, localKeys([key.jwk]))), "accepted")
    }))

  it.effect.prop(
    "an algorithm outside the allow-list is refused before any key is looked up",
    [Schema.String],
    ([alg]) =>
      Effect.gen(function*() {
        const header = Buffer.from(
          JSON.stringify({ alg: (ALGORITHMS as ReadonlyArray<string>).includes(alg) ? `${alg}x` : alg })
        ).toString("base64url")
        const noKeys: KeySetShape = {
          current: Effect.die("no key may be looked up"),
          refreshFor: () => Effect.die("no key may be looked up")
        }
        assert.strictEqual(yield* refusal(verifyAccessToken(`${header}.e30.`, RULES, noKeys)), "algorithm")
      })
  )

  it.effect("exp and nbf hold with a skew of CLOCK_SKEW_SECONDS on Effect's Clock", () =>
    Effect.gen(function*() {
      const key = yield* signingKey()
      const keys = localKeys([key.jwk])
      const base = { iss: RULES.issuer, aud: RULES.audience, sub: "alice" }
      const expiring = yield* sign(key.privateKey, key.kid, { ...base, exp: 100 })
      const early = yield* sign(key.privateKey, key.kid, { ...base, nbf: 100, exp: 10_000 })
      yield* TestClock.setTime((100 - CLOCK_SKEW_SECONDS - 1) * 1000)
      assert.strictEqual(yield* refusal(verifyAccessToken(early, RULES, keys)), "not-yet-valid")
      yield* TestClock.setTime((100 - CLOCK_SKEW_SECONDS + 1) * 1000)
      assert.strictEqual(yield* refusal(verifyAccessToken(early, RULES, keys)), "accepted")
      yield* TestClock.setTime((100 + CLOCK_SKEW_SECONDS - 1) * 1000)
      assert.strictEqual(yield* refusal(verifyAccessToken(expiring, RULES, keys)), "accepted")
      yield* TestClock.setTime((100 + CLOCK_SKEW_SECONDS + 1) * 1000)
      assert.strictEqual(yield* refusal(verifyAccessToken(expiring, RULES, keys)), "expired")
    }))

  it.effect("an unknown kid is refused once the budget says no, and accepted once a refetch brings its key", () =>
    Effect.gen(function*() {
      const [old, rotated] = [yield* signingKey(), yield* signingKey()]
      const token = yield* sign(rotated.privateKey, rotated.kid, {
        iss: RULES.issuer,
        aud: RULES.audience,
        sub: "alice",
        exp: 10_000
      })
      assert.strictEqual(yield* refusal(verifyAccessToken(token, RULES, localKeys([old.jwk]))), "unknown-key")
      const refreshing: KeySetShape = {
        ...localKeys([old.jwk]),
        refreshFor: () =>
          Effect.succeed({ generation: 2, resolve: createLocalJWKSet({ keys: [old.jwk, rotated.jwk] }) })
      }
      assert.strictEqual(yield* refusal(verifyAccessToken(token, RULES, refreshing)), "accepted")
    }))
})

describe("cachedVerify", () => {
  it.effect(
    "a verified token is checked again after VERIFIED_TTL_MS or once past its validity, whichever is first; " +
      "a refusal is never kept",
    () =>
      Effect.gen(function*() {
        const checked: Array<string> = []
        const verify = cachedVerify((token: string) =>
          Effect.suspend(() => {
            checked.push(token)
            return token === "bad"
              ? Effect.fail("refused")
              : Effect.succeed({
                principal: new Principal({ id: token }),
                validUntilMs: token === "short" ? 5_000 : 3_600_000
              })
          })
        )
        for (const token of ["long", "long", "short", "short", "bad", "bad"]) yield* Effect.exit(verify(token))
        assert.deepStrictEqual(checked, ["long", "short", "bad", "bad"])
        yield* TestClock.adjust(5_000)
        yield* verify("short")
        yield* verify("long")
        assert.deepStrictEqual(checked.slice(4), ["short"])
        yield* TestClock.adjust(VERIFIED_TTL_MS)
        yield* verify("long")
        assert.deepStrictEqual(checked.slice(5), ["long"])
      })
  )
})

describe("token claims", () => {
  it("the principal claim, nested and string roles, scp scopes; a wrong shape is refused", () => {
    const rules = { ...RULES, principalClaim: "email", rolesClaim: "realm_access.roles", requiredScopes: ["mcp"] }
    const principal = principalFromClaims({
      email: "a@example.com",
      realm_access: { roles: ["ops"] },
      scp: ["mcp", "x"]
    }, rules)
    assert.deepStrictEqual(
      principal instanceof TokenRefused ? principal.reason : { id: principal.id, roles: principal.roles },
      { id: "a@example.com", roles: ["ops"] }
    )
    const spaced = principalFromClaims(
      { email: "b@example.com", "realm_access.roles": "ops  dev", scope: "mcp" },
      rules
    )
    assert.deepStrictEqual(spaced instanceof TokenRefused ? spaced.reason : spaced.roles, ["ops", "dev"])
    const reasons = [
      { email: "", scope: "mcp" },
      { email: "c@example.com", realm_access: { roles: [1] }, scope: "mcp" },
      { email: "c@example.com", realm_access: { roles: { admin: true } }, scope: "mcp" },
      { email: "c@example.com", scope: 7 },
      { email: "c@example.com", scope: "other" }
    ].map((claims) => {
      const result = principalFromClaims(claims, rules)
      return result instanceof TokenRefused ? result.reason : "accepted"
    })
    assert.deepStrictEqual(reasons, ["claims", "claims", "claims", "claims", "scope"])
  })

  it.effect.prop("a space-separated list claim reads back as its words", [
    Schema.Array(Schema.String.check(Schema.isPattern(/^[a-z:]{1,12}$/)))
  ], ([items]) =>
    Effect.sync(() => {
      assert.deepStrictEqual(listClaim(items.join(" ")), items)
      assert.deepStrictEqual(listClaim(items), items)
    }))

  it("challenges: no token, a bad one, a scope short", () => {
    const info = {
      resourceMetadataUrl: "https://gw.example/.well-known/oauth-protected-resource/mcp",
      requiredScopes: ["mcp:tools"]
    }
    assert.strictEqual(
      challengeHeader(info),
      `Bearer scope="mcp:tools", resource_metadata="https://gw.example/.well-known/oauth-protected-resource/mcp"`
    )
    assert.strictEqual(
      challengeHeader({ ...info, requiredScopes: [] }, { code: "invalid_token", description: "the token has expired" }),
      `Bearer error="invalid_token", error_description="the token has expired", ` +
        `resource_metadata="https://gw.example/.well-known/oauth-protected-resource/mcp"`
    )
  })
})
