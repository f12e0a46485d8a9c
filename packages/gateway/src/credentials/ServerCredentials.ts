/**
 * One server's credentials, from its AuthPlan: what an operation of a principal is sent with (clientCredentials,
 * exchange, perPrincipal, identity: see the gateway README's "Downstream credentials"), and the headers or
 * environment of that principal's sessions. A session of a principal gets only what that principal's operation
 * prepared.
 */
import type { Principal } from "@interlock/core"
import { Cache, Effect, Equal, Hash, Redacted } from "effect"
import { createHash } from "node:crypto"
import { type AuthPlan, perPrincipalAuth } from "../config/Plan.ts"
import { accessTokenOf } from "./AccessTokens.ts"
import { CredentialError } from "./CredentialError.ts"
import type { IdentitySigner } from "./IdentityToken.ts"
import { newestEntries } from "./NewestEntries.ts"
import type { OAuthConnect } from "./OAuthConnect.ts"
import { secretsFor } from "./PrincipalSecrets.ts"
import { makeTokenCache, tokenFor } from "./TokenCache.ts"
import { type IssuedToken, requestToken } from "./TokenEndpoint.ts"

/** How an operation was authenticated downstream. */
export type AuthForm = "none" | "static" | "clientCredentials" | "exchange" | "oauth" | "perPrincipal"

/** What an operation is sent with: whose sessions carry it, its own headers, and how it was authenticated. */
export interface PreparedCredential {
  readonly principal: string | undefined
  readonly headers: Readonly<Record<string, string>> | undefined
  readonly form: AuthForm
  /** Which grant it went with (an issued token, a perPrincipal entry), as an opaque id: never the secret. */
  readonly grant: string | undefined
  /** Whether it carries an identity token. */
  readonly identity: boolean
  /**
   * The secrets it sends (its bearer token, identity token, perPrincipal values): redacted from what the server
   * answers.
   */
  readonly secrets: ReadonlyArray<string>
}

/** How an operation was authenticated, with which grant, and the secrets that sends. */
interface Used {
  readonly form: AuthForm
  readonly grant: string | undefined
  readonly secrets: ReadonlyArray<string>
}

/** One server's credentials. */
export interface ServerCredentials {
  /** The credential of an operation of `principal` with `digest`; refused (nothing is sent) when it has none. */
  readonly prepare: (
    principal: Principal | undefined,
    digest: string | undefined
  ) => Effect.Effect<PreparedCredential, CredentialError>
  /**
   * The auth headers of one HTTP request on a session of `principal` (undefined: a shared session), when the server has
   * any.
   */
  readonly sessionHeaders:
    | ((principal: string | undefined) => Effect.Effect<Readonly<Record<string, string>>, CredentialError>)
    | undefined
  /** The environment of a stdio process of `principal`, when the server gives principals one. */
  readonly env: ((principal: string) => Readonly<Record<string, string>>) | undefined
  /**
   * Drops the issued token an operation of `principal` carries (the server refused it), so the next one asks for a new
   * one; false when its credential is no issued token (static, per-principal secrets, none), which nothing renews.
   */
  readonly renew: (principal: Principal | undefined) => Effect.Effect<boolean>
}

const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
const ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token"

/** The most principals whose session sources one server keeps (oldest out first). */
const MAX_SOURCES = 10_000

/** An exchanged token's key: the principal and its subject token (compared by digest, held for the request). */
class ExchangeKey implements Equal.Equal {
  readonly principal: string
  readonly subject: Redacted.Redacted<string>
  readonly digest: string
  constructor(principal: string, subject: Redacted.Redacted<string>, digest: string) {
    this.principal = principal
    this.subject = subject
    this.digest = digest
  }
  [Equal.symbol](that: unknown): boolean {
    return that instanceof ExchangeKey && that.principal === this.principal && that.digest === this.digest
  }
  [Hash.symbol](): number {
    return Hash.string(`${this.principal}\u0000${this.digest}`)
  }
}

const digests = new WeakMap<Redacted.Redacted<string>, string>()

/** The SHA-256 of a subject token, once per token. */
const digestOf = (token: Redacted.Redacted<string>): string => {
  let digest = digests.get(token)
  if (digest === undefined) {
    digest = createHash("sha256").update(Redacted.value(token)).digest("hex")
    digests.set(token, digest)
  }
  return digest
}

