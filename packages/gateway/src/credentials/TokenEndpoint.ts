/**
 * One request to an OAuth token endpoint (RFC 6749 section 3.2): a form POST with Basic client authentication, no
 * redirect followed, under a deadline. The answer must be a bearer token, living `expires_in` less a second from
 * when it was asked for. A refusal names the HTTP status and OAuth error code, never the endpoint's description.
 */
import { Clock, Effect, Redacted } from "effect"
import type { TokenClientPlan } from "../config/Plan.ts"
import { CredentialError } from "./CredentialError.ts"

/** A token the endpoint issued: the token, and for how long it is valid from when it was asked for. */
export interface IssuedToken {
  readonly token: Redacted.Redacted<string>
  readonly lifetimeMs: number
  /** When it was asked for (epoch ms). */
  readonly issuedAt: number
}

/** How long a token request may take. */
export const TOKEN_REQUEST_TIMEOUT_MS = 10_000

/** The lifetime taken for a token whose answer has no `expires_in`. */
export const DEFAULT_TOKEN_LIFETIME_MS = 60_000

/** The largest token answer read (bytes). */
const MAX_ANSWER_BYTES = 64 * 1024

/** An OAuth error code as RFC 6749 allows it (printable ASCII, no quote or backslash), short. */
const ERROR_CODE = /^[\x20\x21\x23-\x5B\x5D-\x7E]{1,64}$/

/** `application/x-www-form-urlencoded` for one Basic credential part (RFC 6749 section 2.3.1). */
const formEncode = (text: string): string => encodeURIComponent(text).replace(/%20/g, "+")

const basic = (client: TokenClientPlan): string =>
  `Basic ${
    Buffer.from(`${formEncode(client.clientId)}:${formEncode(Redacted.value(client.clientSecret))}`).toString("base64")
  }`

const refused = (serverId: string, reason: "token-endpoint" | "token-response", detail: string) =>
  new CredentialError({ serverId, reason, detail })

const errorCode = (body: unknown): string | undefined => {
  const code = typeof body === "object" && body !== null ? (body as { error?: unknown }).error : undefined
  return typeof code === "string" && ERROR_CODE.test(code) ? code : undefined
}

const readAnswer = async (response: Response): Promise<unknown> => {
  const text = await response.text()
  if (text.length > MAX_ANSWER_BYTES) return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** Asks `client`'s token endpoint for a token with the grant's `form` fields, for a request to `serverId`. */
export const requestToken = (
  serverId: string,
  client: TokenClientPlan,
  form: Readonly<Record<string, string>>
): Effect.Effect<IssuedToken, CredentialError> =>
  Effect.gen(function*() {
    const asked = yield* Clock.currentTimeMillis
    const answer = yield* Effect.tryPromise({
      try: async (signal) => {
        const response = await fetch(client.tokenUrl, {
          method: "POST",
          redirect: "manual",
          signal: AbortSignal.any([signal, AbortSignal.timeout(TOKEN_REQUEST_TIMEOUT_MS)]),
          headers: {
            authorization: basic(client),
            "content-type": "application/x-www-form-urlencoded",
            accept: "application/json"
          },
          body: new URLSearchParams(form)
        })
        return { status: response.status, body: await readAnswer(response) }
      },
      catch: () => refused(serverId, "token-endpoint", "the token endpoint could not be reached")
    })
    if (answer.status !== 200) {
      const code = errorCode(answer.body)
      return yield* refused(
        serverId,
        "token-endpoint",
        `the token endpoint refused (HTTP ${answer.status}${code === undefined ? "" : `, ${code}`})`
      )
    }
    const body = (typeof answer.body === "object" && answer.body !== null ? answer.body : {}) as {
      readonly access_token?: unknown
      readonly token_type?: unknown
      readonly expires_in?: unknown
    }
    if (typeof body.access_token !== "string" || body.access_token.length === 0) {
      return yield* refused(serverId, "token-response", "the token endpoint's answer has no access_token")
    }
    if (typeof body.token_type !== "string" || body.token_type.toLowerCase() !== "bearer") {
      return yield* refused(serverId, "token-response", "the token endpoint's answer is not a bearer token")
    }
    const expiresIn = body.expires_in
    // `expires_in` counts whole seconds from an issue time the server rounded down: up to one second less is left.
    const lifetimeMs = typeof expiresIn === "number" && Number.isFinite(expiresIn) && expiresIn > 0
      ? expiresIn * 1000 - 1000
      : DEFAULT_TOKEN_LIFETIME_MS
    const now = yield* Clock.currentTimeMillis
    return {
      token: Redacted.make(body.access_token),
      lifetimeMs: Math.max(0, lifetimeMs - (now - asked)),
      issuedAt: asked
    }
  })
