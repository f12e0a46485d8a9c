/**
 * The gateway as an OAuth 2.1 resource server, against a real authorization server (oidc-provider
 * on loopback, test/oauth-server.ts): SDK 2.4's client finds the authorization server from the
 * 401's `resource_metadata`, gets a token (client_credentials) and calls a real stdio tool through
 * the gateway; the token's subject is the principal rules match, its roles decide Cedar rules and
 * `role:NAME` approvers; static tokens keep working beside it; a key rotation is picked up.
 */
import { assert, describe, it } from "@effect/vitest"
import { Client, ClientCredentialsProvider, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Effect } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { echoServer, httpClient, startGateway } from "./e2e.ts"
import { type AuthClient, type AuthServer, startAuthServer } from "./oauth-server.ts"

const ALICE: AuthClient = {
  id: "alice",
  secret: "alice-secret-0001",
  scopes: ["mcp:tools"],
  roles: ["ops", "security"]
}
const BOB: AuthClient = { id: "bob", secret: "bob-secret-0002", scopes: ["mcp:tools"] }

const oauthListen = (auth: AuthServer, extra: Record<string, unknown> = {}) => ({
  oauth: { issuer: auth.issuer, rolesClaim: "roles", requiredScopes: ["mcp:tools"], ...extra }
})

/** An SDK client that signs in with client_credentials, discovering everything from the gateway's 401. */
const oauthClient = (url: string, auth: AuthServer, who: AuthClient) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const authProvider = new ClientCredentialsProvider({
        clientId: who.id,
        clientSecret: who.secret,
        scope: "mcp:tools",
        expectedIssuer: auth.issuer
      })
      const client = new Client({ name: "oauth-host", version: "1.0.0" })
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider }))
      return client
    }),
    (client) => Effect.promise(() => client.close().catch(() => undefined))
  )

const text = (result: Awaited<ReturnType<Client["callTool"]>>) =>
  (result.content as Array<{ text?: string }>).map((block) => block.text ?? "").join("")

const call = (client: Client, name: string, args: Record<string, unknown>) =>
  Effect.promise(() =>
    client.callTool({ name, arguments: args }).then((result) => ({
      isError: result.isError === true,
      text: text(result)
    }))
  )

