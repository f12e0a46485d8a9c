import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { inputResponsesProblem } from "../src/front/InputResponses.ts"

describe("a request's inputResponses, checked at the door", () => {
  it("absent, or an object of objects, passes", () => {
    assert.isUndefined(inputResponsesProblem({ name: "t" }))
    assert.isUndefined(inputResponsesProblem({ inputResponses: {} }))
    assert.isUndefined(inputResponsesProblem({ inputResponses: { who: { action: "accept", content: { name: "A" } } } }))
  })

  it("null, a number, an array, or an answer that is not an object is refused, and the message quotes no value", () => {
    for (const inputResponses of [null, 12345, [], "x", { who: 12345 }, { who: null }, { who: ["sk-secret-0001"] }]) {
      const problem = inputResponsesProblem({ inputResponses })
      assert.isString(problem, JSON.stringify(inputResponses))
      assert.notInclude(problem ?? "", "sk-secret")
      assert.notInclude(problem ?? "", "12345")
    }
  })

  it.effect.prop("any object of objects passes; one answer that is not an object is refused", [
    Schema.Record(Schema.String, Schema.Record(Schema.String, Schema.Number)),
    Schema.String,
    Schema.Union([Schema.Number, Schema.String, Schema.Null])
  ], ([answers, key, bad]) =>
    Effect.sync(() => {
      assert.isUndefined(inputResponsesProblem({ inputResponses: answers }))
      assert.isString(inputResponsesProblem({ inputResponses: { ...answers, [key]: bad } }))
    }))
})
