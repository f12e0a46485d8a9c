/**
 * Issue 23's attacks on downstream credentials (the ContextForge #1078 bug first): two principals
 * with their own OAuth access tokens call one server through the real gateway over HTTP, with
 * `auth.exchange` at a real authorization server (oidc-provider's RFC 8693 grant); the downstream
 * verifies every bearer token with jose and records who each call arrived as.
 * - No crossing: a call of alice arrives as alice, with a token minted for alice and an identity
 *   token (auth.identity) naming alice and that call, and bob's as bob, interleaved and
 *   concurrent, in both eras, and again after the exchanged tokens expired.
 * - No passthrough: the hosts' own tokens never reach the downstream.
 * - Fail closed: a static-token principal (no access token) is refused unless perPrincipal names
 *   it; a refused exchange sends nothing downstream. Each refusal is a CredentialError, audited.
 * - No secret in the logs, the audit rows or any error: not the gateway's client secret, the
 *   hosts' tokens (which the authorization server echoes in its refusal), nor the minted tokens.
 */
import { assert, describe, it } from "@effect/vitest"
import { Canonical } from "@interlock/core"
import type { Client } from "@modelcontextprotocol/client"
import { Effect } from "effect"
import { callTool, capturingLogs, firstOf, hostClient, type HostEra } from "../credential-harness.ts"
import { apiKeys, type Downstream, jwtSubject, startDownstream } from "../downstream-server.ts"
import { startGateway } from "../e2e.ts"
import { type AuthClient, type AuthServer, startAuthServer, TOKEN_EXCHANGE } from "../oauth-server.ts"

const ALICE: AuthClient = { id: "alice", secret: "alice-SECRET-00000001", scopes: ["mcp:tools"] }
const BOB: AuthClient = { id: "bob", secret: "bob-SECRET-000000002", scopes: ["mcp:tools"] }
const GATEWAY: AuthClient = { id: "gateway", secret: "gateway-SECRET-0000003", scopes: ["mcp:tools"], exchanges: true }
const STATIC = { carol: "carol-static-SECRET-04", dave: "dave-static-SECRET-005" }
const DAVE_KEY = "dave-api-key-SECRET-06"
const MARK = "SECRET-"
const IDENTITY_AUDIENCE = "https://user.example/mcp"

type Who = "alice" | "bob"

interface World {
  readonly auth: AuthServer
  readonly downstream: Downstream
  readonly gateway: Effect.Success<ReturnType<typeof startGateway>>["gateway"]
  readonly hosts: Readonly<Record<Who | keyof typeof STATIC, Client>>
  /** The hosts' own OAuth access tokens. */
  readonly hostTokens: Readonly<Record<Who, string>>
  readonly mcpUrl: string
}

/**
 * The auth server, the downstream, and a gateway whose server `user` exchanges each principal's token; dave has a
 * static key.
 */
