/**
 * afterModelChunk sees each text delta before the consumer: it passes, replaces, holds back or stops
 * the turn, and fails closed. A marked secret split over deltas never reaches any event, the
 * transcript sent back to the model, or the RunResult.
 */
import { assert, describe, it } from "@effect/vitest"
import { Policy } from "@interlock/core"
import { Effect, Layer, Schema, Stream } from "effect"
import { LanguageModel, type Response } from "effect/ai"
import { Agent, AgentVerdict, type StreamEvent } from "../src/index.ts"
import { until } from "./support/clock.ts"
import { fake, runOn, text, turns } from "./support/FakeLlm.ts"
import { MASK, redactor, SECRET, secretPieces } from "./support/Redactor.ts"
import { openAiFrames } from "./support/SseScripts.ts"
import { only, resultOf, streamOn } from "./support/StreamRun.ts"
import { payTool } from "./support/tools.ts"

const noLeak = (seen: unknown, where: string) => {
  const json = JSON.stringify(seen)
  for (const piece of secretPieces()) assert.notInclude(json, piece, `${where} holds a piece of the secret`)
}

const usage = {
  inputTokens: { total: 1, uncached: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: undefined, reasoning: undefined }
}

/** An in-process model whose one answer is these stream parts (and, whole, their text). */
const partsModel = (parts: ReadonlyArray<Response.StreamPartEncoded>) =>
  Layer.effect(
    LanguageModel.LanguageModel,
    LanguageModel.make({
      generateText: () => Effect.die("not used"),
      streamText: () => Stream.fromIterable([...parts, { type: "finish", reason: "stop", usage }])
    })
  )

const deltas = (pieces: ReadonlyArray<string>): Array<Response.StreamPartEncoded> => [
  { type: "text-start", id: "t" },
  ...pieces.map((delta): Response.StreamPartEncoded => ({ type: "text-delta", id: "t", delta })),
  { type: "text-end", id: "t" }
]

describe("afterModelChunk: redaction across delta boundaries", () => {
  it.effect("a secret split over three deltas is masked in every event, the transcript and the result", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns(
        { sse: openAiFrames(["my key is sk-li", "ve-7Q2vX", "9pLw4, keep it safe"]), split: 9 },
        { sse: openAiFrames(["checked"]) }
      ))
      let blocked = false
      const events = yield* streamOn(server, "what is my key?", {
        hooks: {
          afterModelChunk: [redactor],
          // One more turn, so that the first answer goes back to the model in the transcript.
          stop: [() => (blocked ? AgentVerdict.continue : ((blocked = true), AgentVerdict.block("check it")))]
        }
      })
      assert.strictEqual(
        only(events, "TextDelta").map((e) => e.text).join(""),
        `my key is ${MASK}, keep it safechecked`
      )
      noLeak(events, "an event")
      const result = resultOf(events)
      assert.strictEqual(result.status, "done")
      noLeak(result, "the RunResult")
      noLeak(server.requests[1].body, "the transcript sent back to the model")
      assert.include(JSON.stringify(server.requests[1].body), MASK)
      assert.isTrue(result.hooks.some((h) => h.event === "afterModelChunk" && h.status === "hold"))
    }))

  it.effect.prop(
    "wherever the deltas split the text, the secret never reaches the consumer and the rest arrives intact",
    [Schema.Array(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 9 })))],
    ([sizes]) =>
      Effect.gen(function*() {
        const full = `a ${SECRET} b sk-li c ${SECRET}`
        const pieces: Array<string> = []
        let at = 0
        for (const size of sizes) {
          if (at >= full.length) break
          pieces.push(full.slice(at, at + size))
          at += size
        }
        if (at < full.length) pieces.push(full.slice(at))
        const events = Array.from(
          yield* Stream.runCollect(
            Agent.stream("x", {
              model: partsModel(deltas(pieces)),
              policy: Policy.allowAll,
              hooks: { afterModelChunk: [redactor] }
            })
          )
        )
        noLeak(events, "an event")
        assert.strictEqual(
          only(events, "TextDelta").map((e) => e.text).join(""),
          full.replaceAll(SECRET, MASK)
        )
      }),
    { arbitrary: { runs: 200 } }
  )

  it.effect("run applies the same hook to the whole answer (one delta, which ends the text)", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns(text(`the key: ${SECRET}`)))
      const seen: Array<boolean> = []
      const result = yield* runOn(server, "key?", {
        hooks: { afterModelChunk: [(input) => (seen.push(input.final), redactor(input))] }
      })
      assert.deepStrictEqual([result.status, result.text, seen], ["done", `the key: ${MASK}`, [true]])
      noLeak(result, "the RunResult")
    }))
})

