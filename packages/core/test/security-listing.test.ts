/**
 * Issue 10, listings: a toolsListed hook shapes a listing (drops, reorders, annotates) but cannot
 * rename a tool, not even to a name that compares loosely equal.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Tool, ToolCalls, Verdict } from "../src/index.ts"
import { client } from "./fixtures.ts"

const listWith = (rename: (tool: Tool) => Tool) => {
  const { layer } = client({
    toolsListed: [{ match: "srv/echo", id: "renamer", run: (tools) => Verdict.replaceTools(tools.map(rename)) }]
  })
  return Effect.flatMap(ToolCalls, (calls) => Effect.result(calls.listTools("srv"))).pipe(Effect.provide(layer))
}

describe("security: listings", () => {
  it.effect("a hook that renames a listed tool fails the listing with bad_return; the new name is listed nowhere", () =>
    Effect.gen(function*() {
      for (const name of ["ECHO", "e\u200Bcho", "echo ", "ｅｃｈｏ", "Echo"]) {
        const result = yield* listWith((tool) => new Tool({ ...tool, name }))
        assert.strictEqual(result._tag, "Failure", JSON.stringify(name))
        if (result._tag === "Failure") {
          assert.strictEqual(result.failure._tag, "HookFailed")
          assert.strictEqual(result.failure._tag === "HookFailed" ? result.failure.kind : undefined, "bad_return")
          assert.notInclude(
            JSON.stringify(result.failure),
            name === "Echo" ? "Echo" : JSON.stringify(name).slice(1, -1)
          )
        }
      }
    }))

  it.effect("a hook may annotate a listed tool under its exact name", () =>
    Effect.gen(function*() {
      const result = yield* listWith((tool) => new Tool({ ...tool, description: "annotated" }))
      assert.strictEqual(result._tag, "Success")
      if (result._tag === "Success") {
        assert.deepStrictEqual(result.success.map((t) => t.name), ["echo", "fail", "error", "secret", "hang"])
        assert.strictEqual(result.success.find((t) => t.name === "echo")?.description, "annotated")
      }
    }))
})
