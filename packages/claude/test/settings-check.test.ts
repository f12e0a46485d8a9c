/** `SettingsCheck.checkSettings`: the bridge hooks of a settings.json that could fail open. */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { readFileSync } from "node:fs"
import * as path from "node:path"
import { bridgeSettings, SettingsCheck } from "../src/index.ts"

const BRIDGE = "/repo/node_modules/.bin/interlock claude-hook --config /repo/interlock.config.json --timeout 30"
const hook = (fields: Record<string, unknown> = {}) => ({
  type: "command",
  command: BRIDGE,
  timeout: 30,
  onFailure: "block",
  ...fields
})
const settings = (pre: Record<string, unknown>, matcher: string | undefined = "*") => ({
  hooks: Object.fromEntries(["PreToolUse", "PermissionRequest", "PostToolUse", "PostToolUseFailure"].map((event) => [
    event,
    [{ ...(matcher === undefined ? {} : { matcher }), hooks: [event === "PreToolUse" ? hook(pre) : hook()] }]
  ]))
})
const check = (value: unknown, exists: (file: string) => boolean = () => true) =>
  SettingsCheck.checkSettings(value, exists)
const errors = (value: unknown, exists?: (file: string) => boolean) =>
  check(value, exists).filter((finding) => finding.level === "error")

describe("SettingsCheck", () => {
  it("the README's snippet passes", () => {
    const readme = readFileSync(path.join(import.meta.dirname, "..", "README.md"), "utf8")
    const snippet = /```json\n(\{\n {2}"hooks"[\s\S]*?)\n```/.exec(readme)?.[1]
    assert.isDefined(snippet)
    assert.deepStrictEqual(check(JSON.parse(snippet!)), [])
    assert.deepStrictEqual(
      JSON.parse(snippet!),
      bridgeSettings({
        bin: `"$CLAUDE_PROJECT_DIR"/node_modules/.bin/interlock`,
        config: "/path/interlock.config.json",
        timeout: 30
      })
    )
  })

  it.effect.prop("bridgeSettings passes the check for any timeout", [
    Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 86_400 }))
  ], ([timeout]) =>
    Effect.sync(() => {
      assert.deepStrictEqual(
        check(
          bridgeSettings({ bin: "/repo/node_modules/.bin/interlock", config: "/repo/interlock.config.json", timeout })
        ),
        []
      )
    }))

  it("a well-formed set of hooks passes, with or without a matcher", () => {
    assert.deepStrictEqual(check(settings({})), [])
    assert.deepStrictEqual(check(settings({}, undefined)), [])
  })

  it("no onFailure block, no timeout, async: errors at the hook's path", () => {
    const found = errors(settings({ onFailure: undefined, timeout: undefined, async: true }))
    assert.deepStrictEqual(found.map((finding) => finding.path), [
      "hooks.PreToolUse[0].hooks[0]",
      "hooks.PreToolUse[0].hooks[0]",
      "hooks.PreToolUse[0].hooks[0]"
    ])
    assert.match(found[0]!.message, /onFailure/)
    assert.match(found[1]!.message, /async/)
    assert.match(found[2]!.message, /no "timeout"/)
    assert.lengthOf(errors(settings({ onFailure: "continue" })), 1)
  })

  it(
    "a timeout not above the bridge's deadline is an error; a missing --timeout is a warning when the timeout " +
      "leaves room",
    () => {
      assert.match(
        errors(settings({ timeout: 10 }))[0]!.message,
        /not above the bridge's deadline \(it has --timeout 30\)/
      )
      const noFlag = BRIDGE.replace(" --timeout 30", "")
      assert.match(errors(settings({ command: noFlag, timeout: 30 }))[0]!.message, /assumes 60 s/)
      const roomy = check(settings({ command: noFlag, timeout: 120 }))
      assert.deepStrictEqual(roomy.map((finding) => finding.level), ["warning"])
      assert.match(errors(settings({ command: `${noFlag} --timeout=abc` }))[0]!.message, /--timeout/)
    }
  )

  it("a bare npx interlock, no --config, a config that does not exist", () => {
    assert.match(
      errors(settings({ command: "npx interlock claude-hook --config /c.json --timeout 30" }))[0]!.message,
      /bare `npx interlock`/
    )
    assert.deepStrictEqual(
      errors(settings({ command: "npx --no-install @interlock/gateway claude-hook --config /c.json --timeout 30" })),
      []
    )
    assert.match(errors(settings({ command: "/bin/interlock claude-hook --timeout 30" }))[0]!.message, /no --config/)
    assert.match(errors(settings({}), () => false)[0]!.message, /does not exist/)
    const quoted = errors(
      settings({ command: `'/my dir/interlock' claude-hook --config "$CLAUDE_PROJECT_DIR/c.json" --timeout 30` }),
      (file) => file !== "/c.json"
    )
    assert.deepStrictEqual(quoted, [], "a config path with a variable is not looked up")
  })

  it("a forwarding hook (--gateway) needs no --config, and must not have one", () => {
    assert.deepStrictEqual(
      errors(settings({ command: "/bin/interlock claude-hook --gateway http://127.0.0.1:7331 --timeout 30" })),
      []
    )
    assert.match(
      errors(
        settings({
          command: "/bin/interlock claude-hook --gateway http://127.0.0.1:7331 --config /c.json --timeout 30"
        })
      )[0]!.message,
      /both --gateway and --config/
    )
    const readme = readFileSync(path.join(import.meta.dirname, "..", "README.md"), "utf8")
    const forwarding = /```json\n(\{\n {2}"env"[\s\S]*?)\n```/.exec(readme)?.[1]
    assert.isDefined(forwarding)
    const pre = errors(JSON.parse(forwarding!)).filter((finding) => !finding.message.startsWith("a matcher"))
    assert.deepStrictEqual(pre, [], "the README's forwarding entry is safe")
  })

  it("a matcher that misses tools: an error for PreToolUse, a warning for the other tool events", () => {
    const narrow = check(settings({}, "Bash|Read"))
    assert.deepStrictEqual(narrow.map((finding) => [finding.path, finding.level]), [
      ["hooks.PreToolUse", "error"],
      ["hooks.PermissionRequest", "warning"],
      ["hooks.PostToolUse", "warning"],
      ["hooks.PostToolUseFailure", "warning"]
    ])
    assert.match(narrow[0]!.message, /"Bash\|Read"/)
    assert.match(errors({ hooks: {} })[0]!.message, /no hook runs the bridge/)
  })

  it("not a settings file, and disableAllHooks", () => {
    assert.deepStrictEqual(errors([1]).map((finding) => finding.path), ["$"])
    assert.deepStrictEqual(errors({ hooks: { PreToolUse: "x" } }).map((finding) => finding.path), ["$"])
    assert.include(errors({ ...settings({}), disableAllHooks: true }).map((finding) => finding.path), "disableAllHooks")
  })

  it("words: quotes group, flags are found", () => {
    assert.deepStrictEqual(SettingsCheck.words(`"$CLAUDE_PROJECT_DIR"/bin/x claude-hook --config 'a b.json'`), [
      "$CLAUDE_PROJECT_DIR/bin/x",
      "claude-hook",
      "--config",
      "a b.json"
    ])
  })
})
