/** The seed's return-value table (claude_code-hook.md), one test per row, and the coercion edge cases. */
import { assert, describe, it } from "@effect/vitest"
import { CLAUDE_EVENTS, type ClaudeEventName, coerce, coercePermission, EMPTY, toWire } from "../src/index.ts"

const wire = (value: unknown, event: ClaudeEventName) => toWire(coerce(value, event).output)
const warned = (value: unknown, event: ClaudeEventName, fragment: string) => {
  const { output, warnings } = coerce(value, event)
  assert.deepStrictEqual(toWire(output), {})
  assert.isTrue(
    warnings.some((w) => w.includes(fragment)),
    `expected a warning with "${fragment}", got ${JSON.stringify(warnings)}`
  )
}

describe("universal actions", () => {
  it("ok: no opinion, for every event, with no warning", () => {
    for (const event of CLAUDE_EVENTS) {
      const { output, warnings } = coerce("ok", event)
      assert.deepStrictEqual(toWire(output), {})
      assert.deepStrictEqual(warnings, [])
    }
  })

  it("[halt, opts]: continue false with the stop reason, on any event", () => {
    assert.deepStrictEqual(wire(["halt", { stopReason: "Budget exhausted" }], "Stop"), {
      continue: false,
      stopReason: "Budget exhausted"
    })
    assert.deepStrictEqual(wire(["halt", { stop_reason: "Task complete" }], "SubagentStop"), {
      continue: false,
      stopReason: "Task complete"
    })
    assert.deepStrictEqual(wire(["halt", { stopReason: "Done", systemMessage: "Halted" }], "PreToolUse"), {
      continue: false,
      stopReason: "Done",
      systemMessage: "Halted"
    })
    assert.deepStrictEqual(wire(["halt"], "Notification"), { continue: false })
  })

  it("[block, opts]: decision block with the reason", () => {
    assert.deepStrictEqual(wire(["block", { reason: "Rate limited" }], "UserPromptSubmit"), {
      decision: "block",
      reason: "Rate limited"
    })
    assert.deepStrictEqual(wire(["block", { reason: "not done" }], "Stop"), { decision: "block", reason: "not done" })
  })
})