const world = (
  options: { readonly protocol?: "auto" | "legacy"; readonly ttl?: number; readonly hosts?: HostEra } = {}
) =>
  Effect.gen(function*() {
    let check: ((req: Parameters<Parameters<typeof startDownstream>[0]>[0]) => Promise<string | undefined>) | undefined
    const downstream = yield* startDownstream((req) => check?.(req) ?? Promise.resolve(undefined), {
      legacySessions: options.protocol === "legacy"
    })
    const auth = yield* startAuthServer([ALICE, BOB, GATEWAY], {
      accessTokenTtl: (resource) => (resource === downstream.url ? options.ttl ?? 300 : 300)
    })
    check = firstOf(jwtSubject(auth.issuer, downstream.url), apiKeys("x-api-key", { [DAVE_KEY]: "dave" }))
    const { gateway, http } = yield* startGateway({
      servers: {
        user: {
          url: downstream.url,
          protocol: options.protocol ?? "auto",
          auth: {
            exchange: {
              tokenUrl: `${auth.issuer}/token`,
              clientId: GATEWAY.id,
              clientSecret: "env:GATEWAY_SECRET",
              resource: downstream.url,
              scope: "mcp:tools"
            },
            perPrincipal: { dave: { headers: { "x-api-key": "env:DAVE_KEY" } } },
            identity: { audience: IDENTITY_AUDIENCE }
          }
        }
      },
      policy: { default: "allow" },
      audit: { path: ":memory:", capture: "full" },
      listen: {
        oauth: { issuer: auth.issuer },
        principals: { carol: { token: "env:CAROL" }, dave: { token: "env:DAVE" } }
      }
    }, { GATEWAY_SECRET: GATEWAY.secret, DAVE_KEY, CAROL: STATIC.carol, DAVE: STATIC.dave })
    const origin = new URL(http.mcpUrl).origin
    downstream.expectIdentity({
      header: "Interlock-Identity",
      jwksUrl: `${origin}/.well-known/jwks.json`,
      audience: IDENTITY_AUDIENCE,
      issuer: origin
    })
    const hostTokens = {
      alice: yield* auth.token(ALICE, http.mcpUrl, "mcp:tools"),
      bob: yield* auth.token(BOB, http.mcpUrl, "mcp:tools")
    }
    const host = (token: string) => hostClient(http.mcpUrl, () => token, options.hosts)
    const hosts = {
      alice: yield* host(hostTokens.alice),
      bob: yield* host(hostTokens.bob),
      carol: yield* host(STATIC.carol),
      dave: yield* host(STATIC.dave)
    }
    const result: World = { auth, downstream, gateway, hosts, hostTokens, mcpUrl: http.mcpUrl }
    return result
  })

/** A deterministic shuffle (a small LCG), so a failing interleaving can be run again. */
const shuffled = <A>(items: ReadonlyArray<A>, seed: number): Array<A> => {
  const out = [...items]
  let state = seed
  for (let i = out.length - 1; i > 0; i--) {
    state = (state * 1103515245 + 12345) % 2147483648
    const j = state % (i + 1)
    ;[out[i], out[j]] = [out[j], out[i]]
  }
  return out
}

/** `count` calls split between alice and bob in a shuffled order, all at once, each staggered by a few ms. */
const interleaved = (w: World, count: number, seed: number, round: string) =>
  Effect.all(
    shuffled(Array.from({ length: count }, (_, i): Who => (i % 2 === 0 ? "alice" : "bob")), seed).map((who, i) => {
      const tag = `${who}-${round}-${i}`
      return Effect.map(
        Effect.delay(callTool(w.hosts[who], "whoami", { tag }), `${(i * 7) % 5} millis`),
        (answer) => ({ who, tag, answer })
      )
    }),
    { concurrency: "unbounded" }
  )

/** Asserts that every call arrived as its own principal, with a token no other principal's call carried. */
const assertNoCrossing = (w: World, sent: ReadonlyArray<{ who: Who; tag: string; answer: { text: string } }>) => {
  for (const { who, tag, answer } of sent) assert.strictEqual(answer.text, `${who}:${tag}`)
  const tokensOf = (who: Who) =>
    new Set(w.downstream.calls.filter((call) => call.tag.startsWith(`${who}-`)).map((call) => call.authorization))
  for (const call of w.downstream.calls) {
    const owner = call.tag.split("-")[0]
    assert.strictEqual(call.subject, owner, `call ${call.tag} arrived as ${call.subject}`)
    // The identity token beside it names the same principal, and this very call.
    assert.isUndefined(call.identityError, `${call.tag}: ${call.identityError}`)
    assert.strictEqual(call.identity?.sub, owner, `call ${call.tag}'s identity named ${call.identity?.sub}`)
    assert.strictEqual(
      call.identity?.digest,
      Canonical.digestJson({ serverId: "user", name: "whoami", args: { tag: call.tag } })
    )
  }
  const alice = tokensOf("alice")
  for (const token of tokensOf("bob")) assert.isFalse(alice.has(token), "a token carried calls of both principals")
  // Every HTTP request of the downstream was authenticated, and only as a principal that called.
  const callers = [...new Set(w.downstream.calls.map((call) => call.tag.split("-")[0]))]
  for (const seen of w.downstream.seen) assert.include(callers, seen.subject)
  // A 2025-era downstream session opened with one principal's credential carries no one else's requests.
  const sessions = new Map<string, Set<string | undefined>>()
  for (const seen of w.downstream.seen) {
    const id = seen.headers["mcp-session-id"]
    if (typeof id === "string") sessions.set(id, (sessions.get(id) ?? new Set()).add(seen.subject))
  }
  for (const [id, subjects] of sessions) assert.strictEqual(subjects.size, 1, `session ${id} carried ${[...subjects]}`)
  return sessions.size
}

