/**
 * The `oauth` form's connections: a sealed, single-use link that names a principal and a server; starting from it,
 * a flow bound to the browser that started it (a cookie) and sent to the server's authorization server by the SDK's
 * `auth`; the callback that redeems the code for that flow's principal only; and each principal's access token,
 * refreshed once when it expires or the server refuses it (single-flight per principal and server).
 */
import { auth } from "@modelcontextprotocol/client"
import { Clock, Deferred, Effect, Schema } from "effect"
import { randomBytes, randomUUID } from "node:crypto"
import type { OAuthClientPlan } from "../config/Plan.ts"
import type { StateSealShape } from "../state/StateSeal.ts"
import { CredentialError } from "./CredentialError.ts"
import type { GrantVault } from "./GrantVault.ts"
import {
  bindingHash,
  clientMetadata,
  type Flow,
  type Grant,
  makeGrantStore,
  providerFor,
  type Redirect
} from "./OAuthGrants.ts"

/** How long a connect link, and a flow started from one, may be used. */
export const CONNECT_TTL_MS = 10 * 60_000

/** Where the authorization server sends the browser back. */
export const CALLBACK_PATH = "/oauth/callback"

/** An access token is renewed this long before the expiry its authorization server gave. */
const EXPIRY_SKEW_MS = 30_000

const LINK = "interlock-connect-link"
const STATE = "interlock-connect-state"

/** Why a connection could not be started or completed; never says more than that. */
export class ConnectRefused extends Schema.TaggedError<ConnectRefused>()("ConnectRefused", {
  reason: Schema.Literals(["link", "state", "browser", "denied", "authorization", "server"]),
  detail: Schema.String
}) {
  override get message(): string {
    return `the connection was refused: ${this.detail}`
  }
}

/** A flow started: where the browser goes, and the cookie that binds the flow to it. */
export type Started =
  | { readonly _tag: "Redirect"; readonly url: URL; readonly cookie: { readonly name: string; readonly value: string } }
  | { readonly _tag: "Connected"; readonly principal: string }

/** The binding cookie's name for flow `id`: one per flow, so that two connections under way do not collide. */
export const cookieName = (id: string): string => `interlock_connect_${id.replaceAll("-", "").slice(0, 16)}`

/** An OAuth error code as the authorization server sent it, only if it looks like one. */
const errorCode = (value: string | null): string => value !== null && /^[a-z_]{1,64}$/.test(value) ? value : "an error"

/** How long one request of the flows (discovery, registration, token) may take. */
export const OAUTH_FETCH_TIMEOUT_MS = 10_000

/**
 * The SDK's fetch for the flows: an answer that is an error keeps its status and its OAuth error code only. The SDK
 * logs an error's description, which an authorization server may fill with what it was sent (a refresh token).
 */
export const quietFetchWithin =
  (timeoutMs: number) => async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    // No answer within the deadline is a failure: a server that never answers must not hold a call.
    const deadline = AbortSignal.timeout(timeoutMs)
    const signal = init?.signal == null ? deadline : AbortSignal.any([init.signal, deadline])
    const response = await fetch(input, { ...init, signal })
    if (response.ok) return response
    const body = await response.text()
    let code: unknown
    try {
      code = (JSON.parse(body) as { readonly error?: unknown } | null)?.error
    } catch {
      code = undefined
    }
    const kept = typeof code === "string" && /^[a-z_]{1,64}$/.test(code) ? JSON.stringify({ error: code }) : "{}"
    return new Response(kept, { status: response.status, headers: { "content-type": "application/json" } })
  }

/** {@link quietFetchWithin} the flows' deadline. */
export const quietFetch = quietFetchWithin(OAUTH_FETCH_TIMEOUT_MS)

/** The gateway's own routes, which no client metadata document may take. */
const OWN_PATHS = /^\/(?:$|mcp$|metrics$|interceptors$|claude\/|api\/|connect\/|oauth\/|\.well-known\/)/

/** The servers with the `oauth` form: each one's plan and URL. */
export type OAuthServers = ReadonlyMap<string, { readonly plan: OAuthClientPlan; readonly url: string }>

