/**
 * Issue 23: a downstream server that echoes the credential it was sent has it redacted on every
 * channel. The real downstream (test/downstream-server.ts) echoes every header it got (the bearer
 * token the gateway minted by exchange or client credentials, the identity JWT, a perPrincipal
 * header value) into a progress message, a log message, a result's content, structured content and
 * `_meta`, and a JSON-RPC error's message. Through the real gateway over HTTP, in both host eras:
 * none of those tokens reaches what the SDK client receives, the audit rows or the logs. (The log
 * message is not forwarded to these hosts at all, so that channel is not shown here.)
 */
import { assert, describe, it } from "@effect/vitest"
import type { Client } from "@modelcontextprotocol/client"
import { Effect } from "effect"
import { capturingLogs, firstOf, hostClient, type HostEra } from "../credential-harness.ts"
import { apiKeys, type Downstream, jwtSubject, startDownstream } from "../downstream-server.ts"
import { startGateway } from "../e2e.ts"
import { type AuthClient, startAuthServer } from "../oauth-server.ts"

const ALICE: AuthClient = { id: "alice", secret: "alice-SECRET-echo00001", scopes: ["mcp:tools"] }
const GATEWAY: AuthClient = { id: "gateway", secret: "gateway-SECRET-echo003", scopes: ["mcp:tools"], exchanges: true }
const DAVE = "dave-static-SECRET-ech05"
const DAVE_KEY = "dave-api-key-SECRET-e06"

/** Everything one host received: its answers, and every notification. */
const received = (client: Client) => {
  const seen: Array<unknown> = []
  client.setNotificationHandler("notifications/message", (n) => void seen.push(n))
  return seen
}

/** Calls `name` with progress and a log level asked for; what came back, answer or error. */
const echoCall = (client: Client, name: string, tag: string, seen: Array<unknown>) =>
  Effect.promise(async () => {
    const answer = await client.callTool(
      { name, arguments: { tag }, _meta: { "io.modelcontextprotocol/logLevel": "debug" } },
      { onprogress: (progress) => void seen.push(progress) }
    ).catch((error: Error) => ({ error: error.message, data: (error as { data?: unknown }).data }))
    seen.push(answer)
    return answer
  })

/** The tokens the downstream was sent: bearer tokens, identity tokens, API keys. */
const sentTokens = (downstream: Downstream): ReadonlyArray<string> => [
  ...new Set(
    downstream.seen.flatMap((seen) =>
      [seen.headers.authorization, seen.headers["interlock-identity"], seen.headers["x-api-key"]].flatMap((v) =>
        typeof v === "string" ? [v.replace(/^Bearer /, "")] : []
      )
    )
  )
]

const scenario = (era: HostEra) => {
  const lines: Array<string> = []
  return capturingLogs(
    lines,
    Effect.gen(function*() {
      let check:
        | ((req: Parameters<Parameters<typeof startDownstream>[0]>[0]) => Promise<string | undefined>)
        | undefined
      const downstream = yield* startDownstream((req) => check?.(req) ?? Promise.resolve(undefined))
      const auth = yield* startAuthServer([ALICE, GATEWAY])
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
        audit: { path: ":memory:", capture: "full" },
        listen: { oauth: { issuer: auth.issuer }, principals: { dave: { token: "env:DAVE" } } }
      }, { GATEWAY_SECRET: GATEWAY.secret, DAVE_KEY, DAVE })
      const aliceToken = yield* auth.token(ALICE, http.mcpUrl, "mcp:tools")
      const hosts = {
        alice: yield* hostClient(http.mcpUrl, () => aliceToken, era),
        dave: yield* hostClient(http.mcpUrl, () => DAVE, era)
      }
      const seen: Array<unknown> = []
      for (const host of Object.values(hosts)) {
        if (era === "2025") yield* Effect.promise(() => host.setLoggingLevel("debug").catch(() => undefined))
        seen.push(received(host))
      }
      const calls: Array<[keyof typeof hosts, string]> = [
        ["alice", "svc__echo_headers"],
        ["alice", "user__echo_headers"],
        ["dave", "user__echo_headers"],
        ["alice", "svc__echo_headers_error"],
        ["alice", "user__echo_headers_error"],
        ["dave", "user__echo_headers_error"]
      ]
      for (const [who, name] of calls) yield* echoCall(hosts[who], name, `${who}-${name}`, seen)
      yield* Effect.sleep("200 millis")
      const tokens = sentTokens(downstream)
      // The downstream got (and echoed) a service token, alice's exchanged token, dave's key, identity tokens.
      assert.isAtLeast(tokens.length, 6)
      assert.include(tokens, DAVE_KEY)
      const echoed = downstream.seen.length
      assert.isAtLeast(echoed, calls.length)
      const hostSaw = JSON.stringify(seen)
      // Every channel came back (redacted), so the test looks where the tokens would be.
      assert.include(hostSaw, "[REDACTED]")
      for (const [who, name] of calls) assert.include(hostSaw, `${who}-${name}`)
      // Each echoing call's progress message came back (redacted).
      assert.strictEqual(seen.filter((n) => typeof (n as { progress?: unknown }).progress === "number").length, 3)
      const rows = JSON.stringify(yield* gateway.store.query())
      const logs = lines.join("\n")
      for (const token of tokens) {
        assert.notInclude(hostSaw, token, "a token reached the host")
        assert.notInclude(rows, token, "a token reached the audit")
        assert.notInclude(logs, token, "a token reached the logs")
      }
      for (const text of [hostSaw, rows, logs]) assert.notInclude(text, "SECRET-")
      return { hostSaw }
    })
  )
}

describe("a downstream that echoes its credential", () => {
  for (const era of ["2025", "2026"] as const) {
    it.live(
      `has it redacted from results, errors, progress, logs and the audit (${era} hosts)`,
      () => Effect.asVoid(scenario(era)),
      60_000
    )
  }
})
