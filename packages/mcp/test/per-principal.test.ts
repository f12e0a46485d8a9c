/**
 * Per-principal sessions and a server's `auth`, on the hub itself: a request's CurrentCredential
 * picks the sessions of its principal, whose every HTTP request carries the headers `auth.headers`
 * gives for that principal, and the request's own headers besides. A request that names no
 * principal is not sent, nor is one whose session headers cannot be had.
 */
import { assert, describe, it } from "@effect/vitest"
import { ToolCall, TransportError } from "@interlock/core"
import { McpServer } from "@modelcontextprotocol/server"
import { Context, Effect, Layer, Schema } from "effect"
import type { IncomingMessage } from "node:http"
import { CurrentCredential, McpHub } from "../src/index.ts"
import { standard, textResult } from "./fixtures/schema.ts"
import { serveHttp } from "./fixtures/serve-http.ts"

const build = () => {
  const server = new McpServer({ name: "who", version: "1.0.0" }, { capabilities: { tools: {} } })
  server.registerTool(
    "who",
    { inputSchema: standard(Schema.Struct({ tag: Schema.String })) },
    async ({ tag }: any) => textResult(String(tag))
  )
  return server
}

interface Seen {
  readonly authorization: string | undefined
  readonly identity: string | undefined
  readonly session: string | undefined
}

describe("per-principal sessions", () => {
  for (const protocol of ["auto", "legacy"] as const) {
    it.live(`each principal's requests carry its own session headers, and a request's own ones (${protocol})`, () =>
      Effect.gen(function*() {
        const seen: Array<Seen> = []
        const server = yield* serveHttp(build, (req: IncomingMessage) => {
          seen.push({
            authorization: req.headers.authorization,
            identity: req.headers["x-identity"] as string | undefined,
            session: req.headers["mcp-session-id"] as string | undefined
          })
          return false
        })
        let failing = false
        const context = yield* Layer.build(McpHub.layer({
          servers: {
            who: {
              http: { url: server.url },
              protocol,
              sessions: "per-principal",
              maxSessions: 3,
              auth: {
                headers: (principal) =>
                  failing
                    ? Effect.fail(new TransportError({ serverId: "who", detail: "the token endpoint refused" }))
                    : Effect.succeed({ authorization: `Bearer token-of-${principal}` })
              }
            }
          }
        }))
        const hub = Context.get(context, McpHub)
        const callAs = (principal: string | undefined, tag: string) =>
          Effect.result(
            hub.transport.callTool(new ToolCall({ serverId: "who", name: "who", args: { tag }, callId: tag }), {})
              .pipe(
                Effect.provideService(
                  CurrentCredential,
                  principal === undefined ? undefined : { principal, headers: { "x-identity": `id-of-${principal}` } }
                )
              )
          )
        const results = yield* Effect.all(
          Array.from({ length: 12 }, (_, i) => callAs(i % 2 === 0 ? "alice" : "bob", `t${i}`)),
          { concurrency: "unbounded" }
        )
        assert.isTrue(results.every((result) => result._tag === "Success"))
        // Every request was alice's or bob's, with one principal's headers throughout.
        for (const request of seen) {
          const who = /^Bearer token-of-(alice|bob)$/.exec(request.authorization ?? "")?.[1]
          assert.isDefined(who, `a request went with ${request.authorization}`)
          if (request.identity !== undefined) assert.strictEqual(request.identity, `id-of-${who}`)
        }
        assert.strictEqual(seen.filter((request) => request.identity !== undefined).length, 12)
        // On a 2025 server, each principal's session id is only ever seen with its own token.
        const sessions = new Map<string, Set<string | undefined>>()
        for (const request of seen) {
          if (request.session !== undefined) {
            sessions.set(request.session, (sessions.get(request.session) ?? new Set()).add(request.authorization))
          }
        }
        for (const tokens of sessions.values()) assert.strictEqual(tokens.size, 1)
        const before = seen.length
        const nobody = yield* callAs(undefined, "nobody")
        assert.isTrue(nobody._tag === "Failure" && nobody.failure.message.includes("names none"))
        failing = true
        const carol = yield* callAs("carol", "carol")
        assert.match(
          carol._tag === "Failure" ? carol.failure.message : "sent",
          /^transport to who failed: no credential during (initialize|tools\/call): the token endpoint refused$/
        )
        assert.include(carol._tag === "Failure" ? carol.failure.message : "", "the token endpoint refused")
        assert.strictEqual(seen.length, before, "nothing was sent for nobody or carol")
        // A host's logging level is not sent to a per-principal server, and is no error.
        yield* hub.features.setLoggingLevel("who", "debug")
        assert.strictEqual(seen.length, before, "no session was opened for the logging level")
      }))
  }
})
