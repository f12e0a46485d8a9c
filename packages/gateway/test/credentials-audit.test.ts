/**
 * Each audit row names how its call was authenticated downstream (`authForm`) and which grant it
 * went with (`authGrant`, an opaque id), through the real gateway over HTTP, in SQLite and in
 * Postgres: a clientCredentials call's row, exchange rows whose grant differs between principals
 * and stays the same for one principal's calls within its token's lifetime (and changes with a new
 * token), perPrincipal and identity, a refused call that names no form; no token in any row.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type { AuditRecord } from "../src/audit/GatewayAuditRecord.ts"
import { callTool, firstOf, hostClient } from "./credential-harness.ts"
import { apiKeys, type Downstream, jwtSubject, startDownstream } from "./downstream-server.ts"
import { startGateway } from "./e2e.ts"
import { type AuthClient, startAuthServer } from "./oauth-server.ts"
import { usePostgres } from "./postgres.ts"

const ALICE: AuthClient = { id: "alice", secret: "alice-SECRET-0000000a1", scopes: ["mcp:tools"] }
const BOB: AuthClient = { id: "bob", secret: "bob-SECRET-00000000b2", scopes: ["mcp:tools"] }
const GATEWAY: AuthClient = { id: "gateway", secret: "gateway-SECRET-000c3", scopes: ["mcp:tools"], exchanges: true }
const STATIC = { carol: "carol-static-SECRET-d4", dave: "dave-static-SECRET-0e5" }
const DAVE_KEY = "dave-api-key-SECRET-f6"

const postgres = usePostgres()

/**
 * The auth server, a downstream, and a gateway with `svc` (clientCredentials) and `user` (exchange, perPrincipal for
 * dave), auditing to `audit`.
 */
const world = (audit: Record<string, unknown>, env: Record<string, string>, ttl = 300) =>
  Effect.gen(function*() {
    let check: ((req: Parameters<Parameters<typeof startDownstream>[0]>[0]) => Promise<string | undefined>) | undefined
    const downstream = yield* startDownstream((req) => check?.(req) ?? Promise.resolve(undefined))
    const auth = yield* startAuthServer([ALICE, BOB, GATEWAY], {
      accessTokenTtl: (resource) => (resource === downstream.url ? ttl : 300)
    })
    check = firstOf(jwtSubject(auth.issuer, downstream.url), apiKeys("x-api-key", { [DAVE_KEY]: "dave" }))
    const client = {
      tokenUrl: `${auth.issuer}/token`,
      clientId: GATEWAY.id,
      clientSecret: "env:GATEWAY_SECRET",
      resource: downstream.url,
      scope: "mcp:tools"
    }
    const { gateway, http } = yield* startGateway({
      servers: {
        svc: { url: downstream.url, auth: { clientCredentials: client } },
        user: {
          url: downstream.url,
          auth: {
            exchange: client,
            perPrincipal: { dave: { headers: { "x-api-key": "env:DAVE_KEY" } } },
            identity: { audience: "https://user.example/mcp" }
          }
        }
      },
      policy: { default: "allow" },
      audit: { ...audit, capture: "full" },
      listen: {
        oauth: { issuer: auth.issuer },
        principals: { carol: { token: "env:CAROL" }, dave: { token: "env:DAVE" } }
      }
    }, { GATEWAY_SECRET: GATEWAY.secret, DAVE_KEY, CAROL: STATIC.carol, DAVE: STATIC.dave, ...env })
    const hostTokens = {
      alice: yield* auth.token(ALICE, http.mcpUrl, "mcp:tools"),
      bob: yield* auth.token(BOB, http.mcpUrl, "mcp:tools")
    }
    const host = (token: string) => hostClient(http.mcpUrl, () => token)
    const hosts = {
      alice: yield* host(hostTokens.alice),
      bob: yield* host(hostTokens.bob),
      carol: yield* host(STATIC.carol),
      dave: yield* host(STATIC.dave)
    }
    return { downstream, gateway, hosts, hostTokens }
  })

/** Every secret that went over any wire: the hosts' tokens, what the downstream got, the configured secrets. */
const secretsOf = (downstream: Downstream, hostTokens: Readonly<Record<string, string>>): ReadonlyArray<string> => [
  ...Object.values(hostTokens),
  ...downstream.seen.flatMap((seen) =>
    [seen.headers.authorization, seen.headers["interlock-identity"], seen.headers["x-api-key"]].flatMap((value) =>
      typeof value === "string" ? [value.replace(/^Bearer /, "")] : []
    )
  ),
  GATEWAY.secret,
  ...Object.values(STATIC),
  DAVE_KEY
]

