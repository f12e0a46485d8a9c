/**
 * Claude's agent-level events are rows of core's registry: their names, what an event's hooks
 * may decide (a block keeps the agent going on Stop and SubagentStop) and the status each outcome
 * records are read from them.
 */
import { assert, describe, it } from "@effect/vitest"
import { acceptsVerdict, ClaudeDecision, statusByTag, statusesOf } from "@interlock/core"
import { Schema } from "effect"
import { type AgentOutcome, CLAUDE_AGENT_EVENT_ROWS, CLAUDE_AGENT_EVENTS, decodeAgentOutput } from "../src/index.ts"

const answers = [["block", { reason: "r" }], ["halt", { stopReason: "s" }], "ok", ["ok", {
  additionalContext: "c"
}]] as const

describe("agent-level event rows", () => {
  it("the event names are the rows', in Claude's spelling", () => {
    assert.deepStrictEqual(CLAUDE_AGENT_EVENTS, [
      "UserPromptSubmit",
      "Stop",
      "SubagentStart",
      "SubagentStop",
      "PreCompact",
      "Notification"
    ])
  })

  it("every outcome a hook's answer decodes to is a verdict of its event's row, Schema included", () => {
    for (const event of CLAUDE_AGENT_EVENTS) {
      const verdicts: Record<string, { readonly schema: Schema.Decoder<unknown> }> =
        CLAUDE_AGENT_EVENT_ROWS[event].verdicts
      let verdictsSeen = 0
      for (const answer of answers) {
        const outcome = decodeAgentOutput(event, answer)
        // A failure (here: context on an event that takes none) is no verdict; callers fail closed.
        if (outcome._tag === "Failed") continue
        verdictsSeen++
        assert.isTrue(Object.hasOwn(verdicts, outcome._tag), `${event}: ${outcome._tag}`)
        // The decoder leaves unset keys undefined; the Schema reads them as absent.
        const present = Object.fromEntries(Object.entries(outcome).filter(([, v]) => v !== undefined))
        assert.isTrue(acceptsVerdict(verdicts[outcome._tag].schema)(present), `${event}: ${JSON.stringify(present)}`)
      }
      assert.isAtLeast(verdictsSeen, 3, event)
    }
  })

  it("a block keeps the agent going exactly on the rows that answer KeepGoing", () => {
    for (const event of CLAUDE_AGENT_EVENTS) {
      const keepsGoing = Object.hasOwn(CLAUDE_AGENT_EVENT_ROWS[event].verdicts, "KeepGoing")
      assert.strictEqual(decodeAgentOutput(event, answers[0])._tag, keepsGoing ? "KeepGoing" : "Block", event)
    }
    assert.deepStrictEqual(
      CLAUDE_AGENT_EVENTS.filter((e) => Object.hasOwn(CLAUDE_AGENT_EVENT_ROWS[e].verdicts, "KeepGoing")),
      ["Stop", "SubagentStop"]
    )
  })

  it("every status the rows record is a Claude decision the audit record can hold", () => {
    for (const status of statusesOf(CLAUDE_AGENT_EVENT_ROWS)) assert.isTrue(Schema.is(ClaudeDecision)(status), status)
    assert.deepStrictEqual(statusByTag(CLAUDE_AGENT_EVENT_ROWS), {
      Continue: "continue",
      Block: "block",
      Halt: "halt",
      KeepGoing: "keep_going"
    })
  })

  it("AgentOutcome is the rows' verdicts and Failed", () => {
    const outcomes: Array<AgentOutcome> = [
      { _tag: "KeepGoing", reason: "r" },
      { _tag: "Continue" },
      { _tag: "Failed", hookId: "h", kind: "bad_return" },
      // @ts-expect-error no row answers Allow
      { _tag: "Allow" }
    ]
    assert.strictEqual(outcomes.length, 4)
  })
})
