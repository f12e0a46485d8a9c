/**
 * A real authorization server for the OAuth tests: oidc-provider from node_modules on 127.0.0.1,
 * a port the OS picks. Configured clients use the client_credentials grant (client_secret_basic).
 * Hosts may also register themselves (RFC 7591) and use the authorization-code grant, where PKCE
 * (S256) is required and `offline_access` brings a refresh token; a person's login and consent are
 * a tiny interaction handler that logs in whichever user id the test's browser (`authorize`) names.
 * Access tokens are JWTs whose `aud` is the resource asked for (RFC 8707), with a `roles` claim.
 * The server counts the requests for its key set, can rotate its signing key (the new key signs,
 * the old one stays published), and hands the test its current private key to sign tokens of its own.
 * For the downstream-credential tests, a client may also hold the RFC 8693 token-exchange grant
 * (registered with oidc-provider's `registerGrantType`): a subject token this server issued, for
 * the audience the test names, is traded for a JWT for the requested resource whose `sub` is the
 * subject's. Access tokens may be short-lived, every token request is logged (grant and outcome),
 * and `refuseTokens` makes the token endpoint refuse every request (invalid_grant).
 */
import { Effect } from "effect"
import { createLocalJWKSet, decodeJwt, exportJWK, generateKeyPair, importJWK, type JWK, jwtVerify, SignJWT } from "jose"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import Provider, { errors, type GrantContext } from "oidc-provider"

/** A client of the authorization server: its credentials, the scopes it may ask for and the roles its tokens carry. */
export interface AuthClient {
  readonly id: string
  readonly secret: string
  readonly scopes: ReadonlyArray<string>
  readonly roles?: ReadonlyArray<string>
  /** Whether it may exchange tokens (RFC 8693) besides client_credentials. */
  readonly exchanges?: boolean
}

/** The RFC 8693 grant type. */
export const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"

/** How the server issues tokens. */
export interface AuthOptions {
  /** Lifetime of access tokens, seconds (default 300), or by the resource they are for. */
  readonly accessTokenTtl?: number | ((resource: string) => number)
  /** The `aud` a subject token must carry to be exchanged (default: any of this server's tokens). */
  readonly subjectAudience?: string
}

/**
 * One request to the token endpoint: the client (from Basic auth), the grant, the subject's `sub` for an exchange, and
 * the status.
 */
export interface TokenRequest {
  readonly client: string | undefined
  readonly grant: string | undefined
  readonly subject: string | undefined
  readonly resource: string | undefined
  readonly status: number
  /** The request's parameters as the provider read them (client authentication aside). */
  readonly params: Readonly<Record<string, unknown>>
}

/** The running authorization server. */
export interface AuthServer {
  readonly issuer: string
  /** How many times the key set (JWKS) was requested. */
  readonly jwksRequests: () => number
  /** The signing key now in use, private part included, with its `kid`. */
  readonly signingKey: () => JWK & { readonly kid: string }
  /** A new signing key: tokens issued from now on are signed with it; the old key stays in the key set. */
  readonly rotate: () => Effect.Effect<void>
  /** An access token for `client` from the token endpoint (client_credentials) for `resource`; fails unless 200. */
  readonly token: (client: AuthClient, resource: string, scope?: string) => Effect.Effect<string>
  /**
   * A person's browser at `url` (an authorization URL a host built): follows the redirects with a
   * cookie jar, logs in as `user` and consents at the interaction pages, and stops at the first
   * redirect away from the server (the host's redirect URI, with `code` or `error`), which it returns.
   */
  readonly authorize: (url: URL, user: string) => Effect.Effect<URL>
  /**
   * A token signed by the test: `claims` as given, header `kid` and `alg` RS256 of the current key unless `header` says
   * otherwise.
   */
  readonly sign: (claims: Record<string, unknown>, header?: Record<string, unknown>) => Effect.Effect<string>
  /** Every token request so far, in order. */
  readonly tokenRequests: () => ReadonlyArray<TokenRequest>
  /** From now on, every token request is refused (400 invalid_grant) until set back. */
  readonly refuseTokens: (refuse: boolean) => void
}

