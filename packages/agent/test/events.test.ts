/** The model-level events: what each may do, and that each fails closed (or is ignored, for observers). */
import { assert, describe, it } from "@effect/vitest"
import { Policy } from "@interlock/core"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { Agent, AgentVerdict } from "../src/index.ts"
import { until } from "./support/clock.ts"
import { fake, openAi, runOn, text, toolCalls, turns } from "./support/FakeLlm.ts"
import { add } from "./support/tools.ts"

const lastUser = (body: any): string => body.messages.filter((m: any) => m.role === "user").at(-1).content

describe("userPromptSubmit", () => {
  it.effect("blocks the run before any model request", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns(text("no")))
      const result = yield* runOn(server, "delete prod", {
        hooks: {
          userPromptSubmit: [{
            id: "guard",
            run: ({ prompt }) => (prompt.includes("prod") ? AgentVerdict.block("no prod today") : AgentVerdict.continue)
          }]
        }
      })
      assert.strictEqual(result.status, "error")
      assert.strictEqual(result.error?._tag, "RunBlocked")
      assert.include(result.error!.message, "no prod today")
      assert.strictEqual(server.requests.length, 0)
    }))

  it.effect("a userPromptSubmit hook that throws or hangs blocks the run (fail closed)", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns(text("no")))
      const thrown = yield* runOn(server, "hi", {
        hooks: {
          userPromptSubmit: [() => {
            throw new Error("sk-leak")
          }]
        }
      })
      assert.deepStrictEqual([thrown.status, thrown.error?._tag, (thrown.error as any).kind], [
        "error",
        "AgentHookFailed",
        "raise"
      ])
      assert.notInclude(JSON.stringify(thrown), "sk-leak")
      const fiber = yield* Effect.forkChild(
        runOn(server, "hi", { hooks: { userPromptSubmit: [() => new Promise(() => {})] } })
      )
      yield* TestClock.adjust("5 seconds")
      const hung = yield* Fiber.join(fiber)
      assert.deepStrictEqual([hung.status, (hung.error as any).kind], ["error", "timeout"])
      assert.strictEqual(server.requests.length, 0)
    }))

  it.effect("adds context for the model", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns(text("ok")))
      yield* runOn(server, "hi", {
        system: "be brief",
        hooks: { userPromptSubmit: [() => AgentVerdict.addContext("today is Monday")] }
      })
      const messages = server.requests[0].body.messages
      assert.deepStrictEqual(messages.map((m: any) => [m.role, m.content]), [["system", "be brief"], [
        "system",
        "today is Monday"
      ], ["user", "hi"]])
    }))
})

