/**
 * `auth.oauth`: the gateway as an OAuth client of a remote server, one grant per principal, against a real
 * authorization server (oidc-provider, test/oauth-server.ts: dynamic registration, PKCE, resource indicators, refresh)
 * and a real downstream that publishes RFC 9728 metadata and verifies each bearer JWT with jose. A principal without
 * a grant is refused with its own connect link and nothing is sent; the link's flow runs in a browser (fetch with a
 * cookie jar of one cookie); afterwards the principal's calls arrive as the person who signed in, with a token minted
 * for the server and never the host's. Every link attack grants nothing.
 */
import { assert, describe, it } from "@effect/vitest"
import { UrlElicitationRequiredError } from "@modelcontextprotocol/client"
import { Effect, Redacted } from "effect"
import { decodeJwt } from "jose"
import { createServer, request } from "node:http"
import type { AddressInfo } from "node:net"
import { vi } from "vitest"
import { quietFetch, quietFetchWithin } from "../src/credentials/OAuthConnect.ts"
import { StateSeal } from "../src/state/StateSeal.ts"
import { callTool, hostClient } from "./credential-harness.ts"
import {
  connect,
  gatewayOver,
  land,
  linkIn,
  post,
  postWithHost,
  remoteWorld,
  remoteWorldWith,
  setup,
  STATE_KEY,
  TOKENS
} from "./oauth-connect.ts"

describe("auth.oauth: each principal's own grant", () => {
  it.live("refused with the principal's link and nothing sent; connected, its calls arrive as the person", () =>
    Effect.gen(function*() {
      const { alice, auth, bob, downstream, gateway } = yield* setup
      const first = yield* callTool(alice, "whoami", { tag: "a0" })
      assert.isTrue(first.isError)
      assert.include(first.text, "has not connected this server")
      assert.deepStrictEqual(downstream.calls, [])

      const { callback, landed, started } = yield* connect(linkIn(first.text), auth, "alice@idp")
      assert.strictEqual(landed.status, 200, landed.text)
      assert.include(landed.text, "remote is connected")
      // PKCE S256, the resource indicator and the state went to the authorization server; the code came back with iss.
      const authorization = new URL(started.location!)
      assert.strictEqual(authorization.searchParams.get("code_challenge_method"), "S256")
      assert.strictEqual(authorization.searchParams.get("resource"), downstream.url)
      assert.strictEqual(callback.searchParams.get("iss"), auth.issuer)

      const second = yield* callTool(alice, "whoami", { tag: "a1" })
      assert.deepStrictEqual([second.isError, second.text], [false, "alice@idp:a1"])
      const [call] = downstream.calls
      const token = /^Bearer (.+)$/.exec(call?.authorization ?? "")?.[1] ?? assert.fail("no bearer token")
      assert.strictEqual(decodeJwt(token).aud, downstream.url)
      // The host's own token never went downstream, in any request.
      for (const seen of downstream.seen) assert.notInclude(JSON.stringify(seen), TOKENS.alice)

      // Bob has no grant of his own: he gets his own link, and alice's grant never carries his call.
      const bobs = yield* callTool(bob, "whoami", { tag: "b0" })
      assert.isTrue(bobs.isError)
      assert.notStrictEqual(linkIn(bobs.text).href, linkIn(first.text).href)
      assert.deepStrictEqual(downstream.calls.map((c) => c.tag), ["a1"])

      // The audit: the refusals sent nothing; the call names its form and grant (an opaque id), and no row a token
      // or a link.
      const rows = yield* gateway.store.query()
      const sent = rows.filter((row) => row.sent)
      assert.deepStrictEqual(sent.map((row) => [row.authForm, /^[0-9a-f]{16}$/.test(row.authGrant ?? "")]), [[
        "oauth",
        true
      ]])
      const text = JSON.stringify(rows)
      for (const secret of [token, "link=", TOKENS.alice]) assert.notInclude(text, secret)
    }))

  it.live("a token the server refuses is refreshed once, the call sent again; a refused refresh asks to connect", () =>
    Effect.gen(function*() {
      const { alice, auth, downstream, revoke } = yield* setup
      const first = yield* callTool(alice, "whoami", { tag: "a0" })
      yield* connect(linkIn(first.text), auth, "alice@idp")
      yield* callTool(alice, "whoami", { tag: "a1" })
      revoke(downstream.calls[0]!.authorization!)
      const again = yield* callTool(alice, "whoami", { tag: "a2" })
      assert.deepStrictEqual([again.isError, again.text], [false, "alice@idp:a2"])
      assert.notStrictEqual(downstream.calls[1]!.authorization, downstream.calls[0]!.authorization)
      assert.isTrue(auth.tokenRequests().some((r) => r.grant === "refresh_token" && r.status === 200))

      revoke(downstream.calls[1]!.authorization!)
      auth.refuseTokens(true)
      // The authorization server's refusal quotes the refresh request; the SDK's warning must not.
      const warned = vi.spyOn(console, "warn").mockImplementation(() => undefined)
      const ended = yield* callTool(alice, "whoami", { tag: "a3" }).pipe(
        Effect.ensuring(Effect.sync(() => warned.mockRestore()))
      )
      for (const [line] of warned.mock.calls) assert.notInclude(String(line), "refresh_token=")
      assert.isTrue(ended.isError)
      assert.include(ended.text, "has not connected this server")
      assert.deepStrictEqual(downstream.calls.map((c) => c.tag), ["a1", "a2"])
    }))
})

