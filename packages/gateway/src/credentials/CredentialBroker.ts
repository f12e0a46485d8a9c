/**
 * CredentialBroker: the credentials the gateway sends downstream, for every server of a plan
 * (ServerCredentials.ts). An operation's credential is prepared in the operation's own fiber
 * before anything is sent (CredentialTransport.ts), and the hub's sessions read their headers and
 * environment from it (mcp's ServerAuth). It lives as long as the gateway: the servers do too.
 */
import type { Principal } from "@interlock/core"
import { ConfigError, TransportError } from "@interlock/core"
import type { ServerAuth } from "@interlock/mcp"
import { Context, Effect, Layer, Redacted, type Scope } from "effect"
import type { JWK } from "jose"
import type { Plan } from "../config/Plan.ts"
import { StateSeal } from "../state/StateSeal.ts"
import type { CredentialError } from "./CredentialError.ts"
import { openGrantVault } from "./GrantVault.ts"
import { makeIdentitySigner } from "./IdentityToken.ts"
import { makeOAuthConnect, type OAuthConnect, type OAuthServers } from "./OAuthConnect.ts"
import { makeServerCredentials, type PreparedCredential, type ServerCredentials } from "./ServerCredentials.ts"

/** The issuer of identity tokens before the gateway's public origin is known. */
export const DEFAULT_IDENTITY_ISSUER = "urn:interlock:gateway"

/** The broker's interface. */
export interface CredentialBrokerShape {
  /**
   * The credential of an operation of `principal` on `serverId` with `digest`; refused (nothing is sent) when it has
   * none.
   */
  readonly prepare: (
    serverId: string,
    principal: Principal | undefined,
    digest: string | undefined
  ) => Effect.Effect<PreparedCredential, CredentialError>
  /**
   * Drops the issued token an operation of `principal` on `serverId` carries, which the server refused; false when
   * there is none to renew.
   */
  readonly renew: (serverId: string, principal: Principal | undefined) => Effect.Effect<boolean>
  /** How the hub authenticates `serverId`'s sessions, when it needs to. */
  readonly sessionAuth: (serverId: string) => ServerAuth | undefined
  /** The identity tokens' key set, when a server has `auth.identity`. */
  readonly jwks: { readonly keys: ReadonlyArray<JWK> } | undefined
  /** The gateway's public origin, once it listens: the issuer of its identity tokens, where principals connect. */
  readonly publishAt: (origin: string) => void
  /** The principals' connections to the servers with `auth.oauth`, when any server has it. */
  readonly connect: OAuthConnect | undefined
}

const NONE: PreparedCredential = {
  principal: undefined,
  headers: undefined,
  form: "none",
  grant: undefined,
  identity: false,
  secrets: []
}

/** The gateway's downstream credentials. */
export class CredentialBroker
  extends Context.Service<CredentialBroker, CredentialBrokerShape>()("@interlock/gateway/CredentialBroker")
{
  /** The broker of a plan's servers. */
  static layer(plan: Plan): Layer.Layer<CredentialBroker, ConfigError, StateSeal> {
    return Layer.effect(CredentialBroker, makeCredentialBroker(plan))
  }
}

/**
 * Builds the broker of `plan`'s servers; identity keys are made (jose loaded) only when a server has `auth.identity`.
 */
export const makeCredentialBroker = (
  plan: Plan
): Effect.Effect<CredentialBrokerShape, ConfigError, Scope.Scope | StateSeal> =>
  Effect.gen(function*() {
    const signs = [...plan.servers.values()].some((server) => server.auth.identity !== undefined)
    const signer = signs ? yield* makeIdentitySigner(plan.identityKey) : undefined
    let issuer = plan.listen.publicUrl ?? DEFAULT_IDENTITY_ISSUER
    const connect = yield* oauthConnect(plan)
    const servers = new Map<string, ServerCredentials>()
    for (const [name, server] of plan.servers) {
      const staticToken = server._tag === "http" && server.token !== undefined
      servers.set(name, yield* makeServerCredentials(name, server.auth, staticToken, signer, () => issuer, connect))
    }
    return {
      prepare: (serverId, principal, digest) => {
        const server = servers.get(serverId)
        return server === undefined ? Effect.succeed(NONE) : server.prepare(principal, digest)
      },
      renew: (serverId, principal) => servers.get(serverId)?.renew(principal) ?? Effect.succeed(false),
      sessionAuth: (serverId) => {
        const server = servers.get(serverId)
        const sessionHeaders = server?.sessionHeaders
        const env = server?.env
        if (sessionHeaders === undefined && env === undefined) return undefined
        const http = plan.servers.get(serverId)?._tag === "http"
        return {
          ...(http && sessionHeaders !== undefined
            ? {
              headers: (principal: string | undefined) =>
                Effect.mapError(
                  sessionHeaders(principal),
                  (error) => new TransportError({ serverId, detail: error.detail })
                )
            }
            : {}),
          ...(!http && env !== undefined ? { env } : {})
        }
      },
      jwks: signer?.jwks,
      connect,
      publishAt: (origin) => {
        connect?.publishAt(plan.listen.publicUrl ?? origin)
        if (plan.listen.publicUrl === undefined) {
          issuer = origin
        }
      }
    }
  })

/**
 * The connections of the plan's `oauth` servers, none without one. Links and states are sealed with the gateway's
 * own StateSeal (approvals.stateKey when set, so that every replica opens them).
 */
const oauthConnect = (plan: Plan): Effect.Effect<OAuthConnect | undefined, ConfigError, Scope.Scope | StateSeal> => {
  const servers: OAuthServers = new Map(
    [...plan.servers].flatMap(([name, server]) =>
      server._tag === "http" && server.auth.oauth !== undefined
        ? [[name, { plan: server.auth.oauth, url: server.url }] as const]
        : []
    )
  )
  if (servers.size === 0) return Effect.succeed(undefined)
  const where = plan.grantVault
  const vault = where === undefined ? Effect.succeed(undefined) : Effect.acquireRelease(
    Effect.try({
      try: () => openGrantVault(where.path, Redacted.value(where.key)),
      catch: (error) =>
        new ConfigError({
          path: "credentials.path",
          detail: `cannot open ${where.path}: ${(error as { code?: string }).code ?? "not a SQLite file"}`
        })
    }),
    (opened) => Effect.sync(() => opened.close())
  )
  return Effect.gen(function*() {
    return makeOAuthConnect(servers, yield* StateSeal, yield* vault)
  })
}
