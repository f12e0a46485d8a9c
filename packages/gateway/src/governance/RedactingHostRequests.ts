/**
 * A server's own requests to a host (sampling, elicitation), with the config's redactions applied
 * before the host sees them: the sampling messages (content blocks by their schema) and system
 * prompt, the elicitation message and schema texts. A server-initiated request is not about one
 * tool, so every redaction applies.
 */
import { Elicitation, type HostRequest, Sampling } from "@interlock/mcp"
import { Effect, Layer } from "effect"
import { redactPrompt } from "./ContentRedaction.ts"
import { type Redaction, redactJson } from "./Redactor.ts"

/**
 * A server's request of the host with the redactions applied: a sampling request's prompt by the
 * content schema, any other request's JSON (an elicitation's message and schema texts).
 */
export const redactHostRequest = (request: HostRequest, redactions: ReadonlyArray<Redaction>): HostRequest => {
  if (redactions.length === 0 || request.params === undefined) return request
  const messages = request.params.messages
  // A sampling prompt is redacted by the content schema (its base64 data exempt by position); anything else as JSON.
  const params = request.method === "sampling/createMessage" && Array.isArray(messages)
    ? redactPrompt({ ...request.params, messages }, redactions)
    : redactJson(request.params, redactions)
  return { method: request.method, params: params as Readonly<Record<string, unknown>> }
}

/**
 * Replaces Sampling and Elicitation in context with wrappers that redact what the server asks (with the redactions in
 * force then).
 */
export const redactingHostRequestsLayer = (
  redactions: () => ReadonlyArray<Redaction>
): Layer.Layer<Sampling | Elicitation, never, Sampling | Elicitation> =>
  Layer.unwrap(Effect.gen(function*() {
    const sampling = yield* Sampling
    const elicitation = yield* Elicitation
    return Layer.merge(
      Sampling.layer((serverId, params) => sampling.createMessage(serverId, redactPrompt(params, redactions()))),
      Elicitation.layer((serverId, params) => elicitation.elicit(serverId, redactJson(params, redactions())), {
        applyDefaults: elicitation.applyDefaults
      })
    )
  }))