/** The scopes the server knows. */
export const SCOPES = ["mcp:tools", "mcp:admin"]

/** Where oidc-provider sends the browser to log in and consent (its default `interactions.url`). */
const INTERACTION = "/interaction/"

const newKey = () =>
  Effect.promise(async () => {
    const { privateKey } = await generateKeyPair("RS256", { extractable: true })
    return { ...(await exportJWK(privateKey)), kid: crypto.randomUUID(), alg: "RS256", use: "sig" }
  })

/** Signs the provider's cookies; one per test process is enough. */
const COOKIE_KEY = crypto.randomUUID()

/** The resource server a token for `resource` is minted for: a JWT with `aud` the resource. */
const resourceServerInfo = (resource: string, options: AuthOptions) => ({
  scope: SCOPES.join(" "),
  audience: resource,
  accessTokenTTL: typeof options.accessTokenTtl === "function"
    ? options.accessTokenTtl(resource)
    : options.accessTokenTtl ?? 300,
  accessTokenFormat: "jwt",
  jwt: { sign: { alg: "RS256" } }
})

const param = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined)

/**
 * The token-exchange grant: a subject token of this issuer (and `subjectAudience`), traded for one of the subject's for
 * `resource`.
 */
const registerExchange = (provider: Provider, issuer: string, keys: ReadonlyArray<JWK>, options: AuthOptions) => {
  const publicKeys = createLocalJWKSet({
    keys: keys.map(({ d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...key }) => key)
  })
  provider.registerGrantType(TOKEN_EXCHANGE, async (ctx) => {
    const params = ctx.oidc.params
    const resource = param(params.resource) ?? param(params.audience)
    if (params.subject_token_type !== "urn:ietf:params:oauth:token-type:access_token" || resource === undefined) {
      throw new errors.InvalidRequest("subject_token_type and resource or audience are required")
    }
    const subject = await jwtVerify(String(params.subject_token ?? ""), publicKeys, {
      issuer,
      ...(options.subjectAudience === undefined ? {} : { audience: options.subjectAudience })
    }).catch(() => undefined)
    if (subject?.payload.sub === undefined) throw new errors.InvalidGrant("the subject token is not valid")
    const token = new provider.AccessToken({
      accountId: subject.payload.sub,
      client: ctx.oidc.client,
      scope: param(params.scope),
      gty: "token_exchange"
    })
    token.resourceServer = new provider.ResourceServer(resource, resourceServerInfo(resource, options))
    ctx.body = {
      access_token: await token.save(),
      issued_token_type: "urn:ietf:params:oauth:token-type:access_token",
      token_type: "Bearer",
      expires_in: token.expiration
    }
  }, ["subject_token", "subject_token_type", "requested_token_type", "audience", "resource", "scope"])
}

const providerFor = (
  issuer: string,
  keys: ReadonlyArray<JWK>,
  clients: ReadonlyArray<AuthClient>,
  options: AuthOptions = {}
) => {
  const roles = new Map(clients.map((client) => [client.id, client.roles ?? []]))
  const ttl = typeof options.accessTokenTtl === "number" ? options.accessTokenTtl : 300
  const tokenTtl = (_ctx: unknown, token: { readonly resourceServer?: { readonly accessTokenTTL?: number } }) =>
    token.resourceServer?.accessTokenTTL ?? ttl
  const provider = new Provider(issuer, {
    clients: clients.map((client) => ({
      client_id: client.id,
      client_secret: client.secret,
      grant_types: client.exchanges === true ? ["client_credentials", TOKEN_EXCHANGE] : ["client_credentials"],
      response_types: [],
      redirect_uris: [],
      scope: client.scopes.join(" ")
    })),
    jwks: { keys },
    scopes: [...SCOPES, "offline_access"],
    ttl: {
      // A token for a resource lives as long as its resource server says (resourceServerInfo).
      ClientCredentials: tokenTtl,
      AccessToken: tokenTtl,
      AuthorizationCode: 60,
      RefreshToken: 3600,
      Grant: 3600,
      Interaction: 600,
      Session: 3600
    },
    pkce: { required: () => true },
    cookies: { keys: [COOKIE_KEY] },
    findAccount: (_ctx: unknown, sub: string) => ({ accountId: sub, claims: () => ({ sub }) }),
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      registration: { enabled: true },
      resourceIndicators: {
        enabled: true,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string) => resourceServerInfo(resource, options)
      }
    },
    extraTokenClaims: (_ctx: unknown, token: { readonly clientId?: string; readonly gty?: string }) =>
      token.gty === "token_exchange" ? {} : { roles: roles.get(token.clientId ?? "") ?? [] }
  })
  if (clients.some((client) => client.exchanges === true)) registerExchange(provider, issuer, keys, options)
  return provider
}

