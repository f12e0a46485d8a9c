/**
 * The OAuth resource server against an attacker, over real HTTP, with a real authorization server
 * (oidc-provider, test/oauth-server.ts) and a real stdio server that records every call it gets.
 * Each bad token is sent as a tools/call on a live session of a legitimate host, so that only the
 * token stands between it and the tool: forged, tampered, expired, not yet valid, for another
 * audience or from another issuer, `alg: none`, HS256 keyed with the issuer's public key, without
 * `exp` or a subject, a flood of unknown kids (the issuer's key set is not hammered), a token
 * without the required scope, and principal B's valid token on principal A's session. Each asserts
 * that the tool never ran, and that no answer echoes the token or its claims.
 */
import { assert, describe, it } from "@effect/vitest"
import { Client, ClientCredentialsProvider, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Effect } from "effect"
import { generateKeyPair, SignJWT } from "jose"
import { createPublicKey } from "node:crypto"
import { UNKNOWN_KEY_REFETCHES } from "../../src/front/http/auth/KeySet.ts"
import { startGateway } from "../e2e.ts"
import { type AuthClient, type AuthServer, startAuthServer } from "../oauth-server.ts"
import { recorder } from "./call-recorder.ts"

const ALICE: AuthClient = { id: "alice", secret: "alice-secret-0001", scopes: ["mcp:tools", "mcp:admin"] }
const BOB: AuthClient = { id: "bob", secret: "bob-secret-0002", scopes: ["mcp:tools"] }
/** A claim value no answer may repeat. */
const MARKER = "mallory-MARKER-7731"

/** How many calls a recorder has received. */
const callsOf = (bank: ReturnType<typeof recorder>) => bank.received().split("\n").filter((line) => line !== "").length

/** A gateway over a recording server with OAuth on, and alice's live session (SDK client). */
const setup = (requiredScopes: ReadonlyArray<string> = ["mcp:tools"]) =>
  Effect.gen(function*() {
    const auth = yield* startAuthServer([ALICE, BOB])
    const bank = recorder()
    const { http } = yield* startGateway({
      servers: { bank: bank.server },
      policy: { default: "allow" },
      listen: { oauth: { issuer: auth.issuer, requiredScopes } }
    })
    const transport = new StreamableHTTPClientTransport(new URL(http.mcpUrl), {
      authProvider: new ClientCredentialsProvider({
        clientId: ALICE.id,
        clientSecret: ALICE.secret,
        scope: requiredScopes.join(" "),
        expectedIssuer: auth.issuer
      })
    })
    const client = new Client({ name: "alice-host", version: "1.0.0" })
    yield* Effect.acquireRelease(Effect.promise(() => client.connect(transport)), () =>
      Effect.promise(() => client.close().catch(() => undefined)))
    const session = transport.sessionId ?? assert.fail("no session")
    return { auth, bank, http, client, session }
  })

interface Answer {
  readonly status: number
  readonly challenge: string
  readonly body: string
}

const CALL = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "transfer_funds", arguments: { to: "ACCT-1", memo: "stolen" } }
})

/** A raw tools/call (or another method) on `session` with `token`. */
const send = (
  url: string,
  session: string,
  token: string | undefined,
  method = "POST",
  extra: Record<string, string> = {}
) =>
  Effect.promise(async (): Promise<Answer> => {
    const res = await fetch(url, {
      method,
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": session,
        "mcp-protocol-version": "2025-11-25",
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        ...extra
      },
      ...(method === "POST" ? { body: CALL } : {})
    })
    return { status: res.status, challenge: res.headers.get("www-authenticate") ?? "", body: await res.text() }
  })

/** The claims of a token that would pass, for `auth` and the gateway at `mcpUrl`, with `changes` applied. */
const claims = (auth: AuthServer, mcpUrl: string, changes: Record<string, unknown> = {}) => {
  const now = Math.floor(Date.now() / 1000)
  // alice's subject: each forgery poses as the owner of the session it is sent on.
  const base: Record<string, unknown> = {
    iss: auth.issuer,
    aud: mcpUrl,
    sub: ALICE.id,
    scope: "mcp:tools",
    iat: now,
    exp: now + 300,
    note: MARKER
  }
  for (const [key, value] of Object.entries(changes)) value === undefined ? delete base[key] : (base[key] = value)
  return base
}

