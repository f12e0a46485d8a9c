/**
 * `auth.clientCredentials`: the gateway holds one service token per server, from a real
 * authorization server (oidc-provider on loopback, test/oauth-server.ts), and a real downstream
 * Streamable HTTP server verifies it with jose against that server's key set on every request
 * (test/downstream-server.ts). Every principal's calls carry the service token and never the
 * host's own; concurrent calls share one token request; a token near its expiry is replaced; a
 * refused token request sends nothing downstream and fails the call with a CredentialError that
 * names the server and the reason; no secret reaches the host, the audit or the logs.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Client } from "@modelcontextprotocol/client"
import { Effect } from "effect"
import { type Downstream, jwtSubject, startDownstream } from "./downstream-server.ts"
import { httpClient, startGateway } from "./e2e.ts"
import { recordingLogs } from "./leak-harness.ts"
import { type AuthClient, type AuthServer, startAuthServer } from "./oauth-server.ts"

const GATEWAY: AuthClient = { id: "gateway", secret: "gateway-SECRET-c0ffee01", scopes: ["mcp:tools"] }
const HOSTS = { alice: "alice-host-SECRET-token01", bob: "bob-host-SECRET-token002" }
const MARK = "SECRET-"

const whoami = (client: Client, tag: string) =>
  Effect.promise(async () => {
    const result = await client.callTool({ name: "svc__whoami", arguments: { tag } })
    const text = (result.content as Array<{ text?: string }>).map((block) => block.text ?? "").join("")
    return { isError: result.isError === true, text, meta: result._meta }
  })

/** A gateway over `downstream` with `auth.clientCredentials` at `auth`, and alice's and bob's hosts. */
const setup = (auth: AuthServer, downstream: Downstream, protocol: "auto" | "legacy" = "auto") =>
  Effect.gen(function*() {
    const { gateway, http } = yield* startGateway({
      servers: {
        svc: {
          url: downstream.url,
          protocol,
          auth: {
            clientCredentials: {
              tokenUrl: `${auth.issuer}/token`,
              clientId: GATEWAY.id,
              clientSecret: "env:GATEWAY_SECRET",
              scope: "mcp:tools",
              resource: downstream.url
            }
          }
        },
        other: { url: `${downstream.url}?other`, protocol }
      },
      namespace: "always",
      policy: { default: "allow" },
      audit: { path: ":memory:", capture: "full" },
      listen: {
        principals: { alice: { token: "env:ALICE" }, bob: { token: "env:BOB" } }
      }
    }, { GATEWAY_SECRET: GATEWAY.secret, ALICE: HOSTS.alice, BOB: HOSTS.bob })
    const alice = yield* httpClient(http.mcpUrl, { token: HOSTS.alice })
    const bob = yield* httpClient(http.mcpUrl, { token: HOSTS.bob })
    return { gateway, alice, bob }
  })

const started = (ttl = 300) =>
  Effect.gen(function*() {
    // The downstream's URL is the resource its tokens are for, known once it listens: its check reads it then.
    let check: ((req: Parameters<Parameters<typeof startDownstream>[0]>[0]) => Promise<string | undefined>) | undefined
    // Authorization headers the downstream refuses from now on (a token revoked), or every one.
    const revoked = new Set<string>()
    let refuseAll = false
    const downstream = yield* startDownstream((req) => {
      const header = req.headers.authorization ?? ""
      return refuseAll || revoked.has(header) ? Promise.resolve(undefined) : check?.(req) ?? Promise.resolve(undefined)
    })
    const auth = yield* startAuthServer([GATEWAY], {
      accessTokenTtl: (resource) => (resource === downstream.url ? ttl : 300)
    })
    check = jwtSubject(auth.issuer, downstream.url)
    return {
      auth,
      downstream,
      revoke: (header: string) => void revoked.add(header),
      refuseAll: () => void (refuseAll = true)
    }
  })

/** Every header and body the downstream saw, as one text. */
const seenText = (downstream: Downstream) => JSON.stringify(downstream.seen)