/** The `sub` of a subject token, for the log. */
const subjectOf = (token: unknown): string | undefined => {
  if (typeof token !== "string") return undefined
  try {
    return String(decodeJwt(token).sub)
  } catch {
    return "(not a JWT)"
  }
}

/** A refused token request as the log records it, read from its form and Basic header. */
const tokenRequestOf = async (req: IncomingMessage, body: string): Promise<Omit<TokenRequest, "status">> => {
  const form = new URLSearchParams(body)
  const params = Object.fromEntries(form)
  const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? "")?.[1]
  return {
    client: basic === undefined ? undefined : decodeURIComponent(atob(basic).split(":")[0] ?? ""),
    grant: form.get("grant_type") ?? undefined,
    subject: subjectOf(form.get("subject_token")),
    resource: form.get("resource") ?? undefined,
    params
  }
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk)).on(
      "end",
      () => resolve(Buffer.concat(chunks).toString("utf8"))
    ).on("error", reject)
  })

/**
 * The login and consent pages, answered without a page: a POST of `user=ID` to an interaction logs
 * that user in (the login prompt), or grants every scope the host asked for (the consent prompt).
 */
const interact = async (provider: Provider, req: IncomingMessage, res: ServerResponse) => {
  const user = new URLSearchParams(await readBody(req)).get("user")
  const details = await provider.interactionDetails(req, res)
  if (details.prompt.name === "login") {
    if (user === null || user === "") return void res.writeHead(400).end("no user")
    return provider.interactionFinished(req, res, { login: { accountId: user } }, { mergeWithLastSubmission: false })
  }
  const found = details.grantId === undefined ? undefined : await provider.Grant.find(details.grantId)
  const grant = found ??
    new provider.Grant({ accountId: details.session?.accountId ?? "", clientId: String(details.params.client_id) })
  const missing = details.prompt.details as {
    missingOIDCScope?: ReadonlyArray<string>
    missingResourceScopes?: Record<string, ReadonlyArray<string>>
  }
  if (missing.missingOIDCScope !== undefined) grant.addOIDCScope(missing.missingOIDCScope.join(" "))
  for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
    grant.addResourceScope(resource, scopes.join(" "))
  }
  return provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, {
    mergeWithLastSubmission: true
  })
}

/** A browser's visit, as `AuthServer.authorize` describes it. */
const visit = async (issuer: string, url: URL, user: string) => {
  const jar = new Map<string, string>()
  let next = url
  for (let hop = 0; hop < 16; hop++) {
    if (next.origin !== issuer) return next
    const form = next.pathname.startsWith(INTERACTION)
    const res = await fetch(next, {
      method: form ? "POST" : "GET",
      redirect: "manual",
      headers: {
        cookie: [...jar].map(([name, value]) => `${name}=${value}`).join("; "),
        ...(form ? { "content-type": "application/x-www-form-urlencoded" } : {})
      },
      ...(form ? { body: new URLSearchParams({ user }) } : {})
    })
    for (const cookie of res.headers.getSetCookie()) {
      const [pair = ""] = cookie.split(";")
      const at = pair.indexOf("=")
      const [name, value] = [pair.slice(0, at), pair.slice(at + 1)]
      value === "" ? jar.delete(name) : jar.set(name, value)
    }
    const location = res.headers.get("location")
    const text = await res.text()
    if (res.status < 300 || res.status >= 400 || location === null) {
      throw new Error(`the authorization stopped at ${next.pathname}: ${res.status} ${text}`)
    }
    next = new URL(location, next)
  }
  throw new Error("the authorization redirected more than 16 times")
}

