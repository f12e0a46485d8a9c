/** Agent-level events: typed outcomes from Claude-style hooks (block, keep going, halt, context, failures). */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import {
  type AgentEventInput,
  ClaudeHooks,
  type ClaudeHooksConfig,
  type ClaudeReturn,
  decodeAgentOutput
} from "../src/index.ts"

const outcome = (config: ClaudeHooksConfig, input: AgentEventInput) =>
  Effect.flatMap(ClaudeHooks.compile(config), (hooks) => ClaudeHooks.runAgentEvent(hooks, input))

const prompt: AgentEventInput = { hook_event_name: "UserPromptSubmit", session_id: "s", prompt: "deploy to prod" }
const stop: AgentEventInput = { hook_event_name: "Stop", session_id: "s", stop_hook_active: false }
const hooksOf = (event: string, ...values: Array<ClaudeReturn | unknown>): ClaudeHooksConfig => ({
  [event]: [{ hooks: values.map((value) => () => value as never) }]
})

describe("agent-level events", () => {
  it.effect("UserPromptSubmit: block refuses the prompt with its reason", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(
        yield* outcome(hooksOf("UserPromptSubmit", ["block", { reason: "no prod deploys" }]), prompt),
        {
          _tag: "Block",
          reason: "no prod deploys"
        }
      )
    }))

  it.effect("UserPromptSubmit: context from several hooks is joined in order", () =>
    Effect.gen(function*() {
      const result = yield* outcome(
        hooksOf("UserPromptSubmit", ["ok", { additionalContext: "a" }], "ok", ["ok", { additionalContext: "b" }]),
        prompt
      )
      assert.deepStrictEqual(result, {
        _tag: "Continue",
        additionalContext: "a\nb",
        customInstructions: undefined,
        systemMessage: undefined
      })
    }))

  it.effect("the hook gets the prompt in Claude's field names", () =>
    Effect.gen(function*() {
      const seen: Array<unknown> = []
      yield* outcome({ UserPromptSubmit: [{ hooks: [(input) => (seen.push(input), "ok")] }] }, prompt)
      assert.deepStrictEqual(seen, [prompt])
    }))

  it.effect("Stop: block keeps the agent going with the reason; halt stops the run", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* outcome(hooksOf("Stop", ["block", { reason: "tests still fail" }]), stop), {
        _tag: "KeepGoing",
        reason: "tests still fail"
      })
      assert.deepStrictEqual(
        yield* outcome(
          hooksOf("SubagentStop", ["block", { reason: "more" }]),
          { ...stop, hook_event_name: "SubagentStop" } as AgentEventInput
        ),
        {
          _tag: "KeepGoing",
          reason: "more"
        }
      )
      assert.deepStrictEqual(yield* outcome(hooksOf("Stop", ["halt", { stopReason: "Budget exhausted" }]), stop), {
        _tag: "Halt",
        stopReason: "Budget exhausted"
      })
    }))

  it.effect("halt wins over an earlier block; the first block wins over later ones", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* outcome(hooksOf("Stop", ["block", { reason: "a" }], ["halt", {}]), stop))._tag, "Halt")
      assert.deepStrictEqual(
        yield* outcome(hooksOf("Stop", ["block", { reason: "a" }], ["block", { reason: "b" }]), stop),
        { _tag: "KeepGoing", reason: "a" }
      )
    }))

  it.effect("PreCompact: custom instructions; matcher on the trigger", () =>
    Effect.gen(function*() {
      const config: ClaudeHooksConfig = {
        PreCompact: [
          { matcher: "manual", hooks: [() => ["ok", { customInstructions: "keep the API" }]] },
          { matcher: "auto", hooks: [() => ["ok", { customInstructions: "never" }]] }
        ]
      }
      const result = yield* outcome(config, {
        hook_event_name: "PreCompact",
        trigger: "manual",
        custom_instructions: null
      })
      assert.strictEqual(result._tag === "Continue" ? result.customInstructions : undefined, "keep the API")
    }))

  it.effect("Notification and SubagentStart: matchers on notification_type and agent_type", () =>
    Effect.gen(function*() {
      const note = yield* outcome(
        { Notification: [{ matcher: "idle_prompt", hooks: [() => ["ok", { additionalContext: "idle" }]] }] },
        { hook_event_name: "Notification", message: "waiting", notification_type: "idle_prompt" }
      )
      assert.strictEqual(note._tag === "Continue" ? note.additionalContext : undefined, "idle")
      const other = yield* outcome(
        { SubagentStart: [{ matcher: "code-reviewer", hooks: [() => ["block", {}]] }] },
        { hook_event_name: "SubagentStart", agent_id: "a1", agent_type: "general-purpose" }
      )
      assert.strictEqual(other._tag, "Continue")
    }))

  it.effect("a hook that fails, returns junk or an allow, is Failed (callers fail closed)", () =>
    Effect.gen(function*() {
      const boom = () => {
        throw new Error("x")
      }
      assert.deepStrictEqual(yield* outcome({ UserPromptSubmit: [{ hooks: [boom] }] }, prompt), {
        _tag: "Failed",
        hookId: "UserPromptSubmit[0].0",
        kind: "raise"
      })
      assert.deepStrictEqual(yield* outcome(hooksOf("UserPromptSubmit", 42), prompt), {
        _tag: "Failed",
        hookId: "UserPromptSubmit[0].0",
        kind: "bad_return"
      })
      assert.deepStrictEqual(yield* outcome(hooksOf("Stop", "allow"), stop), {
        _tag: "Failed",
        hookId: "Stop[0].0",
        kind: "bad_return"
      })
    }))

  it.effect("a hook that never answers fails at its deadline (TestClock: 5 s default)", () =>
    Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(outcome({ Stop: [{ hooks: [() => Effect.never] }] }, stop))
      yield* TestClock.adjust(4_999)
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust(1)
      assert.deepStrictEqual(yield* Fiber.join(fiber), { _tag: "Failed", hookId: "Stop[0].0", kind: "timeout" })
    }))

  it.effect("an async hook does not hold the event up and its answer is ignored", () =>
    Effect.gen(function*() {
      const result = yield* outcome({
        UserPromptSubmit: [{ hooks: [{ async: true, run: () => ["block", { reason: "late" }] }] }]
      }, prompt)
      assert.strictEqual(result._tag, "Continue")
      const marker = yield* outcome(hooksOf("UserPromptSubmit", { async: true, asyncTimeout: 100 }), prompt)
      assert.strictEqual(marker._tag, "Continue")
    }))
})