/** Whether a text holds any host token or any token the downstream was sent. */
const tokensIn = (w: World, text: string): ReadonlyArray<string> => {
  const minted = w.downstream.calls.map((call) => call.authorization?.replace(/^Bearer /, "") ?? "")
  const identities = w.downstream.seen.map((seen) => String(seen.headers["interlock-identity"] ?? ""))
  return [...Object.values(w.hostTokens), ...minted, ...identities].filter((token) =>
    token !== "" && text.includes(token)
  )
}

describe("downstream credentials: no crossing", () => {
  const eras = [["auto", "2025"], ["legacy", "2025"], ["auto", "2026"], ["legacy", "2026"]] as const
  for (const [protocol, hosts] of eras) {
    it.live(
      `alice's and bob's interleaved concurrent calls each arrive as their own, one exchange each (server ` +
        `${protocol}, ${hosts} hosts)`,
      () =>
        Effect.gen(function*() {
          const w = yield* world({ protocol, hosts })
          const sent = yield* interleaved(w, 40, 7, "a")
          const sessions = assertNoCrossing(w, sent)
          // A 2025 server gets one session per principal; a 2026-07-28 one has none.
          assert.strictEqual(sessions, protocol === "legacy" ? 2 : 0)
          assert.strictEqual(w.downstream.calls.length, 40)
          const exchanges = w.auth.tokenRequests().filter((request) => request.grant === TOKEN_EXCHANGE)
          assert.deepStrictEqual(exchanges.map((request) => request.subject).sort(), ["alice", "bob"])
          assert.isTrue(exchanges.every((request) => request.client === "gateway" && request.status === 200))
          // No passthrough: the hosts' own tokens never went downstream.
          const downstreamSaw = JSON.stringify(w.downstream.seen)
          assert.notInclude(downstreamSaw, w.hostTokens.alice)
          assert.notInclude(downstreamSaw, w.hostTokens.bob)
          assert.notInclude(downstreamSaw, GATEWAY.secret)
        })
    )
  }

  it.live("after the exchanged tokens expire, each principal's next calls get a new token of its own", () =>
    Effect.gen(function*() {
      const w = yield* world({ ttl: 2 })
      const first = yield* interleaved(w, 10, 3, "a")
      yield* Effect.sleep("1600 millis")
      const second = yield* interleaved(w, 10, 11, "b")
      assertNoCrossing(w, [...first, ...second])
      const exchanges = w.auth.tokenRequests().filter((request) => request.grant === TOKEN_EXCHANGE)
      assert.deepStrictEqual(exchanges.map((request) => request.subject).sort(), ["alice", "alice", "bob", "bob"])
      const byRound = (round: string, who: Who) =>
        new Set(w.downstream.calls.filter((call) => call.tag.startsWith(`${who}-${round}`)).map((c) => c.authorization))
      for (const who of ["alice", "bob"] as const) {
        assert.strictEqual(byRound("a", who).size, 1)
        assert.strictEqual(byRound("b", who).size, 1)
        assert.notDeepEqual([...byRound("a", who)], [...byRound("b", who)], "the expired token was replaced")
      }
    }))

  it.live(
    "1,000 calls of alice and bob in 25 random interleavings, while their exchanged tokens expire and are replaced: " +
      "never crossed",
    () =>
      Effect.gen(function*() {
        // Issued for 3 s and kept for 1.5 s (less a second of rounding, then a quarter for the refresh margin), so a
        // token taken at the end of its keep still has 0.5 to 1.5 s to reach the server on a loaded machine.
        const w = yield* world({ ttl: 3 })
        const sent: Array<{ who: Who; tag: string; answer: { text: string } }> = []
        for (let round = 0; round < 25; round++) {
          sent.push(...(yield* interleaved(w, 40, 1000 + round * 7919, `r${round}`)))
        }
        assertNoCrossing(w, sent)
        assert.strictEqual(w.downstream.calls.length, 1000)
        // The tokens expired on the way, and each principal got its own new ones.
        const exchanges = w.auth.tokenRequests().filter((request) => request.grant === TOKEN_EXCHANGE)
        const mine = (who: Who) => exchanges.filter((request) => request.subject === who).length
        assert.isAtLeast(mine("alice"), 2, "alice's token was replaced")
        assert.isAtLeast(mine("bob"), 2, "bob's token was replaced")
        assert.strictEqual(mine("alice") + mine("bob"), exchanges.length)
      }),
    120_000
  )

  it.live(
    "a static-token principal is refused before anything is sent; one perPrincipal names goes with its " +
      "own key only",
    () =>
      Effect.gen(function*() {
        const w = yield* world()
        const refused = yield* callTool(w.hosts.carol, "whoami", { tag: "carol-1" })
        assert.isTrue(refused.isError)
        assert.strictEqual(
          refused.text,
          "Interlock: no credential for server user: the principal has no OAuth access token to exchange, and " +
            "auth.perPrincipal names it not; the request was not sent"
        )
        assert.deepStrictEqual(w.downstream.seen, [], "nothing reached the server")
        const dave = yield* callTool(w.hosts.dave, "whoami", { tag: "dave-1" })
        assert.strictEqual(dave.text, "dave:dave-1")
        const sent = yield* interleaved(w, 6, 5, "a")
        assertNoCrossing(w, sent)
        for (const call of w.downstream.calls) {
          const request = w.downstream.seen.find((seen) => seen.body.includes(`"${call.tag}"`))
          assert.strictEqual(request?.headers["x-api-key"] !== undefined, call.tag.startsWith("dave-"), call.tag)
        }
        const rows = yield* w.gateway.store.query()
        const carol = rows.find((row) => row.principal === "carol")
        assert.strictEqual(carol?.outcome, "refused")
        assert.strictEqual(carol?.sent, false)
        assert.include(carol?.error ?? "", "no OAuth access token")
      })
  )
})