describe("event-specific actions", () => {
  it("[ok, opts] on PreToolUse: the event's output without a decision", () => {
    assert.deepStrictEqual(wire(["ok", { additional_context: "Extra info" }], "PreToolUse"), {
      hookSpecificOutput: { hookEventName: "PreToolUse", additionalContext: "Extra info" }
    })
    assert.deepStrictEqual(wire(["ok", { updatedInput: { command: "ls" } }], "PreToolUse"), {
      hookSpecificOutput: { hookEventName: "PreToolUse", updatedInput: { command: "ls" } }
    })
  })

  it("[ok, opts] on the other events with an output struct", () => {
    assert.deepStrictEqual(wire(["ok", { additionalContext: "Logged" }], "PostToolUse"), {
      hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "Logged" }
    })
    assert.deepStrictEqual(wire(["ok", { updated_mcp_tool_output: "new output" }], "PostToolUse"), {
      hookSpecificOutput: { hookEventName: "PostToolUse", updatedMCPToolOutput: "new output" }
    })
    for (const event of ["PostToolUseFailure", "UserPromptSubmit", "Notification", "SubagentStart"] as const) {
      assert.deepStrictEqual(wire(["ok", { additionalContext: "ctx" }], event), {
        hookSpecificOutput: { hookEventName: event, additionalContext: "ctx" }
      })
    }
    assert.deepStrictEqual(wire(["ok", { custom_instructions: "Keep signatures" }], "PreCompact"), {
      hookSpecificOutput: { hookEventName: "PreCompact", customInstructions: "Keep signatures" }
    })
  })

  it("[ok, opts] on Stop, SubagentStop and PermissionRequest: empty output, no warning", () => {
    for (const event of ["Stop", "SubagentStop", "PermissionRequest"] as const) {
      const { output, warnings } = coerce(["ok", { additionalContext: "x" }], event)
      assert.deepStrictEqual(toWire(output), {})
      assert.deepStrictEqual(warnings, [])
    }
  })

  it("[allow | deny | ask, opts] on PreToolUse: the permission decision", () => {
    assert.deepStrictEqual(wire(["allow", {}], "PreToolUse"), {
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow" }
    })
    assert.deepStrictEqual(wire(["allow", { updatedInput: { command: "ls" } }], "PreToolUse"), {
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", updatedInput: { command: "ls" } }
    })
    assert.deepStrictEqual(wire(["deny", { permission_decision_reason: "Dangerous" }], "PreToolUse"), {
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "deny",
        permissionDecisionReason: "Dangerous"
      }
    })
    assert.deepStrictEqual(
      wire(["deny", { permissionDecisionReason: "No", additionalContext: "Extra info" }], "PreToolUse"),
      {
        hookSpecificOutput: {
          hookEventName: "PreToolUse",
          permissionDecision: "deny",
          permissionDecisionReason: "No",
          additionalContext: "Extra info"
        }
      }
    )
    assert.deepStrictEqual(wire(["ask", { permissionDecisionReason: "Needs review" }], "PreToolUse"), {
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "ask",
        permissionDecisionReason: "Needs review"
      }
    })
  })

  it("bare allow and deny are [allow, []] and [deny, []]", () => {
    assert.deepStrictEqual(wire("allow", "PreToolUse"), {
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow" }
    })
    assert.deepStrictEqual(wire("deny", "PreToolUse"), {
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny" }
    })
  })

  it("[allow | deny, opts] on PermissionRequest: a permission decision with the fields the CLI requires", () => {
    assert.deepStrictEqual(wire(["allow", {}], "PermissionRequest"), {
      hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow", updatedInput: {} } }
    })
    assert.deepStrictEqual(
      wire(["allow", { updated_input: { command: "ls" }, updatedPermissions: ["Bash"] }], "PermissionRequest"),
      {
        hookSpecificOutput: {
          hookEventName: "PermissionRequest",
          decision: { behavior: "allow", updatedInput: { command: "ls" }, updatedPermissions: ["Bash"] }
        }
      }
    )
    assert.deepStrictEqual(wire(["deny", { message: "No", interrupt: true }], "PermissionRequest"), {
      hookSpecificOutput: {
        hookEventName: "PermissionRequest",
        decision: { behavior: "deny", message: "No", interrupt: true }
      }
    })
    assert.deepStrictEqual(wire("deny", "PermissionRequest"), {
      hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "deny", message: "" } }
    })
  })

  it("a permission decision object passes through on PermissionRequest", () => {
    assert.deepStrictEqual(wire({ behavior: "deny", message: "no" }, "PermissionRequest"), {
      hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "deny", message: "no" } }
    })
  })
})

describe("rows that end in a warning and an empty output", () => {
  it("allow, deny or ask on an event other than PreToolUse and PermissionRequest", () => {
    warned("allow", "PostToolUse", "only applies to PreToolUse")
    warned("deny", "Stop", "only applies to PreToolUse")
    warned(["allow", {}], "SubagentStart", "only applies to PreToolUse")
    warned(["deny", {}], "Notification", "only applies to PreToolUse")
    warned(["ask", {}], "UserPromptSubmit", "only applies to PreToolUse")
  })

  it("ask on PermissionRequest", () => warned(["ask", {}], "PermissionRequest", "only applies to PreToolUse"))

  it("an unrecognized value: a string, a number, null, an unknown action, a long tuple", () => {
    for (
      const value of ["bogus", "approve", 42, null, undefined, true, ["unknown", {}], ["ok", {}, {}], ["deny", 7], []]
    ) {
      warned(value, "PreToolUse", "unrecognized value")
    }
  })

  it("an object that is not an output of the event", () => {
    warned({ _tag: "Allow" }, "PreToolUse", "not a PreToolUse output")
    warned({ hookSpecificOutput: { hookEventName: "PostToolUse" } }, "PreToolUse", "not a PreToolUse output")
    warned({ continue: "no" }, "Stop", "not a Stop output")
    warned({ behavior: "allow" }, "PreToolUse", "not a PreToolUse output")
  })

  it("options of the wrong type", () => {
    warned(["halt", { stopReason: 5 }], "Stop", "wrong type")
    warned(["deny", { updatedInput: "rm" }], "PreToolUse", "wrong type")
  })

  it("a warning never quotes the value", () => {
    const { warnings } = coerce("sk-live-SECRET", "PreToolUse")
    assert.isFalse(warnings.join(" ").includes("SECRET"))
  })
})

