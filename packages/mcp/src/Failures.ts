/**
 * Maps what the SDK throws to core's typed errors: a JSON-RPC error answer becomes a ProtocolError
 * with its code and message; everything about delivery (spawn, connection, close, HTTP status)
 * becomes a TransportError. Details are written here and never include arguments or results.
 */
import { ProtocolError, TransportError } from "@interlock/core"
import {
  ProtocolError as SdkProtocolError,
  SdkError,
  SdkErrorCode,
  UnauthorizedError
} from "@modelcontextprotocol/client"
import { CredentialUnavailable } from "./Credential.ts"
import { TASKS_EXTENSION } from "./TaskResult.ts"

/** Extra words about the connection's end (for example how a child process exited). */
export type Describe = () => string | undefined

const MAX_MESSAGE = 300

const clip = (text: string): string => (text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}...` : text)

const systemCode = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === "string" && /^E[A-Z]+$/.test(code) ? code : undefined
}

/**
 * Whether another connection attempt could succeed (a missing command, a bad address or a server
 * process that ended during start will not).
 */
export const isRetryable = (error: TransportError | ProtocolError): boolean =>
  error._tag === "TransportError" &&
  !/\b(ENOENT|EACCES|ENOTDIR|EINVAL)\b|protocol version|HTTP 40[13]\b|ended during start|^no credential\b/.test(
    error.detail
  )

const REFUSED = "the server refused the credentials "

/** Whether a request failed because the server refused its credentials (HTTP 401), so a new credential may pass. */
export const isCredentialRefusal = (error: unknown): boolean =>
  (error as { readonly _tag?: unknown } | null)?._tag === "TransportError" &&
  (error as TransportError).detail.startsWith(REFUSED)

/** The error for a server process that ended on its own before its handshake was done: how it ended, not retried. */
export const endedAtStart = (serverId: string, end: string | undefined): TransportError =>
  new TransportError({ serverId, detail: `the server process ended during start: ${end ?? "it closed its output"}` })

/** Whether the SDK gave up waiting (its request timeout, which carries the call's deadline). */
export const isTimeout = (error: unknown): boolean =>
  error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout

/** Whether a request never reached the server (fetch failed, connection refused or reset). */
export const isUnreachable = (error: unknown): boolean =>
  error instanceof TypeError && /fetch failed|terminated/.test(error.message)

/** The error for a failed spawn, naming the command. */
export const spawnFailed = (serverId: string, command: string, error: unknown): TransportError => {
  const code = systemCode(error)
  const what = code === "ENOENT" ? "command not found" : code === "EACCES" ? "permission denied" : "spawn failed"
  return new TransportError({
    serverId,
    detail: `cannot start server process ${JSON.stringify(command)}: ${what}${code === undefined ? "" : ` (${code})`}`
  })
}

/** The 2026-07-28 revision's MissingRequiredClientCapability error code. */
const MISSING_CLIENT_CAPABILITY = -32021

/** A capability name as the revision spells them (sampling, elicitation, roots, an extension's id). */
const CAPABILITY_NAME = /^[A-Za-z][\w./-]{0,63}$/

/**
 * The names in a -32021 error's `data.requiredCapabilities` (a ClientCapabilities object), at most
 * eight, each a plain name: the only part of a server's error data that is passed on.
 */
const capabilityNames = (data: unknown): ReadonlyArray<string> | undefined => {
  const required = (data as { requiredCapabilities?: unknown } | undefined)?.requiredCapabilities
  if (typeof required !== "object" || required === null || Array.isArray(required)) return undefined
  // The one extension the hub carries is named by its identifier (TaskResult.ts); other extensions stay "extensions".
  const tasks = (required as { extensions?: Record<string, unknown> }).extensions?.[TASKS_EXTENSION] !== undefined
  const names = Object.keys(required).filter((name) => CAPABILITY_NAME.test(name)).map((
    name
  ) => (name === "extensions" && tasks ? TASKS_EXTENSION : name)).slice(0, 8)
  return names.length === 0 ? undefined : names
}

/** The CredentialUnavailable an error is, or was caused by (the SDK wraps what a fetch threw), if any. */
const credentialCause = (error: unknown): CredentialUnavailable | undefined => {
  let at = error
  for (let depth = 0; depth < 5 && typeof at === "object" && at !== null; depth++) {
    if (at instanceof CredentialUnavailable) return at
    at = (at as { cause?: unknown }).cause
  }
  return undefined
}

/** Maps an error thrown by an SDK request (or connect) to a core error. */
export const fromSdk = (
  serverId: string,
  error: unknown,
  describe: Describe,
  phase: string
): TransportError | ProtocolError => {
  if (error instanceof SdkProtocolError) {
    const required = error.code === MISSING_CLIENT_CAPABILITY ? capabilityNames(error.data) : undefined
    return new ProtocolError({
      serverId,
      code: error.code,
      detail: clip(error.message),
      ...(required === undefined ? {} : { requiredCapabilities: required })
    })
  }
  const credential = credentialCause(error)
  if (credential !== undefined) {
    return new TransportError({ serverId, detail: `no credential ${phase}: ${clip(credential.message)}` })
  }
  // The SDK says 401 as UnauthorizedError (with an auth provider) or as an HTTP error with the status (without one).
  if (
    error instanceof UnauthorizedError ||
    (error instanceof SdkError && (error.data as { status?: unknown } | undefined)?.status === 401)
  ) {
    return new TransportError({ serverId, detail: `${REFUSED}${phase} (HTTP 401)` })
  }
  if (error instanceof SdkError) {
    switch (error.code) {
      case SdkErrorCode.ConnectionClosed:
      case SdkErrorCode.NotConnected:
      case SdkErrorCode.SendFailed: {
        const end = describe()
        return new TransportError({
          serverId,
          detail: `connection closed ${phase}${end === undefined ? "" : `: ${end}`}`
        })
      }
      case SdkErrorCode.RequestTimeout:
        return new TransportError({ serverId, detail: `no answer ${phase} in time` })
      case SdkErrorCode.InvalidResult:
        return new ProtocolError({
          serverId,
          code: -32603,
          detail: `the server's answer ${phase} is not valid: ${clip(error.message)}`
        })
      case SdkErrorCode.CapabilityNotSupported:
      case SdkErrorCode.MethodNotSupportedByProtocolVersion:
        return new ProtocolError({ serverId, code: -32601, detail: clip(error.message) })
      default: {
        const status = (error.data as { status?: unknown } | undefined)?.status
        const end = describe()
        return new TransportError({
          serverId,
          detail: `${error.code.toLowerCase().replace(/_/g, " ")} ${phase}${
            typeof status === "number" ? ` (HTTP ${status})` : ""
          }: ${clip(error.message)}${end === undefined ? "" : `; ${end}`}`
        })
      }
    }
  }
  const code = systemCode(error)
  const end = describe()
  const base = error instanceof Error ? clip(error.message) : "unknown failure"
  return new TransportError({
    serverId,
    detail: `${phase === "" ? "" : `${phase}: `}${base}${
      code === undefined || base.includes(code) ? "" : ` (${code})`
    }${end === undefined ? "" : `; ${end}`}`
  })
}
