/**
 * The bridge as the real Claude Code runs it (the pinned @anthropic-ai/claude-code, `claude -p`), offline: a
 * network namespace with only loopback, a fake Messages API scripted to make Claude call a tool, the README's
 * hooks. Observed from outside: whether the tool ran and what the model got back. Here: rules, `check --claude`
 * and the fail-closed cases; claude-code-mcp.test.ts has the rest.
 */
import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { CLAUDE, readmeSettings, resultText, runClaude, settingsFor, shell } from "./harness.ts"
import { bash, configFolder, done, hookCommand, INTERLOCK, refused, TIMEOUT } from "./project.ts"

const { config, dir, writeJson } = configFolder()

/** The README's snippet, running this repository's bin on the test config with the snippet's --timeout 30. */
const readme = readmeSettings(hookCommand(config, 30))

/** A PreToolUse-only settings file for `command` (the fail-closed cases need only the call's gate). */
const preOnly = (
  command: string,
  options: { readonly timeout?: number; readonly onFailure?: "block" | "unset" } = {}
) => settingsFor(command, { ...options, events: ["PreToolUse"] })

/** Runs Claude with `settings` on a Bash command that writes marker.txt (Bash allowed by Claude itself). */
const attempt = (settings: unknown) =>
  runClaude({ script: [bash("touch marker.txt"), done], settings, args: ["--allowedTools", "Bash"] })

describe("the real Claude Code CLI", () => {
  it("runs offline: a namespace with only loopback, the pinned version", async () => {
    const version = execFileSync(CLAUDE, ["--version"], { encoding: "utf8" })
    const pinned =
      JSON.parse(readFileSync(path.join(import.meta.dirname, "..", "..", "..", "..", "package.json"), "utf8"))
        .devDependencies["@anthropic-ai/claude-code"]
    assert.strictEqual(version.trim(), `${pinned} (Claude Code)`)
    const run = await runClaude({
      script: [bash("echo hi > ran.txt"), done],
      settings: {},
      args: ["--allowedTools", "Bash"]
    })
    assert.deepStrictEqual(run.interfaces, ["lo"])
    assert.strictEqual(run.code, 0, run.stderr)
    assert.isTrue(existsSync(path.join(run.project, "ran.txt")), "with no hooks and Bash allowed, the tool runs")
    assert.strictEqual(JSON.parse(run.stdout).result, "All done.")
  }, TIMEOUT)

  it("deny: a rule's deny stops the tool; the model gets the reason", async () => {
    const run = await runClaude({
      script: [bash("touch denied.txt"), done],
      settings: readme,
      args: ["--allowedTools", "Bash"]
    })
    assert.isFalse(existsSync(path.join(run.project, "denied.txt")), "the denied command did not run")
    assert.strictEqual(run.toolResults.length, 1)
    assert.isTrue(run.toolResults[0]!.is_error)
    assert.include(resultText(run.toolResults[0]!.content), "no policy rule allows this call")
  }, TIMEOUT)

  it("allow: a rule's allow runs the tool, even where Claude Code would have asked", async () => {
    const run = await runClaude({ script: [bash("echo allowed > allowed.txt"), done], settings: readme })
    assert.strictEqual(readFileSync(path.join(run.project, "allowed.txt"), "utf8"), "allowed\n")
    assert.isNotTrue(run.toolResults[0]!.is_error)
  }, TIMEOUT)

  it("ask: the bridge asks; headless there is no one to say yes, so the tool does not run", async () => {
    const run = await runClaude({
      script: [bash("printf asked > asked.txt"), done],
      settings: readme,
      args: ["--allowedTools", "Bash"]
    })
    assert.isFalse(existsSync(path.join(run.project, "asked.txt")))
    assert.isTrue(run.toolResults[0]!.is_error)
    assert.include(resultText(run.toolResults[0]!.content), "printf needs a human")
  }, TIMEOUT)
})

describe("interlock check --claude", () => {
  const check = (settings: unknown) => {
    const file = writeJson(`settings-${Math.random().toString(36).slice(2)}.json`, settings)
    try {
      return {
        code: 0,
        stdout: execFileSync(INTERLOCK[0]!, [...INTERLOCK.slice(1), "check", "--claude", file], { encoding: "utf8" })
      }
    } catch (error) {
      const failed = error as { status: number; stdout: string; stderr: string }
      return { code: failed.status, stdout: `${failed.stdout}${failed.stderr}` }
    }
  }

  it("passes the README's snippet as the tests run it, and fails one that could fail open", () => {
    const ok = check(readme)
    assert.strictEqual(ok.code, 0, ok.stdout)
    assert.include(ok.stdout, "Claude Code settings OK")
    const open = check(settingsFor(hookCommand(config), { onFailure: "unset" }))
    assert.strictEqual(open.code, 1)
    assert.include(open.stdout, `no "onFailure": "block"`)
    assert.include(open.stdout, "hooks.PreToolUse[0].hooks[0]")
  }, TIMEOUT)
})

describe("fail closed in the real host", () => {
  it("a config that does not exist denies", async () => {
    refused(await attempt(preOnly(hookCommand(path.join(dir, "missing.json")))), "could not load its config")
  }, TIMEOUT)

  it("a config that is not JSON denies", async () => {
    writeFileSync(path.join(dir, "broken.json"), "{ not json")
    refused(await attempt(preOnly(hookCommand(path.join(dir, "broken.json")))), "could not load its config")
  }, TIMEOUT)

  it("stdin that is no event: exit 2, which Claude Code reads as a block", async () => {
    refused(await attempt(preOnly(`printf 'not json' | ${hookCommand(config)}`)), "stdin is not valid JSON")
  }, TIMEOUT)

  it("a hook that hangs: the bridge denies at its own deadline, before Claude Code's timeout kills it", async () => {
    const hanging = writeJson("hanging.json", {
      servers: {},
      audit: { path: ":memory:" },
      policy: { default: "allow" },
      claude: {
        hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "sleep 600", timeout: 600 }] }] }
      }
    })
    const run = await attempt(preOnly(hookCommand(hanging, 10), { timeout: 10 }))
    // The bridge's answer, not Claude Code's kill ("timed out; blocking because onFailure is block").
    refused(run, "did not decide before its deadline")
  }, TIMEOUT)

  it(
    "Claude Code's own rule: a hook that fails (exit 1, a missing bin) lets the tool run unless onFailure is block",
    async () => {
      const missing = shell([path.join(dir, "node_modules", ".bin", "interlock"), "claude-hook", "--config", config])
      refused(await attempt(preOnly(missing)), "blocking because onFailure is \"block\"")
      const open = await attempt(preOnly(missing, { onFailure: "unset" }))
      assert.isTrue(
        existsSync(path.join(open.project, "marker.txt")),
        "without onFailure, Claude Code ran the tool although its hook failed"
      )
    },
    TIMEOUT
  )
})