describe("decodeAgentOutput", () => {
  it("decodes shorthands and wire outputs into typed outcomes", () => {
    assert.deepStrictEqual(decodeAgentOutput("UserPromptSubmit", { decision: "block", reason: "no" }), {
      _tag: "Block",
      reason: "no"
    })
    assert.deepStrictEqual(decodeAgentOutput("Stop", ["block", { reason: "go on" }]), {
      _tag: "KeepGoing",
      reason: "go on"
    })
    assert.deepStrictEqual(decodeAgentOutput("SubagentStop", { continue: false, stopReason: "done" }), {
      _tag: "Halt",
      stopReason: "done"
    })
    assert.deepStrictEqual(decodeAgentOutput("Notification", "ok"), {
      _tag: "Continue",
      additionalContext: undefined,
      customInstructions: undefined,
      systemMessage: undefined
    })
    assert.strictEqual(
      (decodeAgentOutput("UserPromptSubmit", {
        hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: "ctx" }
      }) as { additionalContext?: string }).additionalContext,
      "ctx"
    )
    assert.deepStrictEqual(decodeAgentOutput("PreCompact", { async: true }), { _tag: "Continue" })
    assert.deepStrictEqual(decodeAgentOutput("Stop", "allow", "h1"), {
      _tag: "Failed",
      hookId: "h1",
      kind: "bad_return"
    })
  })
})
