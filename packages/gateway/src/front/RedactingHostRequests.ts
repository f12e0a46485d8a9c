/**
 * A server's own requests to a host (sampling, elicitation), with the config's redactions applied
 * before the host sees them: the sampling messages (content blocks by their schema) and system
 * prompt, the elicitation message and schema texts. A server-initiated request is not about one
 * tool, so every redaction applies.
 */
import { Elicitation, Sampling } from "@interlock/mcp"
import { Effect, Layer } from "effect"
import { redactPrompt } from "../governance/ContentRedaction.ts"
import { type Redaction, redactJson } from "../governance/Redactor.ts"

/** Replaces Sampling and Elicitation in context with wrappers that redact what the server asks (with the redactions in force then). */
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