/** What a principal's session sends: its exchanged token, its own grant (auth.oauth), or its configured secrets. */
type Source =
  | { readonly _tag: "exchange"; readonly key: ExchangeKey }
  | { readonly _tag: "oauth" }
  | { readonly _tag: "secrets"; readonly values: Readonly<Record<string, Redacted.Redacted<string>>> }

const reveal = (values: Readonly<Record<string, Redacted.Redacted<string>>>): Record<string, string> =>
  Object.fromEntries(Object.entries(values).map(([name, value]) => [name, Redacted.value(value)]))

const bearer = (token: Redacted.Redacted<string>) => ({ authorization: `Bearer ${Redacted.value(token)}` })

/** No credential beyond the static ones. */
const NOTHING: PreparedCredential = {
  principal: undefined,
  headers: undefined,
  form: "none",
  grant: undefined,
  identity: false,
  secrets: []
}

/** An opaque grant id: 16 hex digits of the SHA-256 of what names the grant (never a secret, nor reversible to one). */
const grantId = (...parts: ReadonlyArray<string | number>): string =>
  createHash("sha256").update(parts.join("\u0000")).digest("hex").slice(0, 16)

const issuedIds = new WeakMap<IssuedToken, string>()

/** The id of an issued token: the cache entry it is kept under (`key`) and when it was asked for, once per token. */
const issuedId = (serverId: string, key: string, issued: IssuedToken): string => {
  let id = issuedIds.get(issued)
  if (id === undefined) {
    id = grantId(serverId, key, issued.issuedAt)
    issuedIds.set(issued, id)
  }
  return id
}

/**
 * The credentials of server `serverId`; `signer` and `issuer` sign its identity tokens, when it has them, and
 * `connect` holds the principals' grants of the `oauth` form.
 */
