/**
 * The event registry's shape: one row per event says what its hooks are given, what they may answer (one Schema
 * per verdict tag) and the receipt status of each answer, their run order and how a failure is treated. Core's
 * tool events, the agent's model-level events and claude's agent-level events are tables of these rows; the rest
 * (arity, accepted tags, statuses, the READMEs' tables) is derived from them.
 */
import { Exit, Schema } from "effect"

/** In which order an event's hooks run: as declared (outer matchers first) or reversed. */
export type RunOrder = "outside-in" | "inside-out"

/**
 * How a hook failure is treated: `closed` ends the chain; `onError` ends it unless the hook says
 * `onError: "ignore"`; `observe` is always ignored (and recorded).
 */
export type FailureRule = "closed" | "onError" | "observe"

/**
 * One verdict an event accepts: its Schema (exact at the top level, see {@link acceptsVerdict}), the
 * status a run that answered it records, and optionally a check against the hook's input that no
 * static Schema can express (a Rewrite may echo the call's name but not change it).
 */
export interface VerdictRow {
  /** Decodable without services: a hook's answer is checked where it arrives. */
  readonly schema: Schema.Decoder<unknown>
  readonly status: string
  readonly check?: ((verdict: never, input: never) => boolean) | undefined
}

/** One event: the names of the arguments its hooks get, its verdicts by tag, its run order and failure rule. */
export interface EventRow {
  readonly args: ReadonlyArray<string>
  readonly verdicts: { readonly [tag: string]: VerdictRow }
  readonly order: RunOrder
  readonly failure: FailureRule
}

/** A table of events by name, in declaration order. */
export type EventRows = { readonly [event: string]: EventRow }

/** Declares a table of events, keeping its literal types (event names, tags, statuses). */
export const defineEvents = <const R extends EventRows>(rows: R): R => rows

/** A verdict's Schema: `_tag` and the payload's fields. */
export const verdictSchema = <const T extends string, const F extends Schema.Struct.Fields>(tag: T, fields: F) =>
  Schema.Struct({ _tag: Schema.Literal(tag), ...fields })

/** The verdict tags of a table's rows. */
export type VerdictTagOf<R extends EventRows> = { [E in keyof R]: keyof R[E]["verdicts"] & string }[keyof R]

/** The statuses a table's verdicts record. */
export type StatusOf<R extends EventRows> = {
  [E in keyof R]: { [T in keyof R[E]["verdicts"]]: R[E]["verdicts"][T]["status"] }[keyof R[E]["verdicts"]]
}[keyof R]

/** What a table's verdict Schemas decode to: the union over its rows. */
export type VerdictTypeOf<R extends EventRows> = {
  [E in keyof R]: { [T in keyof R[E]["verdicts"]]: R[E]["verdicts"][T]["schema"]["Type"] }[keyof R[E]["verdicts"]]
}[keyof R]

/** A table's event names, in declaration order. */
export const eventNames = <R extends EventRows>(rows: R): ReadonlyArray<keyof R & string> => Object.keys(rows)

/** Each event's verdict tags as a set, for a decoder's hot path (computed once, at module load). */
export const verdictTags = <R extends EventRows>(
  rows: R
): { readonly [E in keyof R & string]: ReadonlySet<string> } => {
  const out = {} as Record<keyof R & string, ReadonlySet<string>>
  for (const event of eventNames(rows)) out[event] = new Set(Object.keys(rows[event].verdicts))
  return out
}

/** Every status a table records, in first-seen order. */
export const statusesOf = <R extends EventRows>(rows: R): ReadonlyArray<StatusOf<R>> => {
  const seen = new Set<string>()
  for (const row of Object.values(rows)) for (const verdict of Object.values(row.verdicts)) seen.add(verdict.status)
  return [...seen] as Array<StatusOf<R>>
}

/** The status each verdict tag records. A tag records one status in every row of a table (tested). */
export const statusByTag = <R extends EventRows>(rows: R): { readonly [T in VerdictTagOf<R>]: StatusOf<R> } => {
  const out: Record<string, string> = {}
  for (const row of Object.values(rows)) {
    for (const [tag, verdict] of Object.entries(row.verdicts)) out[tag] ??= verdict.status
  }
  return out as { readonly [T in VerdictTagOf<R>]: StatusOf<R> }
}

const properties = (schema: Schema.Top) => (schema.ast._tag === "Objects" ? schema.ast.propertySignatures : [])

/** The keys a verdict Schema allows, `_tag` included (a decoder's hand-written checks use these). */
export const verdictKeys = (schema: Schema.Top): ReadonlyArray<string> => properties(schema).map((p) => String(p.name))

/**
 * Whether a value is this verdict: an object with no key beyond the Schema's (nested payloads
 * decode as their own Schemas do, extra keys dropped) that the Schema decodes.
 */
export const acceptsVerdict = (schema: Schema.Decoder<unknown>): (value: unknown) => boolean => {
  const keys = verdictKeys(schema)
  const decode = Schema.decodeUnknownExit(schema)
  return (value) =>
    typeof value === "object" && value !== null && Object.keys(value).every((key) => keys.includes(key)) &&
    Exit.isSuccess(decode(value))
}

/**
 * Whether an event's row accepts a value from a hook given `input`: its tag is the row's, its
 * verdict Schema accepts it and so does the verdict's check. The reference a fast decoder is held to.
 */
export const rowAccepts = (row: EventRow, value: unknown, input: unknown): boolean => {
  const tag = typeof value === "object" && value !== null ? (value as { readonly _tag?: unknown })._tag : undefined
  if (typeof tag !== "string" || !Object.hasOwn(row.verdicts, tag)) return false
  const verdict = row.verdicts[tag]
  // A check is typed by its row; here it is given what that row's hooks were given.
  const check = verdict.check as ((verdict: unknown, input: unknown) => boolean) | undefined
  return acceptsVerdict(verdict.schema)(value) && (check === undefined || check(value, input))
}

/** A verdict as the tables show it: its tag and its payload's keys (`?` when optional). */
export const verdictSignature = (tag: string, schema: Schema.Top): string => {
  const keys = properties(schema)
    .filter((p) => p.name !== "_tag")
    .map((p) => `${String(p.name)}${p.type.context?.isOptional === true ? "?" : ""}`)
  return keys.length === 0 ? tag : `${tag}(${keys.join(", ")})`
}

const FAILURE_TEXT: Record<FailureRule, string> = {
  closed: "fails closed",
  onError: "fails closed; `onError: \"ignore\"` skips it",
  observe: "ignored, recorded"
}

/** Renders a table of events as Markdown (the READMEs' event tables are this function's output). */
export const renderEventTable = (rows: EventRows): string => {
  const lines = [
    "| event | hooks get | verdicts → receipt status | order | a failing hook |",
    "|---|---|---|---|---|"
  ]
  for (const [event, row] of Object.entries(rows)) {
    const verdicts = Object.entries(row.verdicts).map(([tag, v]) =>
      `${verdictSignature(tag, v.schema)} → \`${v.status}\``
    )
    lines.push(
      `| \`${event}\` | ${row.args.join(", ")} | ${verdicts.join(", ")} | ${row.order} | ${FAILURE_TEXT[row.failure]} |`
    )
  }
  return lines.join("\n")
}