describe("auth.oauth: a host that takes URL elicitation", () => {
  it.live("is asked to open the link: -32042 in 2025-11-25, input_required in 2026-07-28; then goes as them", () =>
    Effect.gen(function*() {
      const world = yield* setup
      const capabilities = { elicitation: { url: {} } }
      // 2025-11-25: the call fails with the SDK's UrlElicitationRequiredError, which carries the link.
      const legacy = yield* hostClient(world.http.mcpUrl, () => TOKENS.alice, "2025", capabilities)
      const failure = yield* Effect.promise(() =>
        legacy.callTool({ name: "whoami", arguments: { tag: "l0" } }).then(() => undefined, (error) => error)
      )
      assert.instanceOf(failure, UrlElicitationRequiredError, String(failure))
      const [asked] = (failure as UrlElicitationRequiredError).elicitations
      assert.strictEqual(asked?.mode, "url")
      // 2026-07-28: the host's elicitation handler is sent the link within the call, once; its retry, still
      // unconnected, gets the link as a tool error rather than another round.
      const modern = yield* hostClient(world.http.mcpUrl, () => TOKENS.alice, "2026", capabilities)
      const shown: Array<{ mode?: unknown; url?: unknown }> = []
      modern.setRequestHandler("elicitation/create", async (request) => {
        shown.push(request.params as { mode?: unknown; url?: unknown })
        return { action: "accept" }
      })
      const unconnected = yield* callTool(modern, "whoami", { tag: "m0" })
      assert.lengthOf(shown, 1)
      assert.strictEqual(shown[0]!.mode, "url")
      assert.isTrue(unconnected.isError)
      for (const url of [asked?.url, shown[0]!.url]) {
        const link = new URL(String(url))
        assert.isTrue(link.pathname === "/connect/remote" && link.searchParams.has("link"), String(url))
      }
      assert.deepStrictEqual(world.downstream.calls, [])

      const { landed } = yield* connect(new URL(asked!.url), world.auth, "alice@idp")
      assert.strictEqual(landed.status, 200)
      assert.strictEqual((yield* callTool(legacy, "whoami", { tag: "l1" })).text, "alice@idp:l1")
      assert.strictEqual((yield* callTool(modern, "whoami", { tag: "m1" })).text, "alice@idp:m1")
      assert.lengthOf(shown, 1)
    }))
})