describe("afterModelChunk: stop the turn, fail closed", () => {
  const guard = {
    id: "guard",
    run: ({ pending }: { pending: string }) =>
      pending.includes("FORBIDDEN") ? AgentVerdict.block("policy text") : AgentVerdict.continue
  }

  it.live("Block stops the turn: the model's stream is closed, the rest of the answer never shown", () =>
    Effect.gen(function*() {
      const frames = openAiFrames(["fine ", "FORBIDDEN words", " and more"], [], { done: false }).slice(0, 4)
      const server = yield* fake(turns({ sse: frames, hang: true }))
      const events = yield* streamOn(server, "hi", { hooks: { afterModelChunk: [guard] } })
      assert.deepStrictEqual(only(events, "TextDelta").map((e) => e.text), ["fine "])
      assert.deepStrictEqual(only(events, "TurnEnd").map((e) => [e.finish, e.stoppedBy]), [["stopped", {
        hookId: "guard",
        reason: "policy text"
      }]])
      const result = resultOf(events)
      assert.deepStrictEqual([result.status, result.text], ["done", "fine "])
      assert.notInclude(JSON.stringify(result), "FORBIDDEN")
      assert.isTrue(yield* until(() => server.abandoned.count === 1), "the model's stream was closed")
    }))

  it.effect("a stopped turn drops its tool calls: they never run", () =>
    Effect.gen(function*() {
      const { paid, pay } = payTool()
      const events = Array.from(
        yield* Stream.runCollect(Agent.stream("pay", {
          model: partsModel([
            { type: "tool-call", id: "p1", name: "pay", params: { amount: 5 } },
            ...deltas(["paying... FORBIDDEN"])
          ]),
          tools: [pay],
          policy: Policy.allowAll,
          hooks: { afterModelChunk: [guard] }
        }))
      )
      assert.deepStrictEqual(paid, [])
      assert.deepStrictEqual(only(events, "ToolResult"), [])
      const result = resultOf(events)
      assert.deepStrictEqual([result.status, result.toolCallCount], ["done", 0])
    }))

  it.effect("a hook that throws ends the run (closed): nothing after it is shown, what it raised goes nowhere", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns({ sse: openAiFrames(["first ", "second ", "third"]) }))
      let calls = 0
      const events = yield* streamOn(server, "hi", {
        hooks: {
          afterModelChunk: [{
            id: "broken",
            run: () => {
              if (++calls === 2) throw new Error("sk-hook-leak")
              return AgentVerdict.continue
            }
          }]
        }
      })
      assert.deepStrictEqual(only(events, "TextDelta").map((e) => e.text), ["first "])
      const result = resultOf(events)
      assert.deepStrictEqual([
        result.status,
        result.error?._tag,
        (result.error as any)?.event,
        (result.error as any)?.kind
      ], [
        "error",
        "AgentHookFailed",
        "afterModelChunk",
        "raise"
      ])
      assert.notInclude(JSON.stringify(events), "sk-hook-leak")
      assert.notInclude(JSON.stringify(result.messages), "second")
    }))

  it.effect("Hold where the text ends is a bad_return: what was held back is never released", () =>
    Effect.gen(function*() {
      const server = yield* fake(turns(text(`all of it ${SECRET}`)))
      const result = yield* runOn(server, "hi", { hooks: { afterModelChunk: [() => AgentVerdict.hold] } })
      assert.deepStrictEqual([result.status, (result.error as any)?.kind, result.text], ["error", "bad_return", ""])
      noLeak(result, "the RunResult")
    }))
})

// The union is exported for consumers who match on events.
const _tags: ReadonlyArray<StreamEvent.StreamEvent["_tag"]> = ["TextDelta"]
void _tags
