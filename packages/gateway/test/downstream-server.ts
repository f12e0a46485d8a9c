/**
 * A downstream MCP server for the credential tests: an SDK 2.4 McpServer over Streamable HTTP on
 * 127.0.0.1 (both eras; createMcpHandler), behind an authentication check of the test's choosing
 * (a JWT verified with jose against an authorization server's key set, or API keys). It records
 * every HTTP request it gets (method, headers, body) and, for each `whoami` call, the caller's
 * `tag`, the subject the check found and the bearer token it came with; its prompt `hello` greets
 * the subject. An unauthenticated request is answered 401. When told the gateway's key set, it also verifies each
 * call's identity token.
 */
import { NodeStreamableHTTPServerTransport, toNodeHandler } from "@modelcontextprotocol/node"
import { createMcpHandler, McpServer, ProtocolError } from "@modelcontextprotocol/server"
import { Effect, Schema } from "effect"
import { createRemoteJWKSet, type JWTPayload, jwtVerify } from "jose"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

/** Who a request authenticates as, or undefined (answered 401). */
export type Authenticate = (req: IncomingMessage) => Promise<string | undefined>

/** One HTTP request the server got. */
export interface Seen {
  readonly method: string
  readonly headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  readonly body: string
  /** The subject the check found, undefined when it refused. */
  readonly subject: string | undefined
}

/** One `whoami` call: its tag, the subject it authenticated as, its bearer token and its identity token's claims. */
export interface Call {
  readonly tag: string
  readonly subject: string
  readonly authorization: string | undefined
  readonly identity: JWTPayload | undefined
  /** Why the identity token failed verification, when one was expected. */
  readonly identityError: string | undefined
}

/** The server, running. */
export interface Downstream {
  readonly url: string
  readonly seen: Array<Seen>
  readonly calls: Array<Call>
  /** From now on, verify each call's `header` identity token against `jwksUrl` for `audience` and `issuer`. */
  readonly expectIdentity: (options: {
    readonly header: string
    readonly jwksUrl: string
    readonly audience: string
    readonly issuer: string
  }) => void
}

/** A bearer JWT of `issuer` for `audience`, verified against the issuer's key set (oidc-provider's `/jwks`). */
export const jwtSubject = (issuer: string, audience: string): Authenticate => {
  const keys = createRemoteJWKSet(new URL(`${issuer}/jwks`))
  return async (req) => {
    const token = /^Bearer (.+)$/i.exec(req.headers.authorization ?? "")?.[1]
    if (token === undefined) return undefined
    const verified = await jwtVerify(token, keys, { issuer, audience }).catch(() => undefined)
    return typeof verified?.payload.sub === "string" ? verified.payload.sub : undefined
  }
}

/** API keys in a header: the key's owner. */
export const apiKeys = (header: string, owners: Readonly<Record<string, string>>): Authenticate => async (req) => {
  const key = req.headers[header.toLowerCase()]
  return typeof key === "string" ? owners[key] : undefined
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk)).on("end", () => resolve(Buffer.concat(chunks).toString()))
      .on("error", reject)
  })

const object = <S extends Schema.Codec<any, any, never, never>>(schema: S) =>
  Schema.toStandardJSONSchemaV1(Schema.toStandardSchemaV1(schema))

/**
 * Starts the server in the current scope. With `legacySessions`, it speaks only the 2025 revisions,
 * with a session per initialize (Mcp-Session-Id), as a stateful 2025 server does.
 */