describe("auth.oauth: the client ID metadata document", () => {
  it.live("is served at clientMetadataUrl's path under the gateway's origin, its client_id that URL", () =>
    Effect.gen(function*() {
      const world = yield* remoteWorld
      const origin = "https://gateway.example.com"
      const document = `${origin}/oauth/client.json`
      const elsewhere = `${origin}/client.json`
      const { http } = yield* gatewayOver(world, {
        servers: {
          remote: { url: world.downstream.url, auth: { oauth: { clientMetadataUrl: elsewhere } } },
          own: { url: world.downstream.url, auth: { oauth: { clientMetadataUrl: document } } }
        },
        listen: { principals: { alice: { token: TOKENS.alice }, bob: { token: TOKENS.bob } }, publicUrl: origin }
      })
      const address = new URL(http.mcpUrl)
      const get = (path: string) =>
        Effect.callback<{ status: number; body: string }>((resume) => {
          const req = request({
            host: address.hostname,
            port: address.port,
            path,
            headers: { host: "gateway.example.com" }
          }, (res) => {
            let body = ""
            res.on("data", (chunk) => (body += chunk)).on("end", () =>
              resume(Effect.succeed({ status: res.statusCode ?? 0, body })))
          })
          req.end()
        })
      const served = yield* get("/client.json")
      assert.strictEqual(served.status, 200)
      const metadata = JSON.parse(served.body)
      assert.strictEqual(metadata.client_id, elsewhere)
      assert.deepStrictEqual(metadata.redirect_uris, [`${origin}/oauth/callback`])
      assert.strictEqual(metadata.token_endpoint_auth_method, "none")
      // A path among the gateway's own routes is not taken by a document.
      assert.notStrictEqual((yield* get("/oauth/client.json")).status, 200)
    }))
})

describe("quietFetch", () => {
  it.live("an error answer keeps its status and OAuth error code only; a success passes as it came", () =>
    Effect.gen(function*() {
      const answers: Record<string, [number, string]> = {
        "/echo": [400, JSON.stringify({ error: "invalid_grant", error_description: "refused: refresh_token=SECRET" })],
        "/junk": [500, "refresh_token=SECRET"],
        "/code": [401, JSON.stringify({ error: "Not A Code SECRET" })],
        "/ok": [200, JSON.stringify({ access_token: "fine" })]
      }
      const server = createServer((req, res) => {
        const [status, body] = answers[req.url ?? ""] ?? [404, ""]
        res.writeHead(status, { "content-type": "application/json" }).end(body)
      })
      const port = yield* Effect.acquireRelease(
        Effect.callback<number>((resume) =>
          void server.listen(0, "127.0.0.1", () => resume(Effect.succeed((server.address() as AddressInfo).port)))
        ),
        () => Effect.sync(() => server.close())
      )
      const read = (path: string) =>
        Effect.promise(async () => {
          const response = await quietFetch(`http://127.0.0.1:${port}${path}`)
          return [response.status, await response.text()]
        })
      assert.deepStrictEqual(yield* read("/echo"), [400, "{\"error\":\"invalid_grant\"}"])
      assert.deepStrictEqual(yield* read("/junk"), [500, "{}"])
      assert.deepStrictEqual(yield* read("/code"), [401, "{}"])
      assert.deepStrictEqual(yield* read("/ok"), [200, answers["/ok"]![1]])
    }))
})