describe("OAuth: SDK client flow end to end", () => {
  it.live("discovery from the 401, a client_credentials token, a real tool call through the gateway", () =>
    Effect.gen(function*() {
      const auth = yield* startAuthServer([ALICE])
      const { http } = yield* startGateway({
        servers: { echo: echoServer },
        policy: { default: "allow" },
        listen: oauthListen(auth)
      })
      const refused = yield* Effect.promise(() =>
        fetch(http.mcpUrl, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })
      )
      const metadataUrl = `${new URL(http.mcpUrl).origin}/.well-known/oauth-protected-resource/mcp`
      assert.strictEqual(refused.status, 401)
      assert.strictEqual(
        refused.headers.get("www-authenticate"),
        `Bearer scope="mcp:tools", resource_metadata="${metadataUrl}"`
      )
      for (const url of [metadataUrl, `${new URL(http.mcpUrl).origin}/.well-known/oauth-protected-resource`]) {
        const metadata = yield* Effect.promise(() =>
          fetch(url).then(async (res) => ({
            status: res.status,
            cors: res.headers.get("access-control-allow-origin"),
            body: await res.json()
          }))
        )
        assert.deepStrictEqual(metadata, {
          status: 200,
          cors: "*",
          body: {
            resource: http.mcpUrl,
            authorization_servers: [auth.issuer],
            bearer_methods_supported: ["header"],
            scopes_supported: ["mcp:tools"],
            resource_name: "Interlock gateway"
          }
        })
      }
      const client = yield* oauthClient(http.mcpUrl, auth, ALICE)
      assert.deepStrictEqual(yield* call(client, "echo", { text: "through OAuth" }), {
        isError: false,
        text: "through OAuth"
      })
    }))

  it.live("the token's subject is the principal that rules match; static tokens keep working beside OAuth", () =>
    Effect.gen(function*() {
      const auth = yield* startAuthServer([ALICE, BOB])
      const { http } = yield* startGateway({
        servers: { echo: echoServer },
        policy: {
          default: "allow",
          rules: [{ id: "alice-writes", match: "echo/write_file", principals: ["alice", "ci"], decision: "allow" }, {
            id: "no-writes",
            match: "echo/write_file",
            decision: "deny"
          }]
        },
        listen: { ...oauthListen(auth), principals: { ci: { token: "env:CI_TOKEN" } } }
      }, { CI_TOKEN: "ci-static-token-0001" })
      const args = { path: "/tmp/x", content: "y" }
      const alice = yield* oauthClient(http.mcpUrl, auth, ALICE)
      const bob = yield* oauthClient(http.mcpUrl, auth, BOB)
      const ci = yield* httpClient(http.mcpUrl, { token: "ci-static-token-0001" })
      assert.deepStrictEqual(yield* call(alice, "write_file", args), { isError: false, text: "wrote /tmp/x" })
      assert.deepStrictEqual(yield* call(ci, "write_file", args), { isError: false, text: "wrote /tmp/x" })
      const denied = yield* call(bob, "write_file", args)
      assert.isTrue(denied.isError)
      assert.include(denied.text, "no-writes")
    }))

  it.live("roles from the roles claim decide a Cedar rule", () =>
    Effect.gen(function*() {
      const dir = mkdtempSync(path.join(tmpdir(), "interlock-oauth-"))
      const cedar = path.join(dir, "policy.cedar")
      writeFileSync(
        cedar,
        `permit(principal in Interlock::Role::"ops", action, resource);\npermit(principal, action, resource) when { ` +
          `action != Interlock::Action::"callTool" };\n`
      )
      const auth = yield* startAuthServer([ALICE, BOB])
      const { http } = yield* startGateway({
        servers: { echo: echoServer },
        policy: { cedar },
        listen: oauthListen(auth)
      })
      const alice = yield* oauthClient(http.mcpUrl, auth, ALICE)
      const bob = yield* oauthClient(http.mcpUrl, auth, BOB)
      assert.deepStrictEqual(yield* call(alice, "echo", { text: "ops may" }), { isError: false, text: "ops may" })
      const denied = yield* call(bob, "echo", { text: "not ops" })
      assert.isTrue(denied.isError)
      assert.include(denied.text, "no Cedar policy permits this request")
    }))

  it.live(
    "a role of the roles claim makes an approver: bob's call waits, alice (role:security) approves it in the " +
      "console with her token",
    () =>
      Effect.gen(function*() {
        const auth = yield* startAuthServer([ALICE, BOB])
        const { http } = yield* startGateway({
          servers: { echo: echoServer },
          policy: { default: "allow", rules: [{ id: "ask-writes", match: "echo/write_file", decision: "ask" }] },
          approvals: { approvers: ["role:security"], timeoutSeconds: 60 },
          listen: oauthListen(auth)
        })
        const bob = yield* oauthClient(http.mcpUrl, auth, BOB)
        const pending = Effect.runPromise(call(bob, "write_file", { path: "/tmp/approved", content: "z" }))
        const aliceToken = yield* auth.token(ALICE, http.mcpUrl, "mcp:tools")
        const bobToken = yield* auth.token(BOB, http.mcpUrl, "mcp:tools")
        const api = (token: string, pathname: string, body?: unknown) =>
          Effect.promise(() =>
            fetch(new URL(pathname, http.consoleUrl), {
              method: body === undefined ? "GET" : "POST",
              headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
              ...(body === undefined ? {} : { body: JSON.stringify(body) })
            }).then(async (res) => ({
              status: res.status,
              body: await res.json() as { viewer?: unknown; approvals?: Array<{ id: string; digest: string }> }
            }))
          )
        let approvals: Array<{ id: string; digest: string }> = []
        for (let i = 0; i < 400 && approvals.length === 0; i++) {
          const state = yield* api(aliceToken, "/api/state")
          assert.deepStrictEqual(state.body.viewer, { role: "approver", id: "alice" })
          approvals = state.body.approvals ?? []
          if (approvals.length === 0) yield* Effect.sleep("25 millis")
        }
        assert.strictEqual(approvals.length, 1)
        const [approval] = approvals
        // bob is a caller, not an approver: he cannot answer his own call.
        assert.strictEqual(
          (yield* api(bobToken, `/api/approvals/${approval.id}`, { decision: "allow", digest: approval.digest }))
            .status,
          403
        )
        assert.strictEqual(
          (yield* api(aliceToken, `/api/approvals/${approval.id}`, { decision: "allow", digest: approval.digest }))
            .status,
          200
        )
        assert.deepStrictEqual(yield* Effect.promise(() => pending), { isError: false, text: "wrote /tmp/approved" })
      })
  )
})

describe("OAuth: key rotation", () => {
  it.live("the authorization server rotates its key: new tokens keep working (one refetch), old ones too", () =>
    Effect.gen(function*() {
      const auth = yield* startAuthServer([ALICE])
      const { http } = yield* startGateway({
        servers: { echo: echoServer },
        policy: { default: "allow" },
        listen: oauthListen(auth)
      })
      const before = yield* oauthClient(http.mcpUrl, auth, ALICE)
      assert.strictEqual((yield* call(before, "echo", { text: "old key" })).text, "old key")
      const fetched = auth.jwksRequests()
      const oldKid = auth.signingKey().kid
      yield* auth.rotate()
      assert.notStrictEqual(auth.signingKey().kid, oldKid)
      const after = yield* oauthClient(http.mcpUrl, auth, ALICE)
      assert.strictEqual((yield* call(after, "echo", { text: "new key" })).text, "new key")
      assert.strictEqual((yield* call(before, "echo", { text: "old key still" })).text, "old key still")
      assert.strictEqual(auth.jwksRequests(), fetched + 1)
    }))
})
