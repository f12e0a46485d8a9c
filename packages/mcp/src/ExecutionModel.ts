/**
 * The SEP's execution model as pure functions: the run order of one event's interceptors in one
 * phase, what each one's answer does to the chain, and the chain folded over them. Interlock runs
 * each interceptor as a hook in this order (InterceptorHooks.ts); `runModel` is the same fold, whole.
 */
import type { Schema } from "effect"
import type { Answer } from "./InterceptorClient.ts"
import type { InterceptorFailureKind } from "./InterceptorErrors.ts"
import type { InterceptorDescriptor, Phase, Severity, ValidationResult } from "./InterceptorWire.ts"

/** One interceptor of a chain, with what the operator allows of it. */
export interface Member {
  readonly descriptor: InterceptorDescriptor
  /** Its declared failOpen, when the operator honours it (`failOpen: "as-declared"`); else false. */
  readonly failOpen: boolean
}

/** How one invocation ended, as the chain sees it. */
export type Outcome = Answer | { readonly _tag: "Failed"; readonly kind: InterceptorFailureKind }

/** What one interceptor's outcome does to the chain. */
export type Step =
  | { readonly _tag: "Pass" }
  | { readonly _tag: "Mutate"; readonly payload: Schema.Json }
  | { readonly _tag: "Block"; readonly reason: string }
  | { readonly _tag: "Fail"; readonly kind: InterceptorFailureKind }

const PASS: Step = { _tag: "Pass" }

/** SEP §Priority Resolution: a number for both phases, or per phase; 0 when absent. */
export const resolvePriority = (descriptor: InterceptorDescriptor, phase: Phase): number => {
  const hint = descriptor.priorityHint
  if (hint === undefined) return 0
  return typeof hint === "number" ? hint : (hint[phase] ?? 0)
}

const byName = (a: Member, b: Member): number =>
  a.descriptor.name < b.descriptor.name ? -1 : a.descriptor.name > b.descriptor.name ? 1 : 0

/**
 * SEP §Execution Model ("Trust Boundary Execution Pattern"): data sent on (the request, toward the
 * server) is mutated, then validated; data received (the response) is validated, then mutated.
 * Mutators run by priorityHint, low first, ties by name; validators (parallel in the SEP) by name.
 */
export const runOrder = <M extends Member>(members: ReadonlyArray<M>, phase: Phase): ReadonlyArray<M> => {
  const mutators = members.filter((m) => m.descriptor.type === "mutation").sort((a, b) =>
    resolvePriority(a.descriptor, phase) - resolvePriority(b.descriptor, phase) || byName(a, b)
  )
  const validators = members.filter((m) => m.descriptor.type === "validation").sort(byName)
  return phase === "request" ? [...mutators, ...validators] : [...validators, ...mutators]
}

const RANK: Record<Severity, number> = { info: 0, warn: 1, error: 2 }

/**
 * A failed validation's severity: its own, else its messages' highest, else `error`. Interlock
 * reads a `valid: false` that says no severity as blocking (the SEP leaves it unsaid).
 */
export const effectiveSeverity = (result: ValidationResult): Severity => {
  if (result.severity !== undefined) return result.severity
  let highest: Severity | undefined
  for (const message of result.messages ?? []) {
    if (highest === undefined || RANK[message.severity] > RANK[highest]) highest = message.severity
  }
  return highest ?? "error"
}

/** SEP §Execution Model: only a failed validation of severity `error` blocks. */
export const blocks = (result: ValidationResult): boolean => !result.valid && effectiveSeverity(result) === "error"

const MAX_PATHS = 8
const MAX_PATH_LENGTH = 120

// A path is the interceptor's text: control characters go, and it is cut short.
const cleanPath = (path: string): string => {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is its purpose
  const clean = path.replace(/[\u0000-\u001f\u007f]/g, "")
  return clean.length > MAX_PATH_LENGTH ? `${clean.slice(0, MAX_PATH_LENGTH)}...` : clean
}

/** A block's reason: the interceptor and its messages' paths, never the messages or the payload. */
export const blockReason = (name: string, phase: Phase, result: ValidationResult): string => {
  const paths = [...new Set((result.messages ?? []).flatMap((m) => (m.path === undefined ? [] : [cleanPath(m.path)])))]
  const shown = paths.slice(0, MAX_PATHS)
  const more = paths.length > MAX_PATHS ? `, and ${paths.length - MAX_PATHS} more` : ""
  const where = shown.length === 0 ? "" : ` (at ${shown.join(", ")}${more})`
  return `interceptor ${JSON.stringify(name)} found the ${phase} invalid${where}`
}

/**
 * What one interceptor's outcome does (SEP §Execution Model): audit mode never blocks or changes
 * anything; a failure blocks unless failOpen is honoured; a mutation replaces the whole payload.
 */
export const decide = (member: Member, phase: Phase, outcome: Outcome): Step => {
  if (member.descriptor.audit) return PASS
  switch (outcome._tag) {
    case "Failed":
      return member.failOpen ? PASS : { _tag: "Fail", kind: outcome.kind }
    case "Validation":
      return blocks(outcome.result)
        ? { _tag: "Block", reason: blockReason(member.descriptor.name, phase, outcome.result) }
        : PASS
    case "Mutation":
      return outcome.result.modified && outcome.result.payload !== undefined
        ? { _tag: "Mutate", payload: outcome.result.payload }
        : PASS
  }
}

/** A short word for an outcome, as spans and logs record it (never its payload). */
export const verdictOf = (outcome: Outcome): string => {
  switch (outcome._tag) {
    case "Failed":
      return `failed:${outcome.kind}`
    case "Validation":
      return outcome.result.valid ? "valid" : `invalid:${effectiveSeverity(outcome.result)}`
    case "Mutation":
      return outcome.result.modified ? "modified" : "unmodified"
  }
}

/** How a whole chain ended. */
export interface ModelResult {
  readonly decision: "allow" | "deny"
  /** The payload after the applied mutations (the last one seen, when denied). */
  readonly payload: Schema.Json
  /** The interceptors invoked, in order. */
  readonly invoked: ReadonlyArray<string>
  /** The step that denied, when one did. */
  readonly stop?: Extract<Step, { readonly _tag: "Block" | "Fail" }> & { readonly interceptor: string }
}

/**
 * One event's chain in one phase, whole: each interceptor, in run order, is given the payload so
 * far (`outcomeOf` stands for its invocation); the first block or failure ends the chain.
 */
export const runModel = (
  members: ReadonlyArray<Member>,
  phase: Phase,
  payload: Schema.Json,
  outcomeOf: (name: string, payload: Schema.Json) => Outcome
): ModelResult => {
  const invoked: Array<string> = []
  let current = payload
  for (const member of runOrder(members, phase)) {
    const name = member.descriptor.name
    invoked.push(name)
    const step = decide(member, phase, outcomeOf(name, current))
    if (step._tag === "Block" || step._tag === "Fail") {
      return { decision: "deny", payload: current, invoked, stop: { ...step, interceptor: name } }
    }
    if (step._tag === "Mutate") current = step.payload
  }
  return { decision: "allow", payload: current, invoked }
}