export const startDownstream = (
  authenticate: Authenticate,
  options: {
    readonly legacySessions?: boolean
    /** The authorization server its RFC 9728 metadata names (then served, and pointed to by each 401). */
    readonly authorizationServer?: () => string
  } = {}
) =>
  Effect.gen(function*() {
    const seen: Array<Seen> = []
    const calls: Array<Call> = []
    let identity:
      | { header: string; keys: ReturnType<typeof createRemoteJWKSet>; audience: string; issuer: string }
      | undefined
    const build = () => {
      const server = new McpServer(
        { name: "downstream", version: "1.0.0" },
        options.legacySessions === true ? { supportedProtocolVersions: ["2025-11-25", "2025-06-18"] } : {}
      )
      server.registerTool("whoami", {
        description: "Says who called it",
        inputSchema: object(Schema.Struct({ tag: Schema.String }))
      }, async ({ tag }, ctx) => {
        const auth = ctx.http?.authInfo
        const subject = String(auth?.extra?.subject ?? "")
        const headers = (auth?.extra?.headers ?? {}) as Record<string, string | undefined>
        let claims: JWTPayload | undefined
        let identityError: string | undefined
        if (identity !== undefined) {
          const token = headers[identity.header.toLowerCase()]
          const verified = token === undefined
            ? undefined
            : await jwtVerify(token, identity.keys, { audience: identity.audience, issuer: identity.issuer }).catch(
              (error: Error) => {
                identityError = error.message
                return undefined
              }
            )
          claims = verified?.payload
          if (token === undefined) identityError = "no identity token"
        }
        calls.push({ tag, subject, authorization: headers.authorization, identity: claims, identityError })
        return { content: [{ type: "text" as const, text: `${subject}:${tag}` }] }
      })
      // An echoing server: every header it got, back in each channel a host or the audit can see.
      server.registerTool("echo_headers", {
        description:
          "Echoes every header it got: in a progress message, a log message, the content and structured content",
        inputSchema: object(Schema.Struct({ tag: Schema.String }))
      }, async ({ tag }, ctx) => {
        const headers = JSON.stringify(ctx.http?.authInfo?.extra?.headers ?? {})
        const progressToken = ctx.mcpReq._meta?.progressToken
        if (progressToken !== undefined) {
          await ctx.mcpReq.notify({
            method: "notifications/progress",
            params: { progressToken, progress: 1, total: 2, message: headers }
          })
        }
        await ctx.mcpReq.notify({
          method: "notifications/message",
          params: { level: "error", logger: "echo", data: { tag, headers } }
        })
        return {
          content: [{ type: "text" as const, text: `${tag} ${headers}` }],
          structuredContent: { tag, headers: ctx.http?.authInfo?.extra?.headers ?? {} },
          _meta: { echoed: headers }
        }
      })
      server.registerTool("echo_headers_error", {
        description: "Fails with every header it got in the error's message",
        inputSchema: object(Schema.Struct({ tag: Schema.String }))
      }, async ({ tag }, ctx) => {
        throw new ProtocolError(-32603, `${tag} ${JSON.stringify(ctx.http?.authInfo?.extra?.headers ?? {})}`)
      })
      server.registerPrompt("hello", { description: "Greets its caller" }, async (ctx) => ({
        messages: [{
          role: "user" as const,
          content: { type: "text" as const, text: `hello ${String(ctx.http?.authInfo?.extra?.subject ?? "")}` }
        }]
      }))
      return server
    }
    const modern = toNodeHandler(createMcpHandler(build))
    const sessions = new Map<string, NodeStreamableHTTPServerTransport>()
    const legacy = async (req: IncomingMessage, res: ServerResponse, body: unknown) => {
      const id = req.headers["mcp-session-id"]
      const known = typeof id === "string" ? sessions.get(id) : undefined
      if (known !== undefined) return known.handleRequest(req, res, body)
      if (typeof id === "string") return void res.writeHead(404).end()
      const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: (sid) => void sessions.set(sid, transport),
        onsessionclosed: (sid) => void sessions.delete(sid)
      })
      await build().connect(transport)
      await transport.handleRequest(req, res, body)
    }
    const handler = options.legacySessions === true ? legacy : modern
    let url = ""
    const metadataUrl = () => `${new URL(url).origin}/.well-known/oauth-protected-resource/mcp`
    const http = createServer((req, res) => {
      const authorizationServer = options.authorizationServer
      if (authorizationServer !== undefined && req.url?.startsWith("/.well-known/oauth-protected-resource") === true) {
        const metadata = {
          resource: url,
          authorization_servers: [authorizationServer()],
          scopes_supported: ["mcp:tools"]
        }
        return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(metadata))
      }
      void readBody(req).then(async (body) => {
        const subject = await authenticate(req)
        seen.push({ method: req.method ?? "", headers: { ...req.headers }, body, subject })
        if (subject === undefined) {
          const challenge = authorizationServer === undefined ? "Bearer" : `Bearer resource_metadata="${metadataUrl()}"`
          res.writeHead(401, { "www-authenticate": challenge, "content-type": "application/json" }).end(
            JSON.stringify({ error: "invalid_token" })
          )
          return
        }
        const extra = { subject, headers: { ...req.headers } }
        Object.assign(req, { auth: { token: "", clientId: subject, scopes: [], extra } })
        await handler(req, res, body === "" ? undefined : JSON.parse(body))
      }).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500).end(String(error))
      })
    })
    const port = yield* Effect.acquireRelease(
      Effect.callback<number>((resume) => {
        http.listen(0, "127.0.0.1", () => resume(Effect.succeed((http.address() as AddressInfo).port)))
      }),
      () =>
        Effect.callback<void>((resume) => {
          http.closeAllConnections()
          http.close(() => resume(Effect.void))
        })
    )
    url = `http://127.0.0.1:${port}/mcp`
    const downstream: Downstream = {
      url,
      seen,
      calls,
      expectIdentity: (options) => {
        identity = {
          header: options.header,
          keys: createRemoteJWKSet(new URL(options.jwksUrl)),
          audience: options.audience,
          issuer: options.issuer
        }
      }
    }
    return downstream
  })