export const makeServerCredentials = (
  serverId: string,
  auth: AuthPlan,
  staticToken: boolean,
  signer: IdentitySigner | undefined,
  issuer: () => string,
  connect?: OAuthConnect
): Effect.Effect<ServerCredentials> =>
  Effect.gen(function*() {
    const { clientCredentials, exchange, identity } = auth
    const refuse = (reason: CredentialError["reason"], detail: string) =>
      new CredentialError({ serverId, reason, detail })
    const service = clientCredentials === undefined ?
      undefined :
      yield* makeTokenCache((_: "service") =>
        requestToken(serverId, clientCredentials, {
          grant_type: "client_credentials",
          ...(clientCredentials.scope === undefined ? {} : { scope: clientCredentials.scope }),
          ...(clientCredentials.resource === undefined ? {} : { resource: clientCredentials.resource })
        })
      )
    const exchanged = exchange === undefined ?
      undefined :
      yield* makeTokenCache((key: ExchangeKey) =>
        requestToken(serverId, exchange, {
          grant_type: TOKEN_EXCHANGE,
          subject_token: Redacted.value(key.subject),
          subject_token_type: ACCESS_TOKEN_TYPE,
          requested_token_type: ACCESS_TOKEN_TYPE,
          ...(exchange.audience === undefined ? {} : { audience: exchange.audience }),
          ...(exchange.resource === undefined ? {} : { resource: exchange.resource }),
          ...(exchange.scope === undefined ? {} : { scope: exchange.scope })
        })
      )
    const perPrincipal = perPrincipalAuth(auth)
    // Each principal's latest source, set only by that principal's own operations.
    const sources = newestEntries<Source>(MAX_SOURCES)
    const ownCredential = (principal: Principal): Effect.Effect<Used, CredentialError> => {
      if (auth.oauth !== undefined && connect !== undefined) {
        return Effect.map(connect.accessToken(principal.id, serverId), (grant): Used => {
          sources.set(principal.id, { _tag: "oauth" })
          return { form: "oauth", grant: grant.id, secrets: [grant.tokens.access_token] }
        })
      }
      const subject = exchanged === undefined ? undefined : accessTokenOf(principal)
      if (exchanged !== undefined && subject !== undefined) {
        const key = new ExchangeKey(principal.id, subject, digestOf(subject))
        return Effect.map(tokenFor(exchanged, key), (issued): Used => {
          sources.set(principal.id, { _tag: "exchange", key })
          return {
            form: "exchange",
            grant: issuedId(serverId, `exchange\u0000${principal.id}\u0000${key.digest}`, issued),
            secrets: [Redacted.value(issued.token)]
          }
        })
      }
      const entry = secretsFor(auth.perPrincipal, principal)
      if (entry === undefined) {
        return Effect.fail(
          exchange === undefined
            ? refuse("not-named", "auth.perPrincipal names neither the principal nor a role it holds")
            : refuse(
              "no-access-token",
              "the principal has no OAuth access token to exchange, and auth.perPrincipal names it not"
            )
        )
      }
      return Effect.sync((): Used => {
        sources.set(principal.id, { _tag: "secrets", values: entry.values })
        const named = entry.principal ?? `role:${entry.role}`
        return {
          form: "perPrincipal",
          grant: grantId(serverId, "perPrincipal", named),
          secrets: Object.values(entry.values).map(Redacted.value)
        }
      })
    }
    const identityHeaders = (principal: Principal | undefined, digest: string | undefined) => {
      if (identity === undefined || signer === undefined) {
        return Effect.succeed(undefined)
      }
      if (principal === undefined) {
        return Effect.fail(refuse("no-principal", "an identity token names a principal, and the request has none"))
      }
      return Effect.map(
        signer.sign(issuer(), {
          serverId,
          principal,
          digest,
          audience: identity.audience,
          ttlSeconds: identity.ttlSeconds
        }),
        (token) => ({ [identity.header]: token })
      )
    }
    const serverForm: Effect.Effect<Used, CredentialError> = service !== undefined
      ? Effect.map(tokenFor(service, "service"), (issued): Used => ({
        form: "clientCredentials",
        grant: issuedId(serverId, "service", issued),
        secrets: [Redacted.value(issued.token)]
      }))
      : Effect.succeed({ form: staticToken ? "static" : "none", grant: undefined, secrets: [] })
    const prepare = (principal: Principal | undefined, digest: string | undefined) => {
      if (!perPrincipal && identity === undefined && service === undefined) {
        return Effect.succeed(staticToken ? { ...NOTHING, form: "static" as const } : NOTHING)
      }
      if (perPrincipal && principal === undefined) {
        return Effect.fail(
          refuse("no-principal", "the server's credential is each principal's own, and the request names none")
        )
      }
      const form = perPrincipal && principal !== undefined ? ownCredential(principal) : serverForm
      return Effect.flatMap(form, (used) =>
        Effect.map(identityHeaders(principal, digest), (headers): PreparedCredential => ({
          principal: perPrincipal ? principal?.id : undefined,
          headers,
          form: used.form,
          grant: used.grant,
          identity: headers !== undefined,
          secrets: headers === undefined ? used.secrets : [...used.secrets, ...Object.values(headers)]
        })))
    }
    const sessionHeaders = perPrincipal
      ? (principal: string | undefined) => {
        const source = principal === undefined ? undefined : sources.get(principal)
        if (source === undefined) {
          return Effect.fail(
            refuse("no-principal", "no request of this session's principal has prepared its credential")
          )
        }
        if (source._tag === "oauth") {
          return connect === undefined || principal === undefined
            ? Effect.fail(refuse("not-connected", "the server's grants are not kept here"))
            : Effect.map(connect.accessToken(principal, serverId), (grant) => ({
              authorization: `Bearer ${grant.tokens.access_token}`
            }))
        }
        if (source._tag === "secrets" || exchanged === undefined) {
          return source._tag === "secrets"
            ? Effect.succeed(reveal(source.values))
            : Effect.fail(refuse("no-access-token", "the server exchanges no token"))
        }
        return Effect.map(tokenFor(exchanged, source.key), (issued) =>
          bearer(issued.token))
      }
      : service === undefined
      ? undefined
      : () =>
        Effect.map(tokenFor(service, "service"), (issued) => bearer(issued.token))
    const env = perPrincipal
      ? (principal: string) => {
        const source = sources.get(principal)
        return source?._tag === "secrets" ? reveal(source.values) : {}
      }
      : undefined
    const renew = (principal: Principal | undefined): Effect.Effect<boolean> => {
      if (perPrincipal) {
        const source = principal === undefined ? undefined : sources.get(principal.id)
        if (source?._tag === "oauth" && connect !== undefined && principal !== undefined) {
          return Effect.as(connect.renew(principal.id, serverId), true)
        }
        return source?._tag === "exchange" && exchanged !== undefined
          ? Effect.as(Cache.invalidate(exchanged, source.key), true)
          : Effect.succeed(false)
      }
      return service === undefined ? Effect.succeed(false) : Effect.as(Cache.invalidate(service, "service"), true)
    }
    return { prepare, sessionHeaders, env, renew }
  })
