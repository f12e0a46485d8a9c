/**
 * `auth.exchange` on the wire: the gateway's RFC 8693 request to a real authorization server
 * (oidc-provider's token-exchange grant, test/oauth-server.ts) carries the principal's verified
 * access token as the subject token, the access-token types, and the configured resource,
 * audience and scope, with the gateway's client credentials; the downstream verifies the minted
 * token with jose and sees the principal as its subject. A 2025 host that refreshes its access
 * token on the same session has its new token exchanged, not the one it opened the session with.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { callTool, hostClient } from "./credential-harness.ts"
import { jwtSubject, startDownstream } from "./downstream-server.ts"
import { startGateway } from "./e2e.ts"
import { type AuthClient, startAuthServer, TOKEN_EXCHANGE } from "./oauth-server.ts"

const ALICE: AuthClient = { id: "alice", secret: "alice-secret-0000001", scopes: ["mcp:tools"] }
const GATEWAY: AuthClient = { id: "gateway", secret: "gateway-secret-00003", scopes: ["mcp:tools"], exchanges: true }
const ACCESS_TOKEN = "urn:ietf:params:oauth:token-type:access_token"

const setup = Effect.gen(function*() {
  let check: ((req: Parameters<Parameters<typeof startDownstream>[0]>[0]) => Promise<string | undefined>) | undefined
  // Authorization headers the downstream refuses from now on (a token revoked there).
  const revoked = new Set<string>()
  const downstream = yield* startDownstream((req) =>
    revoked.has(req.headers.authorization ?? "")
      ? Promise.resolve(undefined)
      : check?.(req) ?? Promise.resolve(undefined)
  )
  const auth = yield* startAuthServer([ALICE, GATEWAY])
  check = jwtSubject(auth.issuer, downstream.url)
  const { http } = yield* startGateway({
    servers: {
      user: {
        url: downstream.url,
        auth: {
          exchange: {
            tokenUrl: `${auth.issuer}/token`,
            clientId: GATEWAY.id,
            clientSecret: "env:GATEWAY_SECRET",
            resource: downstream.url,
            audience: "downstream-api",
            scope: "mcp:tools"
          }
        }
      }
    },
    policy: { default: "allow" },
    listen: { oauth: { issuer: auth.issuer } }
  }, { GATEWAY_SECRET: GATEWAY.secret })
  return { auth, downstream, mcpUrl: http.mcpUrl, revoke: (header: string) => void revoked.add(header) }
})

describe("auth.exchange", () => {
  it.live(
    "the RFC 8693 request: the principal's verified token as subject, the configured resource, " +
      "audience and scope",
    () =>
      Effect.gen(function*() {
        const { auth, downstream, mcpUrl } = yield* setup
        const token = yield* auth.token(ALICE, mcpUrl, "mcp:tools")
        const alice = yield* hostClient(mcpUrl, () => token)
        assert.strictEqual((yield* callTool(alice, "whoami", { tag: "one" })).text, "alice:one")
        const exchange = auth.tokenRequests().find((request) => request.grant === TOKEN_EXCHANGE)
        assert.deepStrictEqual(exchange?.params, {
          grant_type: TOKEN_EXCHANGE,
          subject_token: token,
          subject_token_type: ACCESS_TOKEN,
          requested_token_type: ACCESS_TOKEN,
          resource: downstream.url,
          audience: "downstream-api",
          scope: "mcp:tools"
        })
        assert.strictEqual(exchange?.client, "gateway")
        assert.notStrictEqual(downstream.calls[0].authorization, `Bearer ${token}`)
      })
  )

  it.live("an exchanged token the server refuses is exchanged anew once, and the call goes through as alice", () =>
    Effect.gen(function*() {
      const { auth, downstream, mcpUrl, revoke } = yield* setup
      const token = yield* auth.token(ALICE, mcpUrl, "mcp:tools")
      const alice = yield* hostClient(mcpUrl, () => token)
      assert.strictEqual((yield* callTool(alice, "whoami", { tag: "one" })).text, "alice:one")
      revoke(downstream.calls[0].authorization!)
      assert.strictEqual((yield* callTool(alice, "whoami", { tag: "two" })).text, "alice:two")
      const exchanges = auth.tokenRequests().filter((request) => request.grant === TOKEN_EXCHANGE)
      assert.deepStrictEqual(exchanges.map((request) => request.params.subject_token), [token, token])
      assert.deepStrictEqual(downstream.calls.map((call) => call.tag), ["one", "two"])
      assert.notStrictEqual(downstream.calls[1].authorization, downstream.calls[0].authorization)
    }))

  it.live("a 2025 host that refreshes its token on its session: the next exchange trades the new token", () =>
    Effect.gen(function*() {
      const { auth, downstream, mcpUrl } = yield* setup
      let token = yield* auth.token(ALICE, mcpUrl, "mcp:tools")
      const alice = yield* hostClient(mcpUrl, () => token, "2025")
      assert.strictEqual((yield* callTool(alice, "whoami", { tag: "before" })).text, "alice:before")
      const first = token
      token = yield* auth.token(ALICE, mcpUrl, "mcp:tools")
      assert.notStrictEqual(token, first)
      assert.strictEqual((yield* callTool(alice, "whoami", { tag: "after" })).text, "alice:after")
      const subjects = auth.tokenRequests().filter((request) => request.grant === TOKEN_EXCHANGE).map((request) =>
        request.params.subject_token
      )
      assert.deepStrictEqual(subjects, [first, token])
      assert.strictEqual(downstream.calls.length, 2)
    }))
})