describe("downstream credentials: fail closed, nothing leaks", () => {
  it.live(
    "a refused exchange sends nothing downstream; no secret or token in the answer, the audit " +
      "or the logs",
    () => {
      const lines: Array<string> = []
      return capturingLogs(
        lines,
        Effect.gen(function*() {
          const w = yield* world()
          assertNoCrossing(w, yield* interleaved(w, 4, 1, "ok"))
          // alice comes back with a new token, whose exchange the authorization server refuses, quoting
          // the form it was sent (the subject token) in its answer.
          const fresh = yield* w.auth.token(ALICE, w.mcpUrl, "mcp:tools")
          const again = yield* hostClient(w.mcpUrl, () => fresh)
          const seen = w.downstream.seen.length
          w.auth.refuseTokens(true)
          const refused = yield* callTool(again, "whoami", { tag: "alice-refused" })
          assert.isTrue(refused.isError)
          assert.strictEqual(
            refused.text,
            "Interlock: no credential for server user: the token endpoint refused (HTTP 400, invalid_grant); the " +
              "request was not sent"
          )
          assert.strictEqual(w.downstream.seen.length, seen, "nothing reached the server")
          const echoed = w.auth.tokenRequests().at(-1)
          assert.deepStrictEqual([echoed?.grant, echoed?.subject, echoed?.status], [TOKEN_EXCHANGE, "alice", 400])
          const rows = yield* w.gateway.store.query()
          const row = rows.find((r) => r.principal === "alice" && r.outcome === "refused")
          assert.strictEqual(row?.sent, false)
          assert.include(row?.error ?? "", "the token endpoint refused")
          const everything = [JSON.stringify(rows), lines.join("\n"), refused.text].join("\n")
          assert.notInclude(everything, MARK)
          assert.deepStrictEqual(tokensIn(w, everything), [])
          assert.notInclude(everything, fresh)
        })
      )
    }
  )
})
