/**
 * The `oauth` tests' world: a downstream that publishes RFC 9728 metadata and verifies bearer JWTs of a real
 * authorization server (oidc-provider), a gateway with `auth.oauth` over it and two principals' hosts, and the
 * browser's side of the connect flow (the link's page and form, the sign-in, the callback) done with fetch.
 */
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { request } from "node:http"
import { hostClient } from "./credential-harness.ts"
import { jwtSubject, startDownstream } from "./downstream-server.ts"
import { startGateway } from "./e2e.ts"
import { type AuthServer, startAuthServer } from "./oauth-server.ts"

/** The two principals' host tokens. */
export const TOKENS = { alice: "alice-host-token-000001", bob: "bob-host-token-00000002" }
/** The gateway's approvals.stateKey, which seals connect links (a test can seal its own). */
export const STATE_KEY = "a-state-key-of-at-least-thirty-two-chars"

/**
 * The authorization server and the downstream (with `legacySessions`, a stateful 2025 server with a session per
 * initialize); `revoke` makes the downstream refuse an Authorization header.
 */
export const remoteWorldWith = (options: { readonly legacySessions?: boolean }) =>
  Effect.gen(function*() {
    const revoked = new Set<string>()
    let check: ReturnType<typeof jwtSubject> | undefined
    let issuer = ""
    const downstream = yield* startDownstream(
      (req) =>
        revoked.has(req.headers.authorization ?? "")
          ? Promise.resolve(undefined)
          : check?.(req) ?? Promise.resolve(undefined),
      { authorizationServer: () => issuer, ...options }
    )
    const auth = yield* startAuthServer([])
    issuer = auth.issuer
    check = jwtSubject(auth.issuer, downstream.url)
    return { auth, downstream, revoke: (header: string) => void revoked.add(header) }
  })

/** {@link remoteWorldWith} a downstream of the current revision. */
export const remoteWorld = remoteWorldWith({})

/** What {@link remoteWorld} gives. */
export type RemoteWorld = Effect.Success<ReturnType<typeof remoteWorldWith>>

/**
 * A gateway over `world`'s downstream as server `remote` with `auth.oauth`, `extra` config merged in, and alice's
 * (2025-11-25) and bob's (2026-07-28) hosts; closed with the scope.
 */
export const gatewayOver = (
  world: RemoteWorld,
  extra: Record<string, unknown> = {},
  env: Record<string, string> = {}
) =>
  Effect.gen(function*() {
    const { gateway, http } = yield* startGateway({
      servers: { remote: { url: world.downstream.url, auth: { oauth: { scope: "mcp:tools offline_access" } } } },
      policy: { default: "allow" },
      listen: { principals: { alice: { token: TOKENS.alice }, bob: { token: TOKENS.bob } } },
      approvals: { stateKey: STATE_KEY },
      ...extra
    }, env)
    const alice = yield* hostClient(http.mcpUrl, () => TOKENS.alice)
    const bob = yield* hostClient(http.mcpUrl, () => TOKENS.bob, "2026")
    return { gateway, http, alice, bob }
  })

/** A world and a gateway over it. */
export const setup = Effect.gen(function*() {
  const world = yield* remoteWorld
  return { ...world, ...(yield* gatewayOver(world)) }
})

/** The connect link in a refusal's text. */
export const linkIn = (text: string): URL => {
  const found = /https?:\/\/\S+\/connect\/\S+?(?= in a browser)/.exec(text)?.[0]
  return new URL(found ?? assert.fail(`no connect link in: ${text}`))
}

/** What the browser gets for posting the link's form: the status, where it is sent, the binding cookie. */
export const post = (
  link: URL,
  value = link.searchParams.get("link") ?? "",
  headers: Record<string, string> = {}
) =>
  Effect.promise(async () => {
    const response = await fetch(new URL(link.pathname, link.origin), {
      method: "POST",
      redirect: "manual",
      // As a browser posts the page's form: with the page's origin.
      headers: { "content-type": "application/x-www-form-urlencoded", origin: link.origin, ...headers },
      body: new URLSearchParams({ link: value })
    })
    const cookie = response.headers.get("set-cookie")?.split(";")[0]
    return { status: response.status, location: response.headers.get("location"), cookie, text: await response.text() }
  })

/** The status of the link's form posted with another Host header (node:http: fetch cannot set one). */
export const postWithHost = (link: URL, value: string, host: string) =>
  Effect.callback<number>((resume) => {
    const body = new URLSearchParams({ link: value }).toString()
    const req = request(link, {
      method: "POST",
      headers: { host, "content-type": "application/x-www-form-urlencoded", "content-length": Buffer.byteLength(body) }
    }, (res) => {
      res.resume()
      resume(Effect.succeed(res.statusCode ?? 0))
    })
    req.end(body)
  })

/** The callback's page, in a browser holding `cookie` (or none). */
export const land = (callback: URL, cookie: string | undefined) =>
  Effect.promise(async () => {
    const response = await fetch(callback, { headers: cookie === undefined ? {} : { cookie } })
    return { status: response.status, text: await response.text() }
  })

/** The whole visit of a person who signs in as `user`: the page, the form, the sign-in, the callback. */
export const connect = (link: URL, auth: AuthServer, user: string) =>
  Effect.gen(function*() {
    const shown = yield* Effect.promise(() =>
      fetch(link).then(async (r) => ({ status: r.status, text: await r.text() }))
    )
    assert.strictEqual(shown.status, 200)
    assert.include(shown.text, "Continue to sign in")
    const started = yield* post(link)
    assert.strictEqual(started.status, 303, started.text)
    const callback = yield* auth.authorize(new URL(started.location ?? assert.fail("no redirect")), user)
    return { started, callback, landed: yield* land(callback, started.cookie) }
  })
