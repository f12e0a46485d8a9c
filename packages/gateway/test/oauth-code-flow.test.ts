/**
 * The MCP authorization flow a desktop host (Claude Desktop and the like) uses, end to end through
 * the gateway: SDK 2.4's client with its own OAuth machinery (test/oauth-host.ts) connects without
 * a token, meets the gateway's 401, discovers the protected-resource and authorization-server
 * metadata, registers itself (RFC 7591), sends the person to an authorization URL with PKCE (S256)
 * and `resource` (RFC 8707); the person logs in at a real authorization server (oidc-provider on
 * loopback, test/oauth-server.ts); `finishAuth` redeems the code, and the host calls tools as that
 * person. Another person's login is that person to the policy; the code is worthless without its
 * verifier; the refresh token renews an expired access token without a new login.
 */
import { assert, describe, it } from "@effect/vitest"
import { auth as sdkAuth, Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client"
import { Effect } from "effect"
import { decodeJwt } from "jose"
import { echoServer, startGateway } from "./e2e.ts"
import { DesktopHost, REDIRECT_URI } from "./oauth-host.ts"
import { type AuthServer, startAuthServer } from "./oauth-server.ts"
import { recorder } from "./security/call-recorder.ts"

/** A gateway with `listen.oauth: { issuer }` over the echo fixture and a recording server; only alice may call. */
const setup = Effect.gen(function*() {
  const auth = yield* startAuthServer([])
  const bank = recorder()
  const { http } = yield* startGateway({
    servers: { echo: echoServer, bank: bank.server },
    policy: { default: "deny", rules: [{ id: "alice-only", match: "*", principals: ["alice"], decision: "allow" }] },
    listen: { oauth: { issuer: auth.issuer } }
  })
  return { auth, bank, http }
})

const transportFor = (url: string, host: DesktopHost) =>
  new StreamableHTTPClientTransport(new URL(url), { authProvider: host, fetch: host.fetch })

/**
 * A host's first connection: refused for want of a token; the SDK has registered and asked the host to open the
 * authorization URL.
 */
const firstConnect = (url: string, host: DesktopHost) =>
  Effect.promise(async () => {
    const transport = transportFor(url, host)
    const failure = await new Client({ name: "desktop-host", version: "1.0.0" }).connect(transport).then(
      () => undefined,
      (error: unknown) => error
    )
    return { transport, failure }
  })

/** A connected client on a fresh transport (after `finishAuth`), closed with the scope. */
const connect = (url: string, host: DesktopHost) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name: "desktop-host", version: "1.0.0" })
      await client.connect(transportFor(url, host))
      return client
    }),
    (client) => Effect.promise(() => client.close().catch(() => undefined))
  )

/** The whole sign-in: first connection, the person's visit as `user`, `finishAuth` with the callback's parameters. */
const signIn = (url: string, auth: AuthServer, host: DesktopHost, user: string) =>
  Effect.gen(function*() {
    const { transport, failure } = yield* firstConnect(url, host)
    assert.isTrue(failure instanceof UnauthorizedError, `first connect: ${String(failure)}`)
    const callback = yield* auth.authorize(host.authorizations.at(-1) ?? assert.fail("no authorization URL"), user)
    yield* Effect.promise(() => transport.finishAuth(callback.searchParams))
    return callback
  })

/** A tool call's outcome: a tool error and a refused request (a JSON-RPC error) are both `isError`. */
const call = (client: Client, name: string, args: Record<string, unknown>) =>
  Effect.promise(() =>
    client.callTool({ name, arguments: args }).then(
      (result) => ({
        isError: result.isError === true,
        text: (result.content as Array<{ text?: string }>).map((block) => block.text ?? "").join("")
      }),
      (error: unknown) => ({ isError: true, text: String(error) })
    )
  )

const accessClaims = (host: DesktopHost) => decodeJwt(host.tokens()?.access_token ?? assert.fail("no access token"))

/**
 * The requests the host made from the `from`th on, one line each ("POST gateway /mcp 401"), origins named "gateway" and
 * "issuer".
 */
const seenBy = (host: DesktopHost, mcpUrl: string, issuer: string, from = 0) => {
  const gateway = new URL(mcpUrl).origin
  const where = (url: string) =>
    url.startsWith(issuer)
      ? `issuer ${url.slice(issuer.length)}`
      : url.startsWith(gateway)
      ? `gateway ${url.slice(gateway.length)}`
      : url
  return host.sent.slice(from).map((sent) => `${sent.method} ${where(sent.url)} ${sent.status}`)
}

