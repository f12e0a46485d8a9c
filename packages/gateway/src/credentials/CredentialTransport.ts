/**
 * The credential step of the transport: before an operation goes downstream, the broker prepares its principal's
 * credential in the operation's fiber and hands it to the hub as mcp's CurrentCredential. One that cannot be had
 * refuses the operation (nothing is sent); the {@link CredentialStep} keeps the CredentialError for GatewayCalls.
 */
import {
  Canonical,
  type JsonObject,
  type Principal,
  type Tool,
  ToolTransport,
  type ToolTransportShape,
  TransportError,
  type TransportFailure
} from "@interlock/core"
import { CurrentCredential, isCredentialRefusal } from "@interlock/mcp"
import { Context, Effect, Layer } from "effect"
import { redactPrompt, redactResourceContents } from "../governance/ContentRedaction.ts"
import { redactFailure } from "../governance/RedactingTransport.ts"
import type { Redaction } from "../governance/Redactor.ts"
import { CredentialBroker, type CredentialBrokerShape } from "./CredentialBroker.ts"
import type { CredentialError } from "./CredentialError.ts"
import { echoRedaction, redactProgress, redactToolResult } from "./EchoRedaction.ts"
import type { AuthForm } from "./ServerCredentials.ts"

/** One operation's credential step: whose operation it is, and what became of its credential. */
export interface CredentialStep {
  readonly principal: Principal | undefined
  /** Why the credential was refused (the operation was not sent). */
  refused: CredentialError | undefined
  /** How the operation was authenticated downstream, once it was. */
  form: AuthForm | undefined
  /** Whether it carried an identity token. */
  identity: boolean
  /** Which grant it went with, as an opaque id. */
  grant: string | undefined
}

/** The current operation's credential step; none outside a GatewayCalls operation (its principal is then unknown). */
export const CurrentCredentialStep = Context.Reference<CredentialStep | undefined>(
  "@interlock/gateway/CredentialStep",
  { defaultValue: () => undefined }
)

/** A fresh step for an operation of `principal`. */
export const credentialStep = (principal: Principal | undefined): CredentialStep => ({
  principal,
  refused: undefined,
  form: undefined,
  identity: false,
  grant: undefined
})

/**
 * How a step's operation was authenticated, as its audit row names it: the form, `identity` for an
 * identity token alone, `<form>+identity` beside another; undefined when it sent no credential.
 */
export const authLabel = (step: CredentialStep): string | undefined => {
  const form = step.form === "none" ? undefined : step.form
  if (!step.identity) return form
  return form === undefined ? "identity" : `${form}+identity`
}

/** A failure's text with `echo` applied (a transport failure's detail; anything else as it is). */
const scrubbed = <E>(error: E, echo: ReadonlyArray<Redaction>): E => {
  const tag = (error as { readonly _tag?: unknown } | null)?._tag
  return tag === "TransportError" || tag === "ProtocolError"
    ? redactFailure(error as E & TransportFailure, echo)
    : error
}

const digestOf = (value: JsonObject): string | undefined => {
  const digest = Canonical.digestJson(value)
  return typeof digest === "string" ? digest : undefined
}

/**
 * Runs `effect` (a hub request to `serverId` for `principal`, with `digest`) with its credential
 * prepared by `broker` and handed to the hub; when there is none, fails with a TransportError and
 * sends nothing. `step`, when given, learns what became of the credential.
 */
export const withCredential = <A, E, R>(
  broker: CredentialBrokerShape,
  serverId: string,
  principal: Principal | undefined,
  digest: string | undefined,
  effect: Effect.Effect<A, E, R>,
  step?: CredentialStep
): Effect.Effect<A, E | TransportError, R> =>
  withEchoedCredential(broker, serverId, principal, digest, () => effect, step)

/**
 * {@link withCredential} of the request `run` makes with the redaction of the secrets its credential
 * sends (EchoRedaction.ts), to apply to what the server answers; its errors pass it here. A request the server refuses
 * for its credentials (HTTP 401: nothing ran) is sent once more with a new token, when the credential is an issued one
 * (a token revoked, or expired early by the server's clock); a second refusal is the operation's failure.
 */
