/**
 * The bridge in-process on PreToolUse: Claude Code's answer, the exit code and the audit rows.
 * bridge-events.test.ts has the other event types.
 */
import { assert, describe, it } from "@effect/vitest"
import { Hooks, Policy } from "@interlock/core"
import { Effect, Layer } from "effect"
import { AuditSink } from "../src/index.ts"
import { bridge, pre, preOut, SECRET } from "./bridgeEnv.ts"

describe("PreToolUse", () => {
  it.effect("allow only when a rule allows explicitly, naming the rule", () =>
    Effect.gen(function*() {
      const r = yield* bridge(pre("Bash", { command: "ls" }))
      assert.strictEqual(r.exitCode, 0)
      assert.strictEqual(r.stderr, "")
      assert.deepStrictEqual(
        r.json,
        preOut({ permissionDecision: "allow", permissionDecisionReason: "Interlock: allowed by rule allow-ls" })
      )
      assert.strictEqual(r.rows.length, 1)
      assert.deepInclude(r.rows[0], {
        outcome: "answered",
        event: "PreToolUse",
        sessionId: "sess-1",
        toolUseId: "toolu_1",
        server: "claude",
        tool: "Bash",
        claudeDecision: "allow",
        rule: "allow-ls",
        rewritten: false
      })
      assert.strictEqual(r.rows[0].digest?.length, 64)
      assert.deepInclude(r.rows[0].receipt, {
        serverId: "claude",
        name: "Bash",
        callId: "toolu_1",
        policy: { decision: "allow", rule: "allow-ls" },
        sent: true
      })
      assert.strictEqual(r.rows[0].durationMs, 0, "TestClock: no time passes")
    }))

  it.effect("an MCP tool is server/tool for the rules", () =>
    Effect.gen(function*() {
      const r = yield* bridge(pre("mcp__fs__read_file", { path: "README.md" }))
      assert.deepStrictEqual(
        r.json,
        preOut({ permissionDecision: "allow", permissionDecisionReason: "Interlock: allowed by rule fs-read" })
      )
      assert.deepInclude(r.rows[0], { server: "fs", tool: "read_file", rule: "fs-read" })
    }))

  it.effect("a rule's deny denies with its reason", () =>
    Effect.gen(function*() {
      const r = yield* bridge(pre("Bash", { command: `rm -rf / ${SECRET}` }))
      assert.deepStrictEqual(
        r.json,
        preOut({ permissionDecision: "deny", permissionDecisionReason: "rm is not allowed" })
      )
      assert.deepInclude(r.rows[0], { claudeDecision: "deny", rule: "no-rm", error: "rm is not allowed" })
      assert.notInclude(JSON.stringify(r.rows), SECRET, "an audit row never holds the arguments")
    }))

  it.effect("a rule's ask asks", () =>
    Effect.gen(function*() {
      const r = yield* bridge(pre("Write", { file_path: "a.txt", content: "x" }))
      assert.deepStrictEqual(
        r.json,
        preOut({ permissionDecision: "ask", permissionDecisionReason: "writes need a look" })
      )
      assert.deepInclude(r.rows[0], { claudeDecision: "ask", rule: "ask-write" })
    }))

  it.effect("no rule and a default of allow: {} (no opinion)", () =>
    Effect.gen(function*() {
      const r = yield* bridge(pre("Glob", { pattern: "*.ts" }))
      assert.strictEqual(r.stdout, "{}\n")
      assert.strictEqual(r.exitCode, 0)
      assert.deepInclude(r.rows[0], { claudeDecision: "none" })
      assert.notProperty(r.rows[0], "rule")
    }))

  it.effect(
    "the last rewrite (rewriteInput) runs after the policy: allow or no opinion carry updatedInput; a " +
      "deny does not",
    () =>
      Effect.gen(function*() {
        const rewriteInput = (call: { readonly name: string; readonly args: Record<string, unknown> }) =>
          call.name === "Bash" ? { ...call.args, command: `filtered(${String(call.args.command)})` } : undefined
        // The rule allow-ls saw "ls", as Claude wrote it.
        const allowed = yield* bridge(pre("Bash", { command: "ls" }), { rewriteInput })
        assert.deepStrictEqual(
          allowed.json,
          preOut({
            permissionDecision: "allow",
            permissionDecisionReason: "Interlock: allowed by rule allow-ls",
            updatedInput: { command: "filtered(ls)" }
          })
        )
        assert.deepInclude(allowed.rows[0], { claudeDecision: "allow", rewritten: true })
        // No rule: no decision (Claude Code's permissions decide), the rewritten input only.
        const open = yield* bridge(pre("Bash", { command: "echo hi" }), { rewriteInput })
        assert.deepStrictEqual(open.json, preOut({ updatedInput: { command: "filtered(echo hi)" } }))
        assert.deepInclude(open.rows[0], { claudeDecision: "none", rewritten: true })
        const denied = yield* bridge(pre("Bash", { command: "rm -rf /" }), { rewriteInput })
        assert.deepStrictEqual(
          denied.json,
          preOut({ permissionDecision: "deny", permissionDecisionReason: "rm is not allowed" })
        )
        const glob = yield* bridge(pre("Glob", { pattern: "*.ts" }), { rewriteInput })
        assert.strictEqual(glob.stdout, "{}\n")
      })
  )

  it.effect("no rule and a default of deny: deny", () =>
    Effect.gen(function*() {
      const r = yield* bridge(pre("Glob", { pattern: "*" }), { policy: Policy.rules({ rules: [] }) })
      assert.deepStrictEqual(
        r.json,
        preOut({ permissionDecision: "deny", permissionDecisionReason: "no policy rule allows this call" })
      )
    }))

  it.effect("allowAll is not an explicit allow: {}", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* bridge(pre("Glob", {}), { policy: Policy.allowAll })).stdout, "{}\n")
    }))

  it.effect("hooks rewrote the call: updatedInput, with allow when the rewritten call is allowed by a rule", () =>
    Effect.gen(function*() {
      const r = yield* bridge(pre("Bash", { command: "sudo ls" }))
      assert.deepStrictEqual(
        r.json,
        preOut({
          permissionDecision: "allow",
          permissionDecisionReason: "Interlock: allowed by rule allow-ls",
          updatedInput: { command: "ls" }
        })
      )
      assert.deepInclude(r.rows[0], { claudeDecision: "allow", rewritten: true })
    }))

  it.effect("hooks rewrote the call and no rule allows it: ask, showing the rewritten input", () =>
    Effect.gen(function*() {
      const r = yield* bridge(pre("Bash", { command: "sudo make" }))
      assert.deepStrictEqual(
        r.json,
        preOut({
          permissionDecision: "ask",
          permissionDecisionReason: "Interlock rewrote this call's input; confirm the rewritten input",
          updatedInput: { command: "make" }
        })
      )
    }))

  it.effect("the rules see the rewritten call: sudo rm is denied", () =>
    Effect.gen(function*() {
      const r = yield* bridge(pre("Bash", { command: "sudo rm -rf /" }))
      assert.deepStrictEqual(
        r.json,
        preOut({ permissionDecision: "deny", permissionDecisionReason: "rm is not allowed" })
      )
    }))

  it.effect("a hook that raises denies (fail closed), without what it raised", () =>
    Effect.gen(function*() {
      const r = yield* bridge(pre("Bash", { command: "boom" }))
      assert.deepStrictEqual(
        r.json,
        preOut({
          permissionDecision: "deny",
          permissionDecisionReason: "Interlock: hook boom failed (raise), so the call is denied"
        })
      )
      assert.deepInclude(r.rows[0], { claudeDecision: "deny", rule: "boom" })
      assert.deepInclude(r.rows[0].receipt?.hooks.find((hook) => hook.id === "boom"), {
        status: "failed",
        failure: "raise"
      })
      assert.notInclude(r.stdout + JSON.stringify(r.rows), SECRET)
    }))

  it.effect("a hook that answers for the tool (Halt) denies with the answer as the reason", () =>
    Effect.gen(function*() {
      const r = yield* bridge(pre("Answer", {}))
      assert.deepStrictEqual(r.json, preOut({ permissionDecision: "deny", permissionDecisionReason: "42" }))
      assert.deepInclude(r.rows[0], {
        claudeDecision: "deny",
        rule: "answer",
        error: "a hook answered for the tool (Halt)"
      })
    }))

  it.effect("a Claude-style halt stops the run (continue: false) and denies the call", () =>
    Effect.gen(function*() {
      const r = yield* bridge(pre("KillSwitch", {}))
      assert.deepStrictEqual(r.json, {
        continue: false,
        stopReason: "kill switch pulled",
        ...preOut({ permissionDecision: "deny", permissionDecisionReason: "kill switch pulled" })
      })
      assert.deepInclude(r.rows[0], { claudeDecision: "halt", rule: "kill-switch" })
    }))

  it.effect("a hook's additionalContext reaches Claude", () =>
    Effect.gen(function*() {
      const r = yield* bridge(pre("Grep", { pattern: "x" }))
      assert.deepStrictEqual(r.json, preOut({ additionalContext: "prefer rg" }))
    }))

  it.effect("a policy that dies denies: the bridge never crashes into an allow", () =>
    Effect.gen(function*() {
      const dying = Layer.succeed(Policy, { decide: () => Effect.die(new Error("boom")) })
      const r = yield* bridge(pre("Bash", { command: "ls" }), { policy: dying })
      assert.strictEqual(r.exitCode, 0)
      assert.strictEqual(r.json.hookSpecificOutput.permissionDecision, "deny")
    }))

  it.effect("broken Hooks services deny too", () =>
    Effect.gen(function*() {
      const broken = Layer.succeed(Hooks, {
        context: undefined as never,
        get byEvent(): never {
          throw new Error("broken")
        }
      })
      const r = yield* bridge(pre("Bash", { command: "ls" }), { hooks: broken })
      assert.deepStrictEqual(
        r.json,
        preOut({ permissionDecision: "deny", permissionDecisionReason: "Interlock failed to evaluate this event" })
      )
      assert.deepInclude(r.rows[0], { claudeDecision: "deny" })
    }))

  it.effect("an allow whose audit row cannot be written becomes a deny; a deny stays a deny", () =>
    Effect.gen(function*() {
      const failing = Layer.succeed(AuditSink, { record: () => Effect.fail("disk full") })
      const allowed = yield* bridge(pre("Bash", { command: "ls" }), { audit: failing })
      assert.deepStrictEqual(
        allowed.json,
        preOut({
          permissionDecision: "deny",
          permissionDecisionReason: "Interlock could not record this decision in its audit store"
        })
      )
      const denied = yield* bridge(pre("Bash", { command: "rm -rf x" }), { audit: failing })
      assert.strictEqual(denied.json.hookSpecificOutput.permissionDecisionReason, "rm is not allowed")
      const thrown = Layer.succeed(AuditSink, {
        record: () => {
          throw new Error("x")
        }
      })
      assert.strictEqual(
        (yield* bridge(pre("Bash", { command: "ls" }), { audit: thrown })).json.hookSpecificOutput.permissionDecision,
        "deny"
      )
    }))
})