describe("OAuth: a desktop host's authorization-code flow with PKCE and dynamic registration", () => {
  it.live("401, discovery, registration, PKCE S256 with resource, alice's login, finishAuth, tools as alice", () =>
    Effect.gen(function*() {
      const { auth, http } = yield* setup
      const host = new DesktopHost()
      const gateway = new URL(http.mcpUrl).origin
      const callback = yield* signIn(http.mcpUrl, auth, host, "alice")

      // What the host met, in order: the 401, both metadata documents, its registration, then (after the visit) the
      // token.
      const seen = seenBy(host, http.mcpUrl, auth.issuer)
      assert.strictEqual(seen[0], "POST gateway /mcp 401")
      assert.includeMembers(seen, [
        "GET gateway /.well-known/oauth-protected-resource/mcp 200",
        "POST issuer /reg 201",
        "POST issuer /token 200"
      ])
      assert.isTrue(
        seen.some((line) =>
          /^GET issuer \/\.well-known\/(oauth-authorization-server|openid-configuration) 200$/.test(line)
        ),
        seen.join("\n")
      )
      assert.isBelow(seen.indexOf("POST issuer /reg 201"), seen.indexOf("POST issuer /token 200"))
      const discovery = host.discoveryState() ?? assert.fail("no discovery state")
      assert.strictEqual(discovery.resourceMetadataUrl, `${gateway}/.well-known/oauth-protected-resource/mcp`)
      assert.deepStrictEqual(discovery.resourceMetadata?.authorization_servers, [auth.issuer])
      assert.strictEqual(discovery.authorizationServerMetadata?.issuer, auth.issuer)

      // The authorization URL the host opened.
      const registered = host.clientInformation() ?? assert.fail("not registered")
      const [authorization] = host.authorizations
      const params = Object.fromEntries(authorization.searchParams)
      assert.strictEqual(host.authorizations.length, 1)
      assert.strictEqual(params.response_type, "code")
      assert.strictEqual(params.client_id, registered.client_id)
      assert.strictEqual(params.redirect_uri, REDIRECT_URI)
      assert.strictEqual(params.code_challenge_method, "S256")
      assert.match(params.code_challenge, /^[A-Za-z0-9_-]{43}$/)
      assert.strictEqual(params.resource, http.mcpUrl)
      assert.deepStrictEqual(params.scope.split(" ").sort(), ["mcp:tools", "offline_access"])
      assert.strictEqual(params.state, host.states[0])

      // The redirect back to the host: a code, the same state, the issuer (RFC 9207).
      assert.strictEqual(`${callback.origin}${callback.pathname}`, REDIRECT_URI)
      assert.strictEqual(callback.searchParams.get("state"), params.state)
      assert.strictEqual(callback.searchParams.get("iss"), auth.issuer)
      assert.isNotNull(callback.searchParams.get("code"))

      // The token: for the gateway's MCP URL, from the issuer, naming alice.
      const claims = accessClaims(host)
      assert.strictEqual(claims.aud, http.mcpUrl)
      assert.strictEqual(claims.iss, auth.issuer)
      assert.strictEqual(claims.sub, "alice")
      assert.strictEqual(claims.client_id, registered.client_id)
      assert.include(String(claims.scope).split(" "), "mcp:tools")
      assert.isString(host.tokens()?.refresh_token)

      const client = yield* connect(http.mcpUrl, host)
      const tools = yield* Effect.promise(() => client.listTools())
      assert.includeMembers(tools.tools.map((tool) => tool.name), ["echo__echo", "bank__transfer_funds"])
      assert.deepStrictEqual(yield* call(client, "echo__echo", { text: "signed in as alice" }), {
        isError: false,
        text: "signed in as alice"
      })
    }))

  it.live(
    "mallory signs in through the same flow: she is mallory to the policy, her call is denied and never " +
      "reaches the server",
    () =>
      Effect.gen(function*() {
        const { auth, bank, http } = yield* setup
        const malloryHost = new DesktopHost()
        yield* signIn(http.mcpUrl, auth, malloryHost, "mallory")
        assert.strictEqual(accessClaims(malloryHost).sub, "mallory")
        const mallory = yield* connect(http.mcpUrl, malloryHost)
        const denied = yield* call(mallory, "bank__transfer_funds", { to: "ACCT-M", memo: "mallory" })
        assert.deepStrictEqual(denied, {
          isError: true,
          text: "Interlock: denied by policy: no policy rule allows this call"
        })
        assert.isTrue((yield* call(mallory, "echo__echo", { text: "hello" })).isError)
        assert.strictEqual(bank.received(), "")

        // The same tool, through the same gateway, for alice's login.
        const aliceHost = new DesktopHost()
        yield* signIn(http.mcpUrl, auth, aliceHost, "alice")
        const alice = yield* connect(http.mcpUrl, aliceHost)
        assert.deepStrictEqual(yield* call(alice, "bank__transfer_funds", { to: "ACCT-A", memo: "alice" }), {
          isError: false,
          text: "sent to ACCT-A"
        })
        assert.deepStrictEqual(bank.received().trim().split("\n").map((line) => JSON.parse(line)), [{
          name: "transfer_funds",
          args: { to: "ACCT-A", memo: "alice" }
        }])
      })
  )
})