describe("coercion details", () => {
  it("a full output passes through, top-level fields with the event's part", () => {
    const output = {
      suppressOutput: true,
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny" }
    }
    assert.deepStrictEqual(wire(output, "PreToolUse"), output)
    assert.deepStrictEqual(coerce(output, "PreToolUse").warnings, [])
  })

  it("async passes through, with asyncTimeout only when set", () => {
    assert.deepStrictEqual(wire({ async: true }, "PostToolUse"), { async: true })
    assert.deepStrictEqual(wire({ async: true, asyncTimeout: 5000 }, "PostToolUse"), {
      async: true,
      asyncTimeout: 5000
    })
  })

  it("unknown option names are dropped with a warning that names them", () => {
    const { output, warnings } = coerce(["deny", { permissionDecisionReason: "x", colour: "red" }], "PreToolUse")
    assert.deepStrictEqual(toWire(output), {
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "x" }
    })
    assert.isTrue(warnings.some((w) => w.includes(`"colour"`)))
  })

  it("the deprecated [deny, reason] shorthand still works, with a deprecation warning", () => {
    const { output, warnings } = coerce(["deny", "Blocked"], "PreToolUse")
    assert.deepStrictEqual(toWire(output), {
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "deny",
        permissionDecisionReason: "Blocked"
      }
    })
    assert.isTrue(warnings.some((w) => w.includes("deprecated")))
  })

  it("coercePermission: anything but allow or deny warns and denies", () => {
    for (const value of ["ok", ["ok", { updatedInput: {} }], "bogus", 3]) {
      const { output, warnings } = coercePermission(value)
      assert.strictEqual(output.behavior, "deny")
      assert.isTrue(warnings.some((w) => w.includes(`use "allow", "deny"`)))
    }
    assert.deepStrictEqual(coercePermission("allow").output, { behavior: "allow" })
  })

  it("a value with a throwing getter is a warning, not a crash", () => {
    const hostile = {
      get hookSpecificOutput(): never {
        throw new Error("boom")
      }
    }
    const { output, warnings } = coerce(hostile, "PreToolUse")
    assert.strictEqual(output, EMPTY)
    assert.strictEqual(warnings.length, 1)
  })
})

describe("wire format", () => {
  it("nil fields are dropped and names are camelCase", () => {
    assert.deepStrictEqual(toWire({ continue: false, stopReason: undefined, reason: null as unknown as undefined }), {
      continue: false
    })
    assert.deepStrictEqual(toWire({}), {})
    const all = toWire({
      continue: true,
      suppressOutput: true,
      stopReason: "r",
      decision: "block",
      systemMessage: "w",
      reason: "e"
    })
    assert.deepStrictEqual(Object.keys(all).sort(), [
      "continue",
      "decision",
      "reason",
      "stopReason",
      "suppressOutput",
      "systemMessage"
    ])
  })

  it("hookEventName is always present, even on an empty event part", () => {
    for (
      const event of [
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "UserPromptSubmit",
        "Notification",
        "SubagentStart",
        "PreCompact",
        "PermissionRequest"
      ] as const
    ) {
      assert.deepStrictEqual(toWire({ hookSpecificOutput: { hookEventName: event } as never }), {
        hookSpecificOutput: { hookEventName: event }
      })
    }
  })

  it("unknown fields are not written", () => {
    assert.deepStrictEqual(toWire({ continue: true, secret: "x" } as never), { continue: true })
  })
})