/** A number in [0, 1) from `seed` (mulberry32): the same interleaving on every run. */
const random = (seed: number) => {
  let t = (seed + 0x6d2b79f5) | 0
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

describe("auth.oauth: two principals' grants never cross", () => {
  for (const legacySessions of [false, true]) {
    const kind = legacySessions ? "a stateful 2025 server (a session per principal)" : "a 2026-07-28 server"
    it.live(
      `1,000 concurrent calls of two connected principals, at random, each as its own person: ${kind}`,
      () =>
        Effect.gen(function*() {
          const world = yield* remoteWorldWith({ legacySessions })
          const { alice, bob } = yield* gatewayOver(world)
          const { auth, downstream } = world
          const hosts = { alice, bob }
          for (const who of ["alice", "bob"] as const) {
            const refusal = yield* callTool(hosts[who], "whoami", { tag: "first" })
            const { landed } = yield* connect(linkIn(refusal.text), auth, `${who}@idp`)
            assert.strictEqual(landed.status, 200)
          }
          const order = Array.from({ length: 1000 }, (_, i) => (random(i) < 0.5 ? "alice" : "bob") as "alice" | "bob")
          const answers = yield* Effect.forEach(
            order,
            (who, i) => callTool(hosts[who], "whoami", { tag: `${who}-${i}` }),
            { concurrency: 16 }
          )
          for (const [i, answer] of answers.entries()) {
            assert.strictEqual(answer.text, `${order[i]}@idp:${order[i]}-${i}`)
          }
          assert.lengthOf(downstream.calls, 1000)
          for (const call of downstream.calls) {
            assert.strictEqual(call.subject, `${call.tag.split("-")[0]}@idp`)
          }
          // Each downstream session carried one person's requests only.
          const sessions = new Map<string, Set<string | undefined>>()
          for (const seen of downstream.seen) {
            const id = seen.headers["mcp-session-id"]
            if (typeof id === "string") sessions.set(id, (sessions.get(id) ?? new Set()).add(seen.subject))
          }
          if (legacySessions) assert.isAtLeast(sessions.size, 2)
          for (const subjects of sessions.values()) assert.strictEqual(subjects.size, 1)
        }),
      60_000
    )
  }
})

describe("auth.oauth: the connect page", () => {
  it.live("names the link's principal; a form posted from elsewhere starts nothing and spends no link", () =>
    Effect.gen(function*() {
      const { alice, auth, downstream } = yield* setup
      const link = linkIn((yield* callTool(alice, "whoami", { tag: "a0" })).text)
      const shown = yield* Effect.promise(() => fetch(link).then((r) => r.text()))
      assert.include(shown, "for the Interlock principal <b>alice</b>")
      // Another site's page posting the link in someone's browser (its Origin, or a cross-site fetch), or no Origin.
      for (
        const headers of [
          { origin: "https://evil.example" },
          { "sec-fetch-site": "cross-site" },
          { origin: "" }
        ] as ReadonlyArray<Record<string, string>>
      ) {
        const forced = yield* post(link, undefined, headers)
        assert.deepStrictEqual([forced.status, forced.cookie], [403, undefined], JSON.stringify(headers))
      }
      // The link is unspent, and the person is asked to consent even on a standing session.
      const started = yield* post(link)
      assert.strictEqual(started.status, 303)
      assert.strictEqual(new URL(started.location!).searchParams.get("prompt"), "consent")
      const callback = yield* auth.authorize(new URL(started.location!), "alice@idp")
      assert.strictEqual((yield* land(callback, started.cookie)).status, 200)
      assert.strictEqual((yield* callTool(alice, "whoami", { tag: "a1" })).text, "alice@idp:a1")
      assert.deepStrictEqual(downstream.calls.map((c) => c.tag), ["a1"])
    }))

  it.live("a browser signed in to the gateway as bob can neither open nor post alice's link", () =>
    Effect.gen(function*() {
      const { alice, auth } = yield* setup
      const link = linkIn((yield* callTool(alice, "whoami", { tag: "a0" })).text)
      const asBob = { cookie: `interlock_token=${TOKENS.bob}` }
      const shown = yield* Effect.promise(() =>
        fetch(link, { headers: asBob }).then(async (r) => ({ status: r.status, text: await r.text() }))
      )
      assert.deepStrictEqual([shown.status, shown.text.includes("another principal")], [403, true])
      const posted = yield* post(link, undefined, asBob)
      assert.deepStrictEqual([posted.status, posted.cookie], [403, undefined])
      // Signed in as alice herself, the same link goes on: it was not spent.
      const started = yield* post(link, undefined, { cookie: `interlock_token=${TOKENS.alice}` })
      assert.strictEqual(started.status, 303)
      const callback = yield* auth.authorize(new URL(started.location!), "alice@idp")
      assert.strictEqual((yield* land(callback, started.cookie)).status, 200)
    }))

  it.live("a flow's request that never answers fails at the deadline instead of holding the call", () =>
    Effect.gen(function*() {
      const silent = createServer(() => undefined)
      const port = yield* Effect.acquireRelease(
        Effect.callback<number>((resume) =>
          void silent.listen(0, "127.0.0.1", () => resume(Effect.succeed((silent.address() as AddressInfo).port)))
        ),
        () => Effect.sync(() => (silent.closeAllConnections(), silent.close()))
      )
      const failure = yield* Effect.promise(() =>
        quietFetchWithin(100)(`http://127.0.0.1:${port}/.well-known/oauth-protected-resource`).then(
          () => undefined,
          (error: Error) => error.name
        )
      )
      assert.strictEqual(failure, "TimeoutError")
    }))
})

describe("auth.oauth: every link attack grants nothing", () => {
  it.live("a link used twice, another browser's callback, a forged or other flow's state, an expired link", () =>
    Effect.gen(function*() {
      const { alice, auth, downstream } = yield* setup
      const refusal = yield* callTool(alice, "whoami", { tag: "a0" })
      const link = linkIn(refusal.text)
      const started = yield* post(link)
      assert.strictEqual(started.status, 303)
      // The same link again: spent.
      const replayed = yield* post(link)
      assert.deepStrictEqual([replayed.status, replayed.text.includes("the link was used")], [400, true])
      // The authorization URL finished in another browser (no binding cookie, or another one): refused.
      const callback = yield* auth.authorize(new URL(started.location!), "mallory@idp")
      const elsewhere = yield* land(callback, "interlock_connect_0000000000000000=forged")
      assert.deepStrictEqual([elsewhere.status, elsewhere.text.includes("another browser")], [400, true])
      // The flow was spent by that attempt: the right browser cannot complete it afterwards either.
      const late = yield* land(callback, started.cookie)
      assert.strictEqual(late.status, 400)
      // A state that is no sealed state, or one sealed for a link's purpose.
      const forged = new URL(callback)
      forged.searchParams.set("state", "forged")
      assert.strictEqual((yield* land(forged, started.cookie)).status, 400)
      forged.searchParams.set("state", link.searchParams.get("link")!)
      assert.strictEqual((yield* land(forged, started.cookie)).status, 400)

      // Links sealed with the gateway's key but expired, or for another server, or changed by a character.
      const seal = yield* Effect.provide(Effect.service(StateSeal), StateSeal.fromSecret(Redacted.make(STATE_KEY)))
      const expired = yield* seal.seal("interlock-connect-link", { p: "alice", s: "remote" }, -60_000)
      const elsewhereServer = yield* seal.seal("interlock-connect-link", { p: "alice", s: "other" }, 60_000)
      const fresh = linkIn((yield* callTool(alice, "whoami", { tag: "a1" })).text).searchParams.get("link")!
      const changed = `${fresh.slice(0, -3)}${fresh.endsWith("A") ? "B" : "A"}${fresh.slice(-2)}`
      for (
        const [value, words] of [[expired, "expired"], [elsewhereServer, "another server"], [changed, "malformed"]]
      ) {
        const answer = yield* post(link, value)
        assert.deepStrictEqual([answer.status, answer.text.includes(words!)], [400, true], `${words}: ${answer.text}`)
      }
      // A Host the gateway does not answer to (a rebinding page's).
      assert.strictEqual(yield* postWithHost(link, fresh, "evil.example"), 403)

      // Nothing got through: no call reached the server, and alice is still not connected.
      assert.deepStrictEqual(downstream.calls, [])
      assert.isTrue((yield* callTool(alice, "whoami", { tag: "a2" })).isError)
    }))
})
