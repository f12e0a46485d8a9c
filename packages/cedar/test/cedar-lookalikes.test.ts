/**
 * Lookalike names under Cedar, as under JSON rules: a forbid or an @ask permit on `write_file`
 * also catches `wr\u0456te_file` (a Cyrillic \u0456), on calls and listings; a plain permit on
 * `write_file` does not permit it.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { call, compile, ctx, decideCall, tool } from "./fixtures.ts"

const LOOKALIKE = "wr\u0456te_file"

const FORBID = `@id("all") permit(principal, action, resource);
@id("no-write") @reason("no writes")
forbid(principal, action == Interlock::Action::"callTool", resource == Interlock::Tool::"files/write_file");
@id("no-shell") forbid(principal, action, resource) when { resource.name like "*shell*" };`

describe("Cedar: lookalike names", () => {
  it.effect("a forbid on a tool's id or on its name denies a lookalike spelling of it", () =>
    Effect.gen(function*() {
      const policy = yield* compile(FORBID)
      assert.deepStrictEqual(decideCall(policy, call("files", LOOKALIKE)), {
        _tag: "Deny",
        reason: "no writes",
        rule: "no-write"
      })
      assert.strictEqual(decideCall(policy, call("fil\u0435s", "write_file")).rule, "no-write")
      assert.strictEqual(decideCall(policy, call("files", "run_\u0455h\u0435ll")).rule, "no-shell")
      // The plain name of another tool is still permitted.
      assert.deepStrictEqual(decideCall(policy, call("files", "read_file")), { _tag: "Allow", rule: "all" })
    }))

  it.effect("an @ask permit asks for a lookalike; a plain permit does not permit one", () =>
    Effect.gen(function*() {
      const asking = yield* compile(`@id("all") permit(principal, action, resource);
@id("ask-write") @ask("a human checks writes")
permit(principal, action, resource) when { resource.name == "write_file" };`)
      assert.deepStrictEqual(decideCall(asking, call("files", LOOKALIKE)), {
        _tag: "Ask",
        reason: "a human checks writes",
        rule: "ask-write"
      })
      const narrow = yield* compile(
        `@id("write") permit(principal, action, resource == Interlock::Tool::"files/write_file");`
      )
      assert.strictEqual(decideCall(narrow, call("files", "write_file"))._tag, "Allow")
      assert.strictEqual(decideCall(narrow, call("files", LOOKALIKE))._tag, "Deny")
    }))

  it.effect("a listing hides a lookalike whose every call a forbid denies", () =>
    Effect.gen(function*() {
      const policy = yield* compile(FORBID)
      const context = ctx()
      const visible = policy.visible
      assert.isDefined(visible)
      assert.isFalse(visible!(tool("files", LOOKALIKE), context))
      assert.isFalse(visible!(tool("files", "sh\u0435ll"), context))
      assert.isTrue(visible!(tool("files", "read_file"), context))
      assert.isTrue(visible!(tool("files", "write_file_log"), context))
    }))
})
