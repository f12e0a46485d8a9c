/**
 * Server-initiated requests: sampling, elicitation and roots. The host answers them by providing
 * these services; the hub declares a capability only for the services it finds, so a server never
 * sends a request nobody can answer. Every handler learns which server asked.
 */
import type {
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  Root
} from "@modelcontextprotocol/client"
import { Context, Effect, Layer } from "effect"

/** What `Sampling` provides: answers a server's `sampling/createMessage`. */
export interface SamplingShape {
  readonly createMessage: (
    serverId: string,
    params: CreateMessageRequestParams
  ) => Effect.Effect<CreateMessageResult, unknown>
}

/** Answers sampling requests (a server asking the host's model for a completion). */
export class Sampling extends Context.Service<Sampling, SamplingShape>()("@interlock/mcp/Sampling") {
  /** A Sampling service from a function. */
  static layer(createMessage: SamplingShape["createMessage"]): Layer.Layer<Sampling> {
    return Layer.succeed(Sampling, Sampling.of({ createMessage }))
  }
}

/** What `Elicitation` provides: answers a server's `elicitation/create`. */
export interface ElicitationShape {
  readonly elicit: (serverId: string, params: ElicitRequestParams) => Effect.Effect<ElicitResult, unknown>
  /** Whether the SDK fills an accepted form's omitted fields with the schema's defaults (SEP-1034). */
  readonly applyDefaults: boolean
}

/** Answers elicitation requests (a server asking the user for input). */
export class Elicitation extends Context.Service<Elicitation, ElicitationShape>()("@interlock/mcp/Elicitation") {
  /** An Elicitation service from a function. */
  static layer(
    elicit: ElicitationShape["elicit"],
    options?: { readonly applyDefaults?: boolean }
  ): Layer.Layer<Elicitation> {
    return Layer.succeed(Elicitation, Elicitation.of({ elicit, applyDefaults: options?.applyDefaults ?? false }))
  }

  /** Accepts every form with empty content, so the schema's defaults apply; declines URL elicitations. */
  static readonly acceptDefaults: Layer.Layer<Elicitation> = Elicitation.layer(
    (_serverId, params) =>
      Effect.succeed(params.mode === "url" ? { action: "decline" } : { action: "accept", content: {} }),
    { applyDefaults: true }
  )

  /** Declines every elicitation. */
  static readonly declineAll: Layer.Layer<Elicitation> = Elicitation.layer(() => Effect.succeed({ action: "decline" }))
}

/** What `Roots` provides: answers a server's `roots/list`. */
export interface RootsShape {
  readonly list: (serverId: string) => Effect.Effect<ReadonlyArray<Root>, unknown>
}

/** Answers roots requests (which directories or URIs the server may work in). */
export class Roots extends Context.Service<Roots, RootsShape>()("@interlock/mcp/Roots") {
  /** A fixed list of roots for every server. */
  static fixed(roots: ReadonlyArray<Root>): Layer.Layer<Roots> {
    return Layer.succeed(Roots, Roots.of({ list: () => Effect.succeed(roots) }))
  }

  /** A Roots service from a function. */
  static layer(list: RootsShape["list"]): Layer.Layer<Roots> {
    return Layer.succeed(Roots, Roots.of({ list }))
  }
}