/** Starts an authorization server with these clients; it stops with the scope. */
export const startAuthServer = (clients: ReadonlyArray<AuthClient>, options: AuthOptions = {}) =>
  Effect.gen(function*() {
    let provider: Provider | undefined
    let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined
    let jwks = 0
    let refusing = false
    const requests: Array<TokenRequest> = []
    // A refused token request is answered here, its description quoting the form it was sent (a
    // careless server's echo, which the gateway must never pass on); the rest go to the provider.
    const refuse = async (req: IncomingMessage, res: ServerResponse) => {
      const body = await readBody(req)
      requests.push({ ...(await tokenRequestOf(req, body)), status: 400 })
      res.writeHead(400, { "content-type": "application/json" }).end(
        JSON.stringify({ error: "invalid_grant", error_description: `refused: ${body}` })
      )
    }
    const server = createServer((req, res) => {
      if (req.url?.startsWith("/jwks") === true) jwks++
      if (provider !== undefined && req.method === "POST" && req.url?.startsWith(INTERACTION) === true) {
        return void interact(provider, req, res).catch((error: unknown) => res.writeHead(500).end(String(error)))
      }
      if (refusing && req.method === "POST" && req.url === "/token") {
        return void refuse(req, res).catch((error: unknown) => res.writeHead(500).end(String(error)))
      }
      handler === undefined ? res.writeHead(503).end() : handler(req, res)
    })
    const port = yield* Effect.acquireRelease(
      Effect.callback<number>((resume) => {
        server.listen(0, "127.0.0.1", () => resume(Effect.succeed((server.address() as AddressInfo).port)))
      }),
      () =>
        Effect.callback<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )
    const issuer = `http://127.0.0.1:${port}`
    const keys = [yield* newKey()]
    const serve = (next: Provider) => {
      provider = next
      handler = next.callback()
      const log = (ctx: GrantContext, status: number) =>
        void requests.push({
          client: ctx.oidc.client?.clientId,
          grant: param(ctx.oidc.params.grant_type),
          subject: subjectOf(ctx.oidc.params.subject_token),
          resource: param(ctx.oidc.params.resource),
          status,
          params: Object.fromEntries(Object.entries(ctx.oidc.params).filter(([, value]) => value !== undefined))
        })
      next.on("grant.success", (ctx: GrantContext) => log(ctx, 200))
      next.on("grant.error", (ctx: GrantContext) => log(ctx, 400))
    }
    serve(providerFor(issuer, keys, clients, options))
    const auth: AuthServer = {
      issuer,
      jwksRequests: () => jwks,
      signingKey: () => keys[0]!,
      rotate: () =>
        Effect.map(newKey(), (key) => {
          keys.unshift(key)
          serve(providerFor(issuer, [...keys], clients, options))
        }),
      token: (client, resource, scope) =>
        Effect.promise(async () => {
          const response = await fetch(`${issuer}/token`, {
            method: "POST",
            headers: {
              authorization: `Basic ${btoa(`${client.id}:${client.secret}`)}`,
              "content-type": "application/x-www-form-urlencoded"
            },
            body: new URLSearchParams({
              grant_type: "client_credentials",
              resource,
              ...(scope === undefined ? {} : { scope })
            })
          })
          const body = await response.json() as { access_token?: string }
          if (response.status !== 200 || body.access_token === undefined) {
            throw new Error(`token endpoint answered ${response.status}`)
          }
          return body.access_token
        }),
      authorize: (url, user) => Effect.promise(() => visit(issuer, url, user)),
      sign: (claims, header = {}) =>
        Effect.promise(async () => {
          const key = keys[0]!
          return new SignJWT(claims).setProtectedHeader({ alg: "RS256", kid: key.kid, typ: "at+jwt", ...header }).sign(
            await importJWK(key, "RS256")
          )
        }),
      tokenRequests: () => requests,
      refuseTokens: (refuse) => {
        refusing = refuse
      }
    }
    return auth
  })