const withEchoedCredential = <A, E, R>(
  broker: CredentialBrokerShape,
  serverId: string,
  principal: Principal | undefined,
  digest: string | undefined,
  run: (echo: ReadonlyArray<Redaction>) => Effect.Effect<A, E, R>,
  step?: CredentialStep
): Effect.Effect<A, E | TransportError, R> => {
  // An Effect runs anew each time: the second try prepares the credential again.
  const send = Effect.matchEffect(broker.prepare(serverId, principal, digest), {
    onFailure: (error) => {
      if (step !== undefined) step.refused = error
      return Effect.fail(new TransportError({ serverId, detail: `no credential: ${error.detail}` }))
    },
    onSuccess: (prepared) => {
      if (step !== undefined) {
        step.form = prepared.form
        step.identity = prepared.identity
        step.grant = prepared.grant
      }
      const echo = echoRedaction(prepared.secrets)
      const effect = echo.length === 0 ? run(echo) : Effect.mapError(run(echo), (error) => scrubbed(error, echo))
      return prepared.principal === undefined && prepared.headers === undefined
        ? effect
        : Effect.provideService(effect, CurrentCredential, { principal: prepared.principal, headers: prepared.headers })
    }
  })
  return Effect.catchIf(
    send,
    isCredentialRefusal,
    (refused) => Effect.flatMap(broker.renew(serverId, principal), (renewed) => (renewed ? send : Effect.fail(refused)))
  )
}

/** `transport` with every operation's credential prepared by `broker` first, for the servers `serverIds`. */
export const credentialTransport = (
  transport: ToolTransportShape,
  broker: CredentialBrokerShape,
  serverIds: ReadonlyArray<string>
): ToolTransportShape => {
  const authenticated = <A, E>(
    serverId: string,
    digest: string | undefined,
    run: (echo: ReadonlyArray<Redaction>) => Effect.Effect<A, E>
  ): Effect.Effect<A, E | TransportError> =>
    Effect.flatMap(
      Effect.service(CurrentCredentialStep),
      (step) => withEchoedCredential(broker, serverId, step?.principal, digest, run, step)
    )
  const listOne = (serverId: string) => authenticated(serverId, undefined, () => transport.listTools(serverId))
  const describe = transport.describeTool
  return {
    ...transport,
    // A tool not yet listed is learnt by connecting, which needs the caller's own credential (per-principal sessions).
    describeTool: describe === undefined ? undefined : (serverId, name) => {
      const described = describe(serverId, name)
      return Effect.isEffect(described) ? authenticated(serverId, undefined, () => described) : described
    },
    callTool: (call, options) =>
      authenticated(call.serverId, call.digest, (echo) =>
        Effect.map(
          transport.callTool(call, redactProgress(options, echo)),
          (result) => redactToolResult(result, echo)
        )),
    listTools: (serverId) =>
      serverId !== undefined
        ? listOne(serverId)
        : Effect.map(
          Effect.forEach(serverIds, listOne, { concurrency: "unbounded" }),
          (lists): ReadonlyArray<Tool> => lists.flat()
        ),
    readResource: (serverId, uri) =>
      authenticated(
        serverId,
        digestOf({ serverId, uri }),
        (echo) => Effect.map(transport.readResource(serverId, uri), (read) => redactResourceContents(read, echo))
      ),
    getPrompt: (serverId, name, args) =>
      authenticated(
        serverId,
        digestOf({ serverId, name, args }),
        (echo) => Effect.map(transport.getPrompt(serverId, name, args), (prompt) => redactPrompt(prompt, echo))
      )
  }
}

/** Wraps the ToolTransport it is given with {@link credentialTransport}, over the CredentialBroker. */
export const credentialLayer = (
  serverIds: ReadonlyArray<string>
): Layer.Layer<ToolTransport, never, ToolTransport | CredentialBroker> =>
  Layer.effect(
    ToolTransport,
    Effect.map(
      Effect.all([Effect.service(ToolTransport), Effect.service(CredentialBroker)]),
      ([transport, broker]) => credentialTransport(transport, broker, serverIds)
    )
  )
