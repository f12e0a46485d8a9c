/**
 * A real authorization server for the OAuth tests: oidc-provider from node_modules on 127.0.0.1,
 * a port the OS picks. Clients use the client_credentials grant (client_secret_basic), and get JWT
 * access tokens whose `aud` is the resource they ask for (RFC 8707), with a `roles` claim. The
 * server counts the requests for its key set, can rotate its signing key (the new key signs, the
 * old one stays published), and hands the test its current private key to sign tokens of its own.
 */
import { Effect } from "effect"
import { exportJWK, generateKeyPair, importJWK, type JWK, SignJWT } from "jose"
import Provider from "oidc-provider"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

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
  /** A token signed by the test: `claims` as given, header `kid` and `alg` RS256 of the current key unless `header` says otherwise. */
  readonly sign: (claims: Record<string, unknown>, header?: Record<string, unknown>) => Effect.Effect<string>
}

/** The scopes the server knows. */
export const SCOPES = ["mcp:tools", "mcp:admin"]

const newKey = () =>
  Effect.promise(async () => {
    const { privateKey } = await generateKeyPair("RS256", { extractable: true })
    return { ...(await exportJWK(privateKey)), kid: crypto.randomUUID(), alg: "RS256", use: "sig" }
  })

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
    scopes: SCOPES,
    ttl: { ClientCredentials: 300 },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
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
    extraTokenClaims: (_ctx: unknown, token: { readonly clientId?: string }) => ({ roles: roles.get(token.clientId ?? "") ?? [] })
  })
}

/** Starts an authorization server with these clients; it stops with the scope. */
export const startAuthServer = (clients: ReadonlyArray<AuthClient>) =>
  Effect.gen(function*() {
    let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined
    let jwks = 0
    const server = createServer((req, res) => {
      if (req.url?.startsWith("/jwks") === true) jwks++
      handler === undefined ? res.writeHead(503).end() : handler(req, res)
    })
    const port = yield* Effect.acquireRelease(
      Effect.callback<number>((resume) => {
        server.listen(0, "127.0.0.1", () => resume(Effect.succeed((server.address() as AddressInfo).port)))
      }),
      () => Effect.callback<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
    )
    const issuer = `http://127.0.0.1:${port}`
    const keys = [yield* newKey()]
    handler = providerFor(issuer, keys, clients).callback()
    const auth: AuthServer = {
      issuer,
      jwksRequests: () => jwks,
      signingKey: () => keys[0]!,
      rotate: () =>
        Effect.map(newKey(), (key) => {
          keys.unshift(key)
          handler = providerFor(issuer, [...keys], clients).callback()
        }),
      token: (client, resource, scope) =>
        Effect.promise(async () => {
          const response = await fetch(`${issuer}/token`, {
            method: "POST",
            headers: { authorization: `Basic ${btoa(`${client.id}:${client.secret}`)}`, "content-type": "application/x-www-form-urlencoded" },
            body: new URLSearchParams({ grant_type: "client_credentials", resource, ...(scope === undefined ? {} : { scope }) })
          })
          const body = await response.json() as { access_token?: string }
          if (response.status !== 200 || body.access_token === undefined) throw new Error(`token endpoint answered ${response.status}`)
          return body.access_token
        }),
      sign: (claims, header = {}) =>
        Effect.promise(async () => {
          const key = keys[0]!
          return new SignJWT(claims).setProtectedHeader({ alg: "RS256", kid: key.kid, typ: "at+jwt", ...header }).sign(await importJWK(key, "RS256"))
        })
    }
    return auth
  })