const attackerKey = () => Effect.promise(async () => (await generateKeyPair("RS256", { extractable: true })).privateKey)

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")

/** Asserts that `answer` is a 401 invalid_token refusal that repeats neither the token nor the marker. */
const refusedAsInvalid = (answer: Answer, token: string, what: string) => {
  assert.strictEqual(answer.status, 401, what)
  assert.include(answer.challenge, `error="invalid_token"`, what)
  assert.include(answer.challenge, "resource_metadata=", what)
  for (const text of [answer.challenge, answer.body]) {
    assert.notInclude(text, token, what)
    assert.notInclude(text, MARKER, what)
  }
}

describe("OAuth attacks: bad tokens never reach a tool", () => {
  it.live(
    "forged, tampered, expired, early, wrong audience or issuer, alg none, HS256 keyed with the public key, " +
      "no exp, no subject",
    () =>
      Effect.gen(function*() {
        const { auth, bank, http, session } = yield* setup()
        const url = http.mcpUrl
        const real = auth.signingKey()
        const kid = real.kid
        const now = Math.floor(Date.now() / 1000)
        const forger = yield* attackerKey()
        const valid = yield* auth.sign(claims(auth, url))
        const [head, , signature] = valid.split(".")
        const publicPem = String(
          createPublicKey({ key: { kty: "RSA", n: String(real.n), e: String(real.e) }, format: "jwk" }).export({
            type: "spki",
            format: "pem"
          })
        )
        const hmac = (secret: string) =>
          Effect.promise(() =>
            new SignJWT(claims(auth, url)).setProtectedHeader({ alg: "HS256", kid }).sign(
              new TextEncoder().encode(secret)
            )
          )
        const tokens: ReadonlyArray<readonly [string, string]> = [
          [
            "forged signature",
            yield* Effect.promise(() =>
              new SignJWT(claims(auth, url)).setProtectedHeader({ alg: "RS256", kid }).sign(forger)
            )
          ],
          ["tampered payload", `${head}.${b64(claims(auth, url, { sub: "admin" }))}.${signature}`],
          ["expired", yield* auth.sign(claims(auth, url, { iat: now - 900, exp: now - 120 }))],
          ["not yet valid", yield* auth.sign(claims(auth, url, { nbf: now + 600 }))],
          ["another audience", yield* auth.sign(claims(auth, url, { aud: "http://127.0.0.1:1/mcp" }))],
          [
            "another audience, issued by the real server",
            yield* auth.token(ALICE, "http://127.0.0.1:1/mcp", "mcp:tools")
          ],
          ["another issuer", yield* auth.sign(claims(auth, url, { iss: "http://127.0.0.1:1" }))],
          ["alg none", `${b64({ alg: "none", kid })}.${b64(claims(auth, url))}.`],
          ["alg none, signature kept", `${b64({ alg: "none", kid })}.${b64(claims(auth, url))}.${signature}`],
          ["HS256 keyed with the public key (PEM)", yield* hmac(publicPem)],
          ["HS256 keyed with the public key (n)", yield* hmac(String(real.n))],
          ["no exp", yield* auth.sign(claims(auth, url, { exp: undefined }))],
          ["no subject", yield* auth.sign(claims(auth, url, { sub: undefined }))],
          ["a subject that is not a string", yield* auth.sign(claims(auth, url, { sub: 42 }))],
          ["not a JWT", `${MARKER}-opaque`],
          ["a JWE-shaped token", `${b64({ alg: "dir", enc: "A256GCM" })}..${b64(MARKER)}.${b64(MARKER)}.${b64(MARKER)}`]
        ]
        for (const [what, token] of tokens) refusedAsInvalid(yield* send(url, session, token), token, what)
        // Nowhere but the Authorization header: a valid token in the query or a cookie is no token.
        for (const extra of [{ cookie: `interlock_token=${valid}` }]) {
          const answer = yield* send(url, session, undefined, "POST", extra)
          assert.deepStrictEqual([answer.status, answer.challenge.includes("error=")], [401, false])
        }
        const query = yield* send(`${url}?access_token=${valid}`, session, undefined)
        assert.strictEqual(query.status, 401)
        assert.strictEqual(callsOf(bank), 0, "no bad token reached the tool")
        // The same request with the valid token goes through: the attacks above were refused for their tokens alone.
        const control = yield* send(url, session, valid)
        assert.strictEqual(control.status, 200, control.body)
        assert.strictEqual(callsOf(bank), 1)
      })
  )

  it.live("a flood of unknown kids makes at most a few key set requests, and the tool never runs", () =>
    Effect.gen(function*() {
      const { auth, bank, http, session } = yield* setup()
      const before = auth.jwksRequests()
      const forger = yield* attackerKey()
      const flood = yield* Effect.forEach(
        Array.from({ length: 200 }, (_, i) => i),
        (i) =>
          Effect.flatMap(
            Effect.promise(() =>
              new SignJWT(claims(auth, http.mcpUrl)).setProtectedHeader({
                alg: "RS256",
                kid: `kid-${i}-${crypto.randomUUID()}`
              }).sign(forger)
            ),
            (token) => Effect.map(send(http.mcpUrl, session, token), (answer) => [answer, token] as const)
          ),
        { concurrency: 20 }
      )
      for (const [answer, token] of flood) refusedAsInvalid(answer, token, "unknown kid")
      assert.isAtMost(auth.jwksRequests() - before, UNKNOWN_KEY_REFETCHES)
      assert.strictEqual(callsOf(bank), 0)
      // The known keys still serve.
      assert.strictEqual((yield* send(http.mcpUrl, session, yield* auth.sign(claims(auth, http.mcpUrl)))).status, 200)
      assert.strictEqual(callsOf(bank), 1)
    }))

  it.live(
    "a token without the required scope is answered 403 insufficient_scope naming the scope, and the tool " +
      "never runs",
    () =>
      Effect.gen(function*() {
        const { auth, bank, http, session } = yield* setup(["mcp:tools", "mcp:admin"])
        const bobs = yield* auth.token(BOB, http.mcpUrl, "mcp:tools")
        const answer = yield* send(http.mcpUrl, session, bobs)
        assert.strictEqual(answer.status, 403)
        assert.include(answer.challenge, `error="insufficient_scope"`)
        assert.include(answer.challenge, `scope="mcp:tools mcp:admin"`)
        assert.notInclude(answer.body, bobs)
        const signed = yield* auth.sign(claims(auth, http.mcpUrl, { scope: "mcp:tools" }))
        assert.strictEqual((yield* send(http.mcpUrl, session, signed)).status, 403)
        assert.strictEqual(callsOf(bank), 0)
      })
  )

  it.live("principal B's valid token on principal A's session is refused: no call, no GET stream, no DELETE", () =>
    Effect.gen(function*() {
      const { auth, bank, client, http, session } = yield* setup()
      const bobs = yield* auth.token(BOB, http.mcpUrl, "mcp:tools")
      for (const method of ["POST", "GET", "DELETE"]) {
        const answer = yield* send(http.mcpUrl, session, bobs, method)
        assert.strictEqual(answer.status, 403, method)
        assert.notInclude(answer.body, bobs)
      }
      assert.strictEqual(callsOf(bank), 0)
      // A's session is untouched: her own call still goes through.
      const result = yield* Effect.promise(() =>
        client.callTool({ name: "transfer_funds", arguments: { to: "ACCT-2", memo: "mine" } })
      )
      assert.notStrictEqual(result.isError, true)
      assert.strictEqual(callsOf(bank), 1)
    }))
})