describe("beforeModel", () => {
  it.effect("rewrites messages for the rest of the run", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns(toolCalls([{ id: "c1", name: "add", args: { a: 1, b: 1 } }]), text("2")))
      let calls = 0
      yield* runOn(server, "a long and secret prompt", {
        tools: [add],
        hooks: {
          beforeModel: [({ turn }) => {
            calls++
            return turn === 0
              ? AgentVerdict.rewrite({ messages: [{ role: "user", content: "short prompt" }] })
              : AgentVerdict.continue
          }]
        }
      })
      assert.strictEqual(calls, 2)
      assert.strictEqual(lastUser(server.requests[0].body), "short prompt")
      // The second request still starts from the rewritten transcript.
      assert.strictEqual(server.requests[1].body.messages[0].content, "short prompt")
      assert.strictEqual(server.requests[1].body.messages.length, 3)
    }))

  it.effect("Deny aborts the run", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns(text("no")))
      const result = yield* runOn(server, "hi", {
        hooks: { beforeModel: [{ id: "budget", run: () => AgentVerdict.deny("over budget") }] }
      })
      assert.strictEqual(result.status, "error")
      assert.deepStrictEqual([result.error?._tag, (result.error as any).hookId], ["RunBlocked", "budget"])
      assert.strictEqual(server.requests.length, 0)
    }))

  it.effect(
    "a hook that throws, rejects, fails, returns junk or invents a tool fails the run closed, and says " +
      "nothing of what it raised",
    () =>
      Effect.gen(function*() {
        const server = yield* fake(turns(text("never")))
        const bad: ReadonlyArray<[string, (input: any) => any]> = [
          ["raise", () => {
            throw new Error("sk-secret-1")
          }],
          ["raise", () => Promise.reject(new Error("sk-secret-2"))],
          ["raise", () => Effect.fail("sk-secret-3")],
          ["bad_return", () => ({ _tag: "Allow" })],
          ["bad_return", () => AgentVerdict.rewrite({ tools: ["rm_rf"] })],
          ["bad_return", () => AgentVerdict.rewrite({ messages: [{ role: "wizard", content: 1 }] as any })],
          ["bad_return", () => undefined]
        ]
        for (const [kind, run] of bad) {
          const result = yield* runOn(server, "hi", { tools: [add], hooks: { beforeModel: [{ id: "h", run }] } })
          assert.strictEqual(result.status, "error")
          assert.deepStrictEqual([result.error?._tag, (result.error as any).kind], ["AgentHookFailed", kind])
          assert.notInclude(JSON.stringify(result), "sk-secret")
          assert.deepStrictEqual(result.hooks.map((h) => [h.id, h.status, h.failure]), [["h", "failed", kind]])
        }
        assert.strictEqual(server.requests.length, 0)
      })
  )

  it.effect("a hook that hangs times out under its deadline (TestClock) and fails the run closed", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns(text("never")))
      const fiber = yield* Effect.forkChild(runOn(server, "hi", {
        hooks: { beforeModel: [{ id: "slow", timeout: "2 seconds", run: () => Effect.never }] }
      }))
      yield* TestClock.adjust("1 second")
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust("1 second")
      const result = yield* Fiber.join(fiber)
      assert.deepStrictEqual([result.status, (result.error as any).kind], ["error", "timeout"])
      assert.strictEqual(server.requests.length, 0)
    }))

  it.effect(
    "a hook that ignores interruption still answers at its deadline: the run fails closed, " +
      "nothing is sent",
    () =>
      Effect.gen(function*() {
        const server = yield* fake(turns(text("never")))
        const fiber = yield* Effect.forkChild(runOn(server, "hi", {
          hooks: {
            beforeModel: [{ id: "stuck", timeout: "2 seconds", run: () => Effect.uninterruptible(Effect.never) }]
          }
        }))
        yield* TestClock.adjust("2 seconds")
        yield* TestClock.adjust("100 millis")
        yield* Effect.yieldNow
        assert.isDefined(fiber.pollUnsafe())
        const result = yield* Fiber.join(fiber)
        assert.deepStrictEqual([result.status, (result.error as any).kind], ["error", "timeout"])
        assert.strictEqual(server.requests.length, 0)
      })
  )
})

describe("afterModel", () => {
  it.effect("observes only: a failing afterModel hook is recorded and ignored", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns(text("fine")))
      const result = yield* runOn(server, "hi", {
        hooks: {
          afterModel: [{ id: "audit", run: () => Promise.reject(new Error("audit down")) }, {
            id: "sneaky",
            run: () => AgentVerdict.rewrite({ tools: [] }) as any
          }]
        }
      })
      assert.strictEqual(result.status, "done")
      assert.deepStrictEqual(result.hooks.map((h) => [h.id, h.status, h.failure, h.ignored]), [[
        "audit",
        "failed",
        "raise",
        true
      ], ["sneaky", "failed", "bad_return", true]])
    }))
})

describe("stop", () => {
  it.effect("Block goes on with the reason as a user message; stopHookActive prevents a second block", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns(text("first answer"), text("second answer")))
      const flags: Array<boolean> = []
      const result = yield* runOn(server, "hi", {
        hooks: {
          stop: [({ stopHookActive }) => {
            flags.push(stopHookActive)
            return stopHookActive ? AgentVerdict.continue : AgentVerdict.block("check your work")
          }]
        }
      })
      assert.deepStrictEqual(flags, [false, true])
      assert.strictEqual(result.status, "done")
      assert.strictEqual(result.text, "second answer")
      assert.strictEqual(result.turns, 2)
      assert.strictEqual(lastUser(server.requests[1].body), "check your work")
    }))

  it.effect("a stop hook that always blocks is bounded by maxTurns", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns(text("again")))
      const result = yield* runOn(server, "hi", { maxTurns: 3, hooks: { stop: [() => AgentVerdict.block("more")] } })
      assert.deepStrictEqual([result.status, result.turns, server.requests.length], ["incomplete", 3, 3])
    }))

  it.effect("a failing stop hook ends the run with an error, not a silent done", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns(text("answer")))
      const result = yield* runOn(server, "hi", { hooks: { stop: [() => ({ _tag: "Continue", extra: 1 })] } as any })
      assert.deepStrictEqual([result.status, result.error?._tag, result.text], ["error", "AgentHookFailed", ""])
    }))
})