/** A token request made by hand as the host's registered public client (its `client_id`, for `resource`). */
const tokenRequest = (auth: AuthServer, host: DesktopHost, resource: string, params: Record<string, string>) =>
  Effect.promise(async () => {
    const res = await fetch(`${auth.issuer}/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ client_id: host.clientInformation()?.client_id ?? "", resource, ...params })
    })
    return { status: res.status, body: await res.json() as { error?: string; access_token?: string } }
  })

/** The code redeemed by hand, with `extra` parameters (or none: no verifier). */
const redeem = (auth: AuthServer, host: DesktopHost, code: string, resource: string, extra: Record<string, string>) =>
  tokenRequest(auth, host, resource, { grant_type: "authorization_code", code, redirect_uri: REDIRECT_URI, ...extra })

describe("OAuth: PKCE is required, S256 only", () => {
  it.live("the code is refused without its verifier or with another one; with the host's own it is redeemed", () =>
    Effect.gen(function*() {
      const { auth, http } = yield* setup
      const host = new DesktopHost()
      const { transport } = yield* firstConnect(http.mcpUrl, host)
      const callback = yield* auth.authorize(host.authorizations[0]!, "alice")
      const code = callback.searchParams.get("code") ?? assert.fail(`no code: ${callback}`)
      const without = yield* redeem(auth, host, code, http.mcpUrl, {})
      assert.deepStrictEqual([without.status, without.body.error, without.body.access_token], [
        400,
        "invalid_grant",
        undefined
      ])
      const other = yield* redeem(auth, host, code, http.mcpUrl, { code_verifier: "x".repeat(43) })
      assert.deepStrictEqual([other.status, other.body.error, other.body.access_token], [
        400,
        "invalid_grant",
        undefined
      ])
      assert.isUndefined(host.tokens())
      // The failed attempts left the code unused: the SDK redeems it with the verifier it kept.
      yield* Effect.promise(() => transport.finishAuth(callback.searchParams))
      assert.strictEqual(accessClaims(host).sub, "alice")
      const client = yield* connect(http.mcpUrl, host)
      assert.strictEqual((yield* call(client, "echo__echo", { text: "verified" })).text, "verified")
      // A code is single use: replayed with the right verifier, it is refused.
      const replayed = yield* redeem(auth, host, code, http.mcpUrl, {
        code_verifier: yield* Effect.promise(async () => host.codeVerifier())
      })
      assert.deepStrictEqual([replayed.status, replayed.body.error, replayed.body.access_token], [
        400,
        "invalid_grant",
        undefined
      ])
    }))

  it.live(
    "a code the person granted for another resource gives a token the gateway refuses, and nothing " +
      "reaches a server",
    () =>
      Effect.gen(function*() {
        const { auth, bank, http } = yield* setup
        const host = new DesktopHost()
        yield* firstConnect(http.mcpUrl, host)
        const elsewhere = "http://127.0.0.1:9/other-mcp"
        const url = new URL(host.authorizations[0]!)
        url.searchParams.set("resource", elsewhere)
        const code = (yield* auth.authorize(url, "alice")).searchParams.get("code") ?? assert.fail("no code")
        const issued = yield* redeem(auth, host, code, elsewhere, {
          code_verifier: yield* Effect.promise(async () => host.codeVerifier())
        })
        const token = issued.body.access_token ?? assert.fail(`no token: ${JSON.stringify(issued.body)}`)
        assert.deepStrictEqual([decodeJwt(token).aud, decodeJwt(token).sub], [elsewhere, "alice"])
        const refused = yield* Effect.promise(() =>
          fetch(http.mcpUrl, {
            method: "POST",
            headers: {
              authorization: `Bearer ${token}`,
              "content-type": "application/json",
              accept: "application/json, text/event-stream"
            },
            body: JSON.stringify({
              jsonrpc: "2.0",
              id: 1,
              method: "tools/call",
              params: { name: "bank__transfer_funds", arguments: { to: "ACCT-X", memo: "x" } }
            })
          }).then(async (res) => ({
            status: res.status,
            challenge: res.headers.get("www-authenticate") ?? "",
            body: await res.text()
          }))
        )
        assert.strictEqual(refused.status, 401)
        assert.include(refused.challenge, `error="invalid_token"`)
        assert.notInclude(refused.body, "ACCT-X")
        assert.strictEqual(bank.received(), "")
      })
  )

  it.live("an authorization request with the plain method, or without a challenge, gets no code", () =>
    Effect.gen(function*() {
      const { auth, http } = yield* setup
      const host = new DesktopHost()
      yield* firstConnect(http.mcpUrl, host)
      const good = host.authorizations[0]!
      const plain = new URL(good)
      plain.searchParams.set("code_challenge_method", "plain")
      plain.searchParams.set("code_challenge", "x".repeat(43))
      const none = new URL(good)
      none.searchParams.delete("code_challenge")
      none.searchParams.delete("code_challenge_method")
      for (const url of [plain, none]) {
        const answer = yield* auth.authorize(url, "alice")
        assert.strictEqual(`${answer.origin}${answer.pathname}`, REDIRECT_URI)
        assert.strictEqual(answer.searchParams.get("error"), "invalid_request")
        assert.isNull(answer.searchParams.get("code"))
      }
    }))
})

describe("OAuth: refresh tokens", () => {
  it.live(
    "an access token the gateway refuses is renewed with the refresh token, without a login, and the call " +
      "goes through",
    () =>
      Effect.gen(function*() {
        const { auth, http } = yield* setup
        const host = new DesktopHost()
        yield* signIn(http.mcpUrl, auth, host, "alice")
        const first = accessClaims(host)
        const firstRefresh = host.tokens()?.refresh_token
        const client = yield* connect(http.mcpUrl, host)
        assert.strictEqual((yield* call(client, "echo__echo", { text: "before" })).text, "before")
        host.spoilAccessToken()
        const logins = host.authorizations.length
        const sentBefore = host.sent.length
        assert.deepStrictEqual(yield* call(client, "echo__echo", { text: "after refresh" }), {
          isError: false,
          text: "after refresh"
        })
        const renewed = accessClaims(host)
        assert.strictEqual(host.authorizations.length, logins)
        assert.notStrictEqual(renewed.jti, first.jti)
        assert.deepStrictEqual([renewed.aud, renewed.sub, renewed.iss], [http.mcpUrl, "alice", auth.issuer])
        const during = seenBy(host, http.mcpUrl, auth.issuer, sentBefore)
        assert.deepStrictEqual(during.filter((line) => line.includes("/token")), ["POST issuer /token 200"])
        assert.include(during, "POST gateway /mcp 401")
        // auth() from the SDK renews again on request, as a host's reconnect does.
        const second = host.tokens()?.refresh_token
        assert.strictEqual(
          yield* Effect.promise(() => sdkAuth(host, { serverUrl: http.mcpUrl, fetchFn: host.fetch })),
          "AUTHORIZED"
        )
        assert.strictEqual(host.authorizations.length, logins)
        assert.notStrictEqual(host.tokens()?.refresh_token, second)
        // The refresh token is rotated (a public client's is), and a spent one no longer works.
        const spent = yield* tokenRequest(auth, host, http.mcpUrl, {
          grant_type: "refresh_token",
          refresh_token: firstRefresh ?? ""
        })
        assert.notStrictEqual(host.tokens()?.refresh_token, firstRefresh)
        assert.deepStrictEqual([spent.status, spent.body.error, spent.body.access_token], [
          400,
          "invalid_grant",
          undefined
        ])
      })
  )
})