const rowOf = (rows: ReadonlyArray<AuditRecord>, tag: string): AuditRecord => {
  const row = rows.find((r) => JSON.stringify(r.args ?? {}).includes(`"${tag}"`))
  assert.isDefined(row, `no row for ${tag}`)
  return row!
}

const scenario = (audit: Effect.Effect<{ audit: Record<string, unknown>; env: Record<string, string> }>) =>
  Effect.gen(function*() {
    const { audit: store, env } = yield* audit
    const w = yield* world(store, env)
    const call = (who: keyof typeof w.hosts, tool: string, tag: string) => callTool(w.hosts[who], tool, { tag })
    assert.strictEqual((yield* call("alice", "svc__whoami", "alice-svc")).text, "gateway:alice-svc")
    assert.strictEqual((yield* call("bob", "svc__whoami", "bob-svc")).text, "gateway:bob-svc")
    assert.strictEqual((yield* call("alice", "user__whoami", "alice-1")).text, "alice:alice-1")
    assert.strictEqual((yield* call("alice", "user__whoami", "alice-2")).text, "alice:alice-2")
    assert.strictEqual((yield* call("bob", "user__whoami", "bob-1")).text, "bob:bob-1")
    assert.strictEqual((yield* call("dave", "user__whoami", "dave-1")).text, "dave:dave-1")
    assert.isTrue((yield* call("carol", "user__whoami", "carol-1")).isError)
    const rows = yield* w.gateway.store.query()
    const [svcA, svcB] = [rowOf(rows, "alice-svc"), rowOf(rows, "bob-svc")]
    // One service token for every principal: one grant.
    assert.deepStrictEqual([svcA.authForm, svcB.authForm], ["clientCredentials", "clientCredentials"])
    assert.match(svcA.authGrant ?? "", /^[0-9a-f]{16}$/)
    assert.strictEqual(svcA.authGrant, svcB.authGrant)
    const [a1, a2, b1] = [rowOf(rows, "alice-1"), rowOf(rows, "alice-2"), rowOf(rows, "bob-1")]
    for (const row of [a1, a2, b1]) {
      assert.strictEqual(row.authForm, "exchange+identity")
      assert.match(row.authGrant ?? "", /^[0-9a-f]{16}$/)
      assert.strictEqual(row.outcome, "ok")
    }
    assert.strictEqual(a1.authGrant, a2.authGrant, "alice's two calls within her token's lifetime share its grant")
    assert.notStrictEqual(a1.authGrant, b1.authGrant, "alice's and bob's grants differ")
    assert.notStrictEqual(a1.authGrant, svcA.authGrant)
    const dave = rowOf(rows, "dave-1")
    assert.strictEqual(dave.authForm, "perPrincipal+identity")
    assert.match(dave.authGrant ?? "", /^[0-9a-f]{16}$/)
    // A refused call was authenticated no way, and names no grant.
    const carol = rowOf(rows, "carol-1")
    assert.deepStrictEqual([carol.outcome, carol.sent], ["refused", false])
    assert.notProperty(carol, "authForm")
    assert.notProperty(carol, "authGrant")
    // No token or secret in any row (the row as stored, every field).
    const stored = JSON.stringify(rows)
    const secrets = secretsOf(w.downstream, w.hostTokens)
    assert.isAtLeast(secrets.length, 10)
    for (const secret of secrets) assert.notInclude(stored, secret)
    assert.notInclude(stored, "SECRET-")
    return w
  })

describe("the audit row's downstream credential", () => {
  it.live("SQLite: clientCredentials, exchange per principal, perPrincipal, a refusal with none; no token", () =>
    Effect.asVoid(scenario(Effect.succeed({ audit: { path: ":memory:" }, env: {} }))))

  it.live(
    "Postgres: the same rows, through the shared store",
    () =>
      Effect.asVoid(scenario(Effect.map(postgres.freshDatabase(), (database) => ({
        audit: { postgres: "env:AUDIT_URL" },
        env: { AUDIT_URL: postgres.url(database) }
      })))),
    60_000
  )

  it.live("a principal's new exchanged token (the old one expired) is a new grant", () =>
    Effect.gen(function*() {
      const w = yield* world({ path: ":memory:" }, {}, 2)
      yield* callTool(w.hosts.alice, "user__whoami", { tag: "alice-before" })
      yield* Effect.sleep("1600 millis")
      yield* callTool(w.hosts.alice, "user__whoami", { tag: "alice-after" })
      const rows = yield* w.gateway.store.query()
      const [before, after] = [rowOf(rows, "alice-before"), rowOf(rows, "alice-after")]
      assert.strictEqual(before.authForm, "exchange+identity")
      assert.notStrictEqual(before.authGrant, after.authGrant)
      const tokens = new Set(w.downstream.calls.map((c) => c.authorization))
      assert.strictEqual(tokens.size, 2, "the downstream got a new token")
    }))
})