describe("preCompact and compaction", () => {
  it.effect("compacts the history past maxMessages, with the hook's instructions; a Block skips it", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns(
        toolCalls([{ id: "c1", name: "add", args: { a: 1, b: 1 } }]),
        toolCalls([{ id: "c2", name: "add", args: { a: 2, b: 2 } }]),
        toolCalls([{ id: "c3", name: "add", args: { a: 3, b: 3 } }]),
        text("done")
      ))
      const seen: Array<string> = []
      const result = yield* runOn(server, "sum things", {
        tools: [add],
        compaction: {
          maxMessages: 3,
          compact: (messages, info) => {
            seen.push(info.instructions)
            return [messages[0], ...messages.slice(-2)]
          }
        },
        hooks: {
          preCompact: [
            ({ turn }) => (turn === 2 ? AgentVerdict.addContext("keep the sums") : AgentVerdict.block("not now"))
          ]
        }
      })
      assert.strictEqual(result.status, "done")
      // Before turn 1 there are 3 messages (not over); before turn 2, 5: compacted to 3; before turn 3, 5 again:
      // blocked.
      assert.deepStrictEqual(seen, ["keep the sums"])
      assert.deepStrictEqual(server.requests.map((r) => r.body.messages.length), [1, 3, 3, 5])
      assert.deepStrictEqual(result.hooks.filter((h) => h.event === "preCompact").map((h) => h.status), [
        "add_context",
        "block"
      ])
    }))
})

describe("subagents", () => {
  it.effect("an agent used as a tool fires subagentStart and subagentStop; a subagentStart Block refuses it", () =>
    Effect.gen(function*() {
      const server = yield* fake((body) => {
        const system = body.messages.find((m: any) => m.role === "system")?.content
        if (system === "you are the researcher") return text("research result")
        const answered = body.messages.some((m: any) => m.role === "tool")
        return answered
          ? text("main done")
          : toolCalls([{ id: "s1", name: "researcher", args: { prompt: "look it up" } }])
      })
      const events: Array<string> = []
      const researcher = Agent.asTool({
        name: "researcher",
        system: "you are the researcher",
        model: openAi(server),
        policy: Policy.allowAll,
        hooks: {
          subagentStart: [({ agent, prompt }) => {
            events.push(`start ${agent}: ${prompt}`)
            return AgentVerdict.continue
          }],
          subagentStop: [({ agent, text: answer }) => {
            events.push(`stop ${agent}: ${answer}`)
            return AgentVerdict.continue
          }],
          stop: [() => {
            events.push("subagent's stop must not fire")
            return AgentVerdict.continue
          }]
        }
      })
      const result = yield* runOn(server, "research", { tools: [researcher] })
      assert.strictEqual(result.text, "main done")
      assert.strictEqual(result.toolCalls[0].output, "research result")
      assert.deepStrictEqual(events, ["start researcher: look it up", "stop researcher: research result"])

      const refused = Agent.asTool({
        name: "researcher",
        system: "you are the researcher",
        model: openAi(server),
        policy: Policy.allowAll,
        hooks: { subagentStart: [() => AgentVerdict.block("no research")] }
      })
      const second = yield* runOn(server, "research", { tools: [refused] })
      assert.isTrue(second.toolCalls[0].isError)
      assert.include(second.toolCalls[0].output, "no research")
    }))
})

describe("notification", () => {
  it.effect("is told when the turn limit ends a run; a failing notification hook changes nothing", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns(toolCalls([{ id: "c1", name: "add", args: { a: 1, b: 1 } }])))
      const kinds: Array<string> = []
      const result = yield* runOn(server, "x", {
        tools: [add],
        maxTurns: 1,
        hooks: {
          notification: [
            ({ kind }) => Effect.sync(() => void kinds.push(kind)).pipe(Effect.as(AgentVerdict.continue)),
            () => Effect.die("boom")
          ]
        }
      })
      assert.deepStrictEqual(kinds, ["turn_limit"])
      assert.strictEqual(result.status, "incomplete")
    }))
})

describe("hooks are supervised", () => {
  it.effect("interrupting the run interrupts a hook in flight", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns(text("never")))
      let interrupted = false
      let started = false
      const fiber = yield* Effect.forkChild(runOn(server, "hi", {
        hooks: {
          beforeModel: [() =>
            Effect.sync(() => (started = true)).pipe(
              Effect.andThen(Effect.never),
              Effect.onInterrupt(() => Effect.sync(() => (interrupted = true)))
            )]
        }
      }))
      yield* until(() => started)
      yield* Fiber.interrupt(fiber)
      assert.isTrue(interrupted)
    }))
})