describe("auth.clientCredentials", () => {
  for (const protocol of ["auto", "legacy"] as const) {
    it.live(
      `one service token for every principal, verified downstream; one token request; never the host's token ` +
        `(${protocol})`,
      () =>
        Effect.gen(function*() {
          const { auth, downstream } = yield* started()
          const { alice, bob } = yield* setup(auth, downstream, protocol)
          const results = yield* Effect.all(
            Array.from({ length: 10 }, (_, i) => whoami(i % 2 === 0 ? alice : bob, `call-${i}`)),
            { concurrency: "unbounded" }
          )
          for (const result of results) assert.deepStrictEqual(result.isError, false, result.text)
          assert.deepStrictEqual(results.map((result) => result.text), results.map((_, i) => `gateway:call-${i}`))
          assert.strictEqual(downstream.calls.length, 10)
          assert.isTrue(downstream.seen.length > 10)
          assert.isTrue(downstream.seen.every((request) => request.subject === "gateway"), "every request was verified")
          const grants = auth.tokenRequests()
          assert.deepStrictEqual(
            grants.map(({ grant, client, resource, status }) => ({ grant, client, resource, status })),
            [
              { grant: "client_credentials", client: "gateway", resource: downstream.url, status: 200 }
            ]
          )
          assert.notInclude(seenText(downstream), HOSTS.alice)
          assert.notInclude(seenText(downstream), HOSTS.bob)
          assert.notInclude(seenText(downstream), GATEWAY.secret)
        })
    )
  }

  it.live("a token near its expiry is replaced before a request carries it", () =>
    Effect.gen(function*() {
      const { auth, downstream } = yield* started(2)
      const { alice } = yield* setup(auth, downstream)
      assert.strictEqual((yield* whoami(alice, "first")).text, "gateway:first")
      // Issued for 2 s, kept for 1.5 s: past that, the next request gets a new one.
      yield* Effect.sleep("1600 millis")
      assert.strictEqual((yield* whoami(alice, "second")).text, "gateway:second")
      assert.strictEqual(auth.tokenRequests().length, 2)
      const [first, second] = downstream.calls
      assert.notStrictEqual(first.authorization, second.authorization)
      assert.isTrue(downstream.seen.every((request) => request.subject === "gateway"), "no expired token was sent")
    }))

  it.live(
    "a token the server refuses (revoked) is renewed once and the call goes through; refused again, the call fails " +
      "after that one renewal",
    () =>
      Effect.gen(function*() {
        const { auth, downstream, revoke, refuseAll } = yield* started()
        const { alice } = yield* setup(auth, downstream)
        assert.strictEqual((yield* whoami(alice, "first")).text, "gateway:first")
        const first = downstream.calls[0]!.authorization!
        revoke(first)
        const renewed = yield* whoami(alice, "second")
        assert.deepStrictEqual([renewed.isError, renewed.text], [false, "gateway:second"])
        assert.strictEqual(auth.tokenRequests().length, 2)
        // The refused request never reached the tool: two calls ran, the second with the new token.
        assert.deepStrictEqual(downstream.calls.map((call) => call.tag), ["first", "second"])
        assert.notStrictEqual(downstream.calls[1]!.authorization, first)
        refuseAll()
        const refused = yield* whoami(alice, "third")
        assert.isTrue(refused.isError)
        assert.include(refused.text, "HTTP 401")
        assert.strictEqual(auth.tokenRequests().length, 3, "one renewal, not a loop")
        assert.deepStrictEqual(downstream.calls.map((call) => call.tag), ["first", "second"])
        assert.notInclude(refused.text, GATEWAY.secret)
      })
  )

  it.live(
    "a refused token request sends nothing downstream: a CredentialError naming the server and why, audited, " +
      "no secret anywhere",
    () => {
      const lines: Array<string> = []
      return recordingLogs(
        lines,
        Effect.gen(function*() {
          const { auth, downstream } = yield* started()
          const { gateway, alice } = yield* setup(auth, downstream)
          auth.refuseTokens(true)
          const refused = yield* whoami(alice, "refused")
          assert.isTrue(refused.isError)
          assert.strictEqual(
            refused.text,
            "Interlock: no credential for server svc: the token endpoint refused (HTTP 400, invalid_grant); the " +
              "request was not sent"
          )
          assert.strictEqual(refused.meta?.["interlock/error"], "CredentialError")
          assert.deepStrictEqual(downstream.seen, [], "nothing reached the server")
          const rows = yield* gateway.store.query()
          const row = rows.find((r) => r.tool === "whoami")
          assert.strictEqual(row?.outcome, "refused")
          assert.strictEqual(row?.sent, false)
          assert.include(row?.error ?? "", "no credential for server svc")
          // Once the authorization server answers again, so does the gateway.
          auth.refuseTokens(false)
          assert.strictEqual((yield* whoami(alice, "again")).text, "gateway:again")
          const everything = [JSON.stringify(rows), lines.join("\n"), refused.text].join("\n")
          assert.notInclude(everything, MARK)
        })
      )
    }
  )
})
