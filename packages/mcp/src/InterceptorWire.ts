/**
 * The interceptor extension's wire data, as Schemas: what `interceptors/list` answers and what
 * `interceptor/invoke` takes and answers (SEP-1763 "Interceptor", "ValidationResult",
 * "MutationResult", "JSON-RPC Methods"). A result outside these Schemas is junk, a typed failure.
 */
import { Schema } from "effect"

/** The draft implemented: docs/sep.md of modelcontextprotocol/experimental-ext-interceptors at this commit. */
export const INTERCEPTORS_DRAFT =
  "SEP-1763 draft, experimental-ext-interceptors@7abe2910718943277e8ca7022d19bab172e788bd"

/** The extension's identifier in an `extensions` capability (the working group's SDKs use it). */
export const INTERCEPTORS_EXTENSION = "io.modelcontextprotocol/interceptors"

/** A phase of one lifecycle event. */
export const Phase = Schema.Literals(["request", "response"])

/** A phase of one lifecycle event. */
export type Phase = typeof Phase.Type

/** A validation's severity (SEP §Validator): only `error` blocks. */
export const Severity = Schema.Literals(["info", "warn", "error"])

/** A validation's severity. */
export type Severity = typeof Severity.Type

// SEP §Interface: priorityHint is a 32-bit signed integer, per phase or for both.
const Int32 = Schema.Int.check(Schema.isBetween({ minimum: -2_147_483_648, maximum: 2_147_483_647 }))

/** Which events and phases trigger an interceptor (SEP §Hooks). */
export const InterceptorHook = Schema.Struct({
  events: Schema.Array(Schema.String),
  phase: Schema.Literals(["request", "response", "both"])
})

/** One event and phase an interceptor is invoked on. */
export interface Hooked {
  readonly event: string
  readonly phase: Phase
}

/**
 * One interceptor as `interceptors/list` describes it (SEP §Interface). The SEP text writes one
 * `hook`; the conformance suite writes `hooks`, a list with one phase each: both are read.
 */
export class InterceptorDescriptor extends Schema.Class<InterceptorDescriptor>("@interlock/mcp/InterceptorDescriptor")({
  name: Schema.NonEmptyString,
  version: Schema.optional(Schema.String),
  description: Schema.optional(Schema.String),
  type: Schema.Literals(["validation", "mutation"]),
  hook: Schema.optional(InterceptorHook),
  hooks: Schema.optional(Schema.Array(InterceptorHook)),
  mode: Schema.optional(Schema.Literals(["enforce", "audit"])),
  failOpen: Schema.optional(Schema.Boolean),
  priorityHint: Schema.optional(
    Schema.Union([Int32, Schema.Struct({ request: Schema.optional(Int32), response: Schema.optional(Int32) })])
  )
}) {
  /** Every (event, phase) it hooks, `both` split in two, in declaration order and without repeats. */
  get hooked(): ReadonlyArray<Hooked> {
    const out: Array<Hooked> = []
    const seen = new Set<string>()
    for (const hook of [...(this.hook === undefined ? [] : [this.hook]), ...(this.hooks ?? [])]) {
      const phases: ReadonlyArray<Phase> = hook.phase === "both" ? ["request", "response"] : [hook.phase]
      for (const event of hook.events) {
        for (const phase of phases) {
          const key = `${event}\u0000${phase}`
          if (!seen.has(key)) out.push({ event, phase })
          seen.add(key)
        }
      }
    }
    return out
  }

  /** SEP §Interface: the default mode is `enforce`. */
  get audit(): boolean {
    return this.mode === "audit"
  }
}

/** The result of `interceptors/list` (SEP §Interceptor Discovery), one page. */
export const ListResult = Schema.Struct({
  interceptors: Schema.Array(InterceptorDescriptor),
  nextCursor: Schema.optional(Schema.String)
})

/** One finding of a validator. */
export const ValidationMessage = Schema.Struct({
  path: Schema.optional(Schema.String),
  message: Schema.String,
  severity: Severity
})

/** One finding of a validator. */
export type ValidationMessage = typeof ValidationMessage.Type

// SEP §Validator / §Mutator: the common fields, which the SEP's own invoke examples leave out.
const common = {
  interceptor: Schema.optional(Schema.String),
  phase: Schema.optional(Phase),
  durationMs: Schema.optional(Schema.Number),
  info: Schema.optional(Schema.Record(Schema.String, Schema.Unknown))
}

/** A validator's answer (SEP §Validator, ValidationResult). */
export const ValidationResult = Schema.Struct({
  ...common,
  type: Schema.optional(Schema.Literal("validation")),
  valid: Schema.Boolean,
  severity: Schema.optional(Severity),
  messages: Schema.optional(Schema.Array(ValidationMessage))
})

/** A validator's answer. */
export type ValidationResult = typeof ValidationResult.Type

/** A mutator's answer (SEP §Mutator, MutationResult): `payload` is required when `modified`. */
export const MutationResult = Schema.Struct({
  ...common,
  type: Schema.optional(Schema.Literal("mutation")),
  modified: Schema.Boolean,
  payload: Schema.optional(Schema.Json)
}).check(Schema.makeFilter((result) => !result.modified || result.payload !== undefined, {
  expected: "a payload when modified"
}))

/** A mutator's answer. */
export type MutationResult = typeof MutationResult.Type

/** The params of `interceptor/invoke` that Interlock sends (SEP §Interceptor Invocation). */
export type InvokeParams = {
  readonly name: string
  readonly event: string
  readonly phase: Phase
  readonly payload: Schema.Json
  /** The invoker's deadline (SEP §Invocation Configuration and Context). */
  readonly timeoutMs?: number
  readonly context?: {
    readonly timestamp: string
    readonly principal?: { readonly type: "user" | "service" | "anonymous"; readonly id?: string }
  }
}
