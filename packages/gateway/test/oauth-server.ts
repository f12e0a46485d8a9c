/**
 * A real authorization server for the OAuth tests: oidc-provider from node_modules on 127.0.0.1,
 * a port the OS picks. Configured clients use the client_credentials grant (client_secret_basic).
 * Hosts may also register themselves (RFC 7591) and use the authorization-code grant, where PKCE
 * (S256) is required and `offline_access` brings a refresh token; a person's login and consent are
 * a tiny interaction handler that logs in whichever user id the test's browser (`authorize`) names.
 * Access tokens are JWTs whose `aud` is the resource asked for (RFC 8707), with a `roles` claim.
 * The server counts the requests for its key set, can rotate its signing key (the new key signs,
 * the old one stays published), and hands the test its current private key to sign tokens of its own.
 */
import { Effect } from "effect"
import { exportJWK, generateKeyPair, importJWK, type JWK, SignJWT } from "jose"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import Provider from "oidc-provider"

/** A client of the authorization server: its credentials, the scopes it may ask for and the roles its tokens carry. */
export interface AuthClient {
  readonly id: string
  readonly secret: string
  readonly scopes: ReadonlyArray<string>
  readonly roles?: ReadonlyArray<string>
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
  /** A token signed by the test: `claims` as given, header `kid` and `alg` RS256 of the current key unless `header` says otherwise. */
  readonly sign: (claims: Record<string, unknown>, header?: Record<string, unknown>) => Effect.Effect<string>
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

const providerFor = (issuer: string, keys: ReadonlyArray<JWK>, clients: ReadonlyArray<AuthClient>) => {
  const roles = new Map(clients.map((client) => [client.id, client.roles ?? []]))
  return new Provider(issuer, {
    clients: clients.map((client) => ({
      client_id: client.id,
      client_secret: client.secret,
      grant_types: ["client_credentials"],
      response_types: [],
      redirect_uris: [],
      scope: client.scopes.join(" ")
    })),
    jwks: { keys },
    scopes: [...SCOPES, "offline_access"],
    ttl: {
      ClientCredentials: 300,
      AccessToken: 300,
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
        getResourceServerInfo: (_ctx: unknown, resource: string) => ({
          scope: SCOPES.join(" "),
          audience: resource,
          accessTokenTTL: 300,
          accessTokenFormat: "jwt",
          jwt: { sign: { alg: "RS256" } }
        })
      }
    },
    extraTokenClaims: (_ctx: unknown, token: { readonly clientId?: string }) => ({
      roles: roles.get(token.clientId ?? "") ?? []
    })
  })
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
export const startAuthServer = (clients: ReadonlyArray<AuthClient>) =>
  Effect.gen(function*() {
    let provider: Provider | undefined
    let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined
    let jwks = 0
    const server = createServer((req, res) => {
      if (req.url?.startsWith("/jwks") === true) jwks++
      if (provider !== undefined && req.method === "POST" && req.url?.startsWith(INTERACTION) === true) {
        return void interact(provider, req, res).catch((error: unknown) => res.writeHead(500).end(String(error)))
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
    }
    serve(providerFor(issuer, keys, clients))
    const auth: AuthServer = {
      issuer,
      jwksRequests: () => jwks,
      signingKey: () => keys[0]!,
      rotate: () =>
        Effect.map(newKey(), (key) => {
          keys.unshift(key)
          serve(providerFor(issuer, [...keys], clients))
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
        })
    }
    return auth
  })
