import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { InterceptorDescriptor, type Member, type Outcome, runModel } from "../src/index.ts"

const MARK = "\u2603PAYLOAD"
const Severity = Schema.Literals(["info", "warn", "error"])
const Priority = Schema.Int.check(Schema.isBetween({ minimum: -3, maximum: 3 }))

/** One interceptor of a random chain: its declaration, what the operator allows, and how its invocation ends. */
const MemberSpec = Schema.Struct({
  name: Schema.Literals(["a", "b", "c", "d", "e", "f", "g", "h"]),
  type: Schema.Literals(["validation", "mutation"]),
  audit: Schema.Boolean,
  declaredFailOpen: Schema.Boolean,
  honoured: Schema.Boolean,
  priority: Schema.optional(Schema.Union([Priority, Schema.Struct({ request: Schema.optional(Priority) })])),
  fails: Schema.optional(Schema.Literals(["transport", "timeout", "error", "junk"])),
  valid: Schema.Boolean,
  severity: Schema.optional(Severity),
  messages: Schema.Array(Schema.Struct({ path: Schema.optional(Schema.String), severity: Severity })),
  modified: Schema.Boolean
})
type MemberSpec = typeof MemberSpec.Type

const RANK = { info: 0, warn: 1, error: 2 } as const

// The oracle, written from the SEP's text rather than from the implementation's helpers.
const priorityOf = (spec: MemberSpec, phase: "request" | "response") =>
  spec.priority === undefined ? 0 : typeof spec.priority === "number" ? spec.priority : phase === "request"
    ? (spec.priority.request ?? 0)
    : 0
const expectedOrder = (specs: ReadonlyArray<MemberSpec>, phase: "request" | "response") => {
  const byName = (a: MemberSpec, b: MemberSpec) => a.name.localeCompare(b.name)
  const mutators = specs.filter((s) => s.type === "mutation").sort((a, b) =>
    priorityOf(a, phase) - priorityOf(b, phase) || byName(a, b)
  )
  const validators = specs.filter((s) => s.type === "validation").sort(byName)
  return phase === "request" ? [...mutators, ...validators] : [...validators, ...mutators]
}
const blocking = (spec: MemberSpec): boolean => {
  if (spec.audit) return false
  if (spec.fails !== undefined) return !(spec.declaredFailOpen && spec.honoured)
  if (spec.type === "mutation" || spec.valid) return false
  const severity = spec.severity ??
    spec.messages.reduce<MemberSpec["severity"]>(
      (top, m) => (top === undefined || RANK[m.severity] > RANK[top] ? m.severity : top),
      undefined
    ) ??
    "error"
  return severity === "error"
}
const applies = (spec: MemberSpec) =>
  !spec.audit && spec.type === "mutation" && spec.fails === undefined && spec.modified

const memberOf = (spec: MemberSpec): Member => ({
  descriptor: new InterceptorDescriptor({
    name: spec.name,
    type: spec.type,
    hook: { events: ["tools/call"], phase: "both" },
    ...(spec.audit ? { mode: "audit" as const } : {}),
    failOpen: spec.declaredFailOpen,
    ...(spec.priority === undefined ? {} : { priorityHint: spec.priority })
  }),
  failOpen: spec.declaredFailOpen && spec.honoured
})

const outcomeOf = (spec: MemberSpec): Outcome =>
  spec.fails !== undefined
    ? { _tag: "Failed", kind: spec.fails }
    : spec.type === "validation"
    ? {
      _tag: "Validation",
      result: {
        valid: spec.valid,
        ...(spec.severity === undefined ? {} : { severity: spec.severity }),
        messages: spec.messages.map((m) => ({ ...m, message: `${MARK} quoted` }))
      }
    }
    : { _tag: "Mutation", result: { modified: spec.modified, payload: { by: spec.name } } }

const unique = (specs: ReadonlyArray<MemberSpec>) =>
  specs.filter((s, i) => specs.findIndex((t) => t.name === s.name) === i)

describe("the execution model", () => {
  it.effect.prop(
    "decision, invocations, final payload and reason follow SEP-1763's execution model",
    [Schema.Array(MemberSpec), Schema.Literals(["request", "response"])],
    ([raw, phase]) =>
      Effect.sync(() => {
        const specs = unique(raw).map((s) => ({
          ...s,
          messages: s.messages.map((m) => (m.path?.includes(MARK) ? { severity: m.severity } : m))
        }))
        const original = { original: MARK }
        const byName = new Map<string, MemberSpec>(specs.map((s) => [s.name, s]))
        const result = runModel(specs.map(memberOf), phase, original, (name) => outcomeOf(byName.get(name)!))
        const ordered = expectedOrder(specs, phase)
        const firstBlock = ordered.findIndex(blocking)
        const ran = firstBlock === -1 ? ordered : ordered.slice(0, firstBlock + 1)
        // Every interceptor up to the first that blocks runs, in order; none after it.
        assert.deepStrictEqual(result.invoked, ran.map((s) => s.name))
        // Deny is absorbing: the chain is denied exactly when some interceptor blocks, whatever the order.
        assert.strictEqual(result.decision, specs.some(blocking) ? "deny" : "allow")
        // Each applied mutation replaces the payload: the last one that ran is what is left.
        const last = [...ran].reverse().find(applies)
        assert.deepStrictEqual(result.payload, last === undefined ? original : { by: last.name })
        if (result.stop !== undefined) {
          assert.strictEqual(result.stop.interceptor, ordered[firstBlock].name)
          if (result.stop._tag === "Block") {
            assert.include(result.stop.reason, `interceptor ${JSON.stringify(ordered[firstBlock].name)}`)
            assert.notInclude(result.stop.reason, MARK)
          }
        }
        // On the response, validators guard the mutators: a blocking validator means no mutator ran.
        if (phase === "response" && firstBlock >= 0 && ordered[firstBlock].type === "validation") {
          assert.isFalse(result.invoked.some((name) => byName.get(name)!.type === "mutation"))
        }
      })
  )

  it.effect(
    "the conformance suite's ordering fixtures: mutate then validate on the request, the reverse on " +
      "the response",
    () =>
      Effect.sync(() => {
        const members: Array<Member> = [
          {
            descriptor: new InterceptorDescriptor({
              name: "conf/require-uppercase-note",
              type: "validation",
              hooks: []
            }),
            failOpen: false
          },
          {
            descriptor: new InterceptorDescriptor({ name: "conf/uppercase-note", type: "mutation", hooks: [] }),
            failOpen: false
          }
        ]
        const behave = (name: string, payload: Schema.Json): Outcome => {
          const note = String((payload as { arguments: { note: string } }).arguments.note)
          return name === "conf/uppercase-note"
            ? {
              _tag: "Mutation",
              result: { modified: true, payload: { name: "echo", arguments: { note: note.toUpperCase() } } }
            }
            : {
              _tag: "Validation",
              result: note === note.toUpperCase() ? { valid: true } : { valid: false, severity: "error" }
            }
        }
        const payload = { name: "echo", arguments: { note: "hello" } }
        const request = runModel(members, "request", payload, behave)
        assert.deepStrictEqual([request.decision, request.payload], ["allow", {
          name: "echo",
          arguments: { note: "HELLO" }
        }])
        assert.strictEqual(runModel(members, "response", payload, behave).decision, "deny")
      })
  )
})
