/**
 * The model-level events are rows of core's registry: the accepted tags, the observe rule, the
 * recorded statuses and the hooks' arity are read from them, and the decoder accepts exactly what
 * a row's verdict Schemas (and its check of the offered tools) accept.
 */
import { assert, describe, it } from "@effect/vitest"
import { rowAccepts, statusesOf } from "@interlock/core"
import { Effect, Schema } from "effect"
import { AGENT_EVENT_ROWS, type AgentEvent, EVENT_VERDICTS, isObserveEvent } from "../src/AgentEvent.ts"
import { BAD, compileAgentHooks, decodeAgentVerdict } from "../src/AgentHooks.ts"
import { AGENT_EVENTS, AgentHookRun } from "../src/index.ts"

const offered = [{ name: "add", serverId: "local", toolName: "add", parameters: { type: "object" } }]
const TAGS = [...new Set(AGENT_EVENTS.flatMap((event) => Object.keys(AGENT_EVENT_ROWS[event].verdicts)))]

describe("model-level event rows", () => {
  it("the accepted tags and the observe rule are the rows'", () => {
    for (const event of AGENT_EVENTS) {
      assert.sameMembers([...EVENT_VERDICTS[event]], Object.keys(AGENT_EVENT_ROWS[event].verdicts), event)
      assert.strictEqual(isObserveEvent(event), AGENT_EVENT_ROWS[event].failure === "observe", event)
    }
    assert.deepStrictEqual(AGENT_EVENTS.filter(isObserveEvent), ["afterModel", "notification"])
  })

  it("AgentHookRun's status is the rows' statuses and failed", () => {
    const statuses = [...statusesOf(AGENT_EVENT_ROWS), "failed"]
    assert.sameMembers(statuses, ["continue", "rewrite", "deny", "block", "add_context", "hold", "failed"])
    const run = (status: string) => ({ id: "h", event: "stop", status, ignored: false, durationMs: 1 })
    for (const status of statuses) assert.isTrue(Schema.is(AgentHookRun)(run(status)), status)
    assert.isFalse(Schema.is(AgentHookRun)(run("halt")))
  })

  it("a hook may take as many arguments as its row names, not one more", () => {
    for (const event of AGENT_EVENTS) {
      const arity = AGENT_EVENT_ROWS[event].args.length
      const run = (n: number) => Object.defineProperty(() => ({ _tag: "Continue" }), "length", { value: n })
      assert.notInstanceOf(compileAgentHooks({ [event]: [run(arity)] }), Error, event)
      assert.instanceOf(compileAgentHooks({ [event]: [run(arity + 1)] }), Error, event)
    }
  })

  const maybe = <S extends Schema.Top>(schema: S) => Schema.optional(Schema.Union([schema, schema, Schema.Unknown]))
  const Tag = Schema.Literals([...TAGS, "Allow"])
  const Candidate = Schema.Union([
    Schema.Struct({ _tag: Tag }),
    Schema.Struct({ _tag: Schema.Literals(["Deny", "Block", "AddContext"]), reason: maybe(Schema.String) }),
    Schema.Struct({ _tag: Schema.Literals(["AddContext", "Block", "Rewrite"]), text: maybe(Schema.String) }),
    Schema.Struct({
      _tag: Schema.Literal("Rewrite"),
      tools: maybe(
        Schema.Array(
          Schema.Union([Schema.Literals(["add", "rm"]), Schema.Struct({ name: Schema.Literals(["add", "rm"]) })])
        )
      ),
      messages: maybe(
        Schema.Array(
          Schema.Struct({ role: Schema.Literal("user"), content: Schema.String, extra: Schema.optional(Schema.Finite) })
        )
      )
    }),
    Schema.Unknown
  ])

  const agrees = (value: unknown, final: boolean) => (event: AgentEvent) =>
    assert.strictEqual(
      decodeAgentVerdict(event, value, offered, final) !== BAD,
      rowAccepts(AGENT_EVENT_ROWS[event], value, { offered, final }),
      `${event}: ${JSON.stringify(value)} (final: ${final})`
    )

  it.effect.prop(
    "a row's Schema and check accept exactly what the decoder accepts (every tag outside the row is a bad_return)",
    [Candidate, Schema.Boolean],
    ([value, final]) => Effect.sync(() => AGENT_EVENTS.forEach(agrees(value, final))),
    { arbitrary: { runs: 1000 } }
  )
})