/** The connections of one gateway; with a vault, grants and registrations outlive it. */
export const makeOAuthConnect = (servers: OAuthServers, seal: StateSealShape, vault?: GrantVault) => {
  const store = makeGrantStore(vault)
  const usedLinks = new Map<string, number>()
  const stale = new Set<string>()
  const refreshing = new Map<string, Deferred.Deferred<Grant | undefined, CredentialError>>()
  let origin: string | undefined
  const callbackUrl = () => `${origin ?? ""}${CALLBACK_PATH}`
  const refuse = (serverId: string, reason: CredentialError["reason"], detail: string) =>
    new CredentialError({ serverId, reason, detail })

  const link = (principal: string, server: string) =>
    Effect.map(
      seal.seal(LINK, { p: principal, s: server }, CONNECT_TTL_MS),
      (sealed) => `${origin ?? ""}/connect/${encodeURIComponent(server)}?link=${encodeURIComponent(sealed)}`
    )

  /** Runs the SDK's `auth` for one principal and server, with the flow under way if any. */
  const authorize = (
    principal: string,
    server: string,
    options: { readonly flow?: Flow; readonly code?: string; readonly iss?: string | undefined }
  ) =>
    Effect.flatMap(Effect.all([Clock.currentTimeMillis, Effect.fromNullishOr(servers.get(server))]), ([now, entry]) => {
      const redirect: Redirect = {}
      const provider = providerFor(store, {
        principal,
        server,
        plan: entry.plan,
        callbackUrl: callbackUrl(),
        now: () => now,
        flow: options.flow,
        redirect
      })
      return Effect.map(
        Effect.tryPromise(() =>
          auth(provider, {
            serverUrl: entry.url,
            fetchFn: quietFetch,
            ...(entry.plan.scope === undefined ? {} : { scope: entry.plan.scope }),
            ...(options.code === undefined ? {} : { authorizationCode: options.code }),
            ...(options.iss === undefined ? {} : { iss: options.iss })
          })
        ),
        (result) => ({ result, redirect })
      )
    })

  /**
   * The grant after a refresh, or undefined when the authorization server ended it (the SDK forgets a grant it is
   * told is invalid); one refresh at a time per principal and server, which the others wait for.
   */
  const refresh = (principal: string, server: string): Effect.Effect<Grant | undefined, CredentialError> =>
    Effect.suspend(() => {
      const key = `${principal}\u0000${server}`
      const running = refreshing.get(key)
      if (running !== undefined) return Deferred.await(running)
      const deferred = Deferred.makeUnsafe<Grant | undefined, CredentialError>()
      refreshing.set(key, deferred)
      return authorize(principal, server, {}).pipe(
        Effect.map(({ result }) => (result === "AUTHORIZED" ? store.grant(principal, server) : undefined)),
        // A refresh that failed without ending the grant (the endpoint is down) keeps it for the next try.
        Effect.catch(() =>
          store.grant(principal, server) === undefined
            ? Effect.succeed(undefined)
            : Effect.fail(refuse(server, "token-endpoint", "the authorization server did not renew the access token"))
        ),
        Effect.onExit((exit) =>
          Effect.andThen(
            Effect.sync(() => {
              refreshing.delete(key)
              stale.delete(key)
            }),
            Deferred.done(deferred, exit)
          )
        )
      )
    })

  const notConnected = (principal: string, server: string) =>
    Effect.flatMap(link(principal, server), (url) =>
      Effect.fail(
        new CredentialError({
          serverId: server,
          reason: "not-connected",
          detail: origin === undefined
            ? "the principal has not connected this server, and the gateway's HTTP face, where it would, is not up"
            : "the principal has not connected this server",
          ...(origin === undefined ? {} : { connect: url })
        })
      ))

  const accessToken = (principal: string, server: string) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const key = `${principal}\u0000${server}`
      const held = store.grant(principal, server)
      if (held === undefined) return yield* notConnected(principal, server)
      const expiresIn = held.tokens.expires_in
      const expired = expiresIn !== undefined && now >= held.obtainedAtMs + expiresIn * 1000 - EXPIRY_SKEW_MS
      if (!expired && !stale.has(key)) return held
      if (held.tokens.refresh_token === undefined) {
        store.forgetGrant(principal, server)
        return yield* notConnected(principal, server)
      }
      const renewed = yield* refresh(principal, server)
      return renewed ?? (yield* notConnected(principal, server))
    })

  /** The link `given` for `server`, opened but not spent: its id, expiry and principal. */
  const openLink = (server: string, given: string) =>
    Effect.gen(function*() {
      if (!servers.has(server)) return yield* new ConnectRefused({ reason: "server", detail: "no such server" })
      const opened = yield* Effect.mapError(
        seal.open(LINK, given),
        (error) => new ConnectRefused({ reason: "link", detail: `the link is ${error.reason}` })
      )
      const now = yield* Clock.currentTimeMillis
      const principal = opened.payload.p
      if (opened.payload.s !== server || typeof principal !== "string") {
        return yield* new ConnectRefused({ reason: "link", detail: "the link is for another server" })
      }
      for (const [id, expiry] of usedLinks) if (expiry <= now) usedLinks.delete(id)
      if (usedLinks.has(opened.id)) return yield* new ConnectRefused({ reason: "link", detail: "the link was used" })
      return { id: opened.id, expiresAtMs: opened.expiresAtMs, principal, now }
    })

  const start = (server: string, given: string) =>
    Effect.gen(function*() {
      const { expiresAtMs, id: linkId, now, principal } = yield* openLink(server, given)
      usedLinks.set(linkId, expiresAtMs)
      const binding = randomBytes(32).toString("base64url")
      const id = randomUUID()
      const state = yield* seal.seal(STATE, { f: id }, CONNECT_TTL_MS)
      const flow: Flow = {
        id,
        principal,
        server,
        binding: bindingHash(binding),
        expiresAtMs: now + CONNECT_TTL_MS,
        state
      }
      store.addFlow(flow)
      const { redirect, result } = yield* Effect.mapError(
        authorize(principal, server, { flow }),
        () => new ConnectRefused({ reason: "authorization", detail: "the server's authorization could not be begun" })
      )
      if (result === "AUTHORIZED" || redirect.url === undefined) {
        store.takeFlow(id)
        return { _tag: "Connected", principal } as Started
      }
      // The person is asked to consent each time: a forged start cannot complete silently on a standing session.
      redirect.url.searchParams.set("prompt", "consent")
      return { _tag: "Redirect", url: redirect.url, cookie: { name: cookieName(id), value: binding } } as Started
    })

  const finish = (query: URLSearchParams, cookie: (name: string) => string | undefined) =>
    Effect.gen(function*() {
      const opened = yield* Effect.mapError(
        seal.open(STATE, query.get("state") ?? ""),
        (error) => new ConnectRefused({ reason: "state", detail: `the state is ${error.reason}` })
      )
      const flow = typeof opened.payload.f === "string" ? store.takeFlow(opened.payload.f) : undefined
      const now = yield* Clock.currentTimeMillis
      if (flow === undefined || flow.expiresAtMs <= now) {
        return yield* new ConnectRefused({ reason: "state", detail: "the connection is unknown, used or expired" })
      }
      const binding = cookie(cookieName(flow.id))
      if (binding === undefined || bindingHash(binding) !== flow.binding) {
        return yield* new ConnectRefused({ reason: "browser", detail: "it was begun in another browser" })
      }
      const code = query.get("code")
      if (query.has("error") || code === null) {
        const said = errorCode(query.get("error"))
        return yield* new ConnectRefused({ reason: "denied", detail: `the authorization server answered ${said}` })
      }
      const { result } = yield* Effect.mapError(
        authorize(flow.principal, flow.server, { flow, code, iss: query.get("iss") ?? undefined }),
        () => new ConnectRefused({ reason: "authorization", detail: "the code could not be redeemed" })
      )
      if (result !== "AUTHORIZED") {
        return yield* new ConnectRefused({ reason: "authorization", detail: "the code could not be redeemed" })
      }
      return { principal: flow.principal, server: flow.server }
    })

  return {
    link,
    accessToken,
    /** The principal a link for `server` connects, when it is still good (nothing is spent). */
    linkPrincipal: (server: string, given: string) => Effect.map(openLink(server, given), (link) => link.principal),
    start,
    finish,
    /** Marks the principal's access token refused by the server: the next request refreshes it. */
    renew: (principal: string, server: string) => Effect.sync(() => void stale.add(`${principal}\u0000${server}`)),
    /** The gateway's public origin, once it listens: links and the redirect URI are under it. */
    publishAt: (at: string) => {
      origin = at
    },
    /** The servers with the `oauth` form. */
    servers,
    /** Every principal's grant, without its tokens. */
    connections: () => store.connections(),
    /** Forgets the grant of `principal` toward `server`; whether there was one. */
    revoke: (principal: string, server: string): boolean => {
      const held = store.grant(principal, server) !== undefined
      store.forgetGrant(principal, server)
      return held
    },
    /**
     * The client ID metadata documents to serve: by the path of each server's `clientMetadataUrl` under the gateway's
     * own origin (not one of its own routes), the gateway's client metadata with that URL as its `client_id`.
     */
    metadataDocuments: (): ReadonlyMap<string, Readonly<Record<string, unknown>>> =>
      new Map([...servers.values()].flatMap(({ plan }) => {
        const given = plan.clientMetadataUrl
        const url = given === undefined ? undefined : new URL(given)
        if (given === undefined || url === undefined || url.origin !== origin || OWN_PATHS.test(url.pathname)) return []
        return [[url.pathname, { ...clientMetadata(plan, callbackUrl()), client_id: given }] as const]
      }))
  }
}

/** The connections' interface. */
export type OAuthConnect = ReturnType<typeof makeOAuthConnect>
