/**
 * The flags Cli.ts reads itself for its direct paths (`claude-hook`, `check`) and the forwarding
 * client's (`claude-hook --gateway`): each plain form gives its values, and anything else is left
 * to effect/cli (undefined) or, for the forwarding client, names what is wrong.
 */
import { assert, describe, it } from "@effect/vitest"
import { HookDeadline } from "@interlock/claude"
import { Effect, Schema } from "effect"
import { deadlineMillis, DEFAULT_TIMEOUT_S, parseForward } from "../src/cli/ClaudeHookForward.ts"
import { directArgs } from "../src/cli/DirectArgs.ts"

describe("directArgs", () => {
  it("reads the plain forms and leaves every other to effect/cli", () => {
    assert.deepStrictEqual(directArgs(["claude-hook"], "claude-hook"), {})
    assert.deepStrictEqual(directArgs(["check", "--no-connect", "-c", "a.json"], "check"), {
      noConnect: true,
      config: "a.json"
    })
    for (
      const args of [
        ["claude-hook", "--help"],
        ["claude-hook", "--config"],
        ["claude-hook", "--config="],
        ["claude-hook", "--config", "--no-connect"],
        ["claude-hook", "--no-connect"],
        ["claude-hook", "-c=a.json"],
        ["check", "--config", "a.json", "-c", "b.json"],
        ["check", "--no-connect", "--no-connect"],
        ["check", "--connect"],
        ["--log-level", "debug", "check"],
        ["serve"]
      ]
    ) assert.isUndefined(directArgs(args, args[0] === "claude-hook" ? "claude-hook" : "check"), args.join(" "))
  })

  it.effect.prop(
    "a config path in any of its three spellings, with --no-connect before or after, reads back as itself",
    [Schema.String, Schema.Int, Schema.Boolean],
    ([file, spelling, before]) =>
      Effect.sync(() => {
        const config = file.replace(/^-+/, "") || "interlock.config.json"
        const given = [["--config", config], ["-c", config], [`--config=${config}`]][Math.abs(spelling) % 3]
        const args = before ? ["check", "--no-connect", ...given] : ["check", ...given, "--no-connect"]
        assert.deepStrictEqual(directArgs(args, "check"), { config, noConnect: true })
      })
  )
})

describe("the forwarding client's flags", () => {
  it("reads --gateway, --timeout and the token from INTERLOCK_TOKEN", () => {
    const options = parseForward(["--gateway=http://127.0.0.1:7331/mcp", "--timeout", "10"], { INTERLOCK_TOKEN: "t" })
    assert.deepStrictEqual(
      typeof options === "string"
        ? options
        : { url: options.gateway.href, timeoutMs: options.timeoutMs, token: options.token },
      {
        url: "http://127.0.0.1:7331/claude/hook",
        timeoutMs: 7500,
        token: "t"
      }
    )
    const defaults = parseForward(["--gateway", "https://gateway.example"], {})
    assert.deepStrictEqual(typeof defaults === "string" ? defaults : [defaults.timeoutMs, defaults.token], [
      HookDeadline.deadlineMillis(DEFAULT_TIMEOUT_S),
      undefined
    ])
  })

  it.effect.prop(
    "the client's deadline is the bridge's deadline for any timeout",
    [Schema.Finite.check(Schema.isBetween({ minimum: 0.001, maximum: 86_400 }))],
    ([seconds]) => Effect.sync(() => assert.strictEqual(deadlineMillis(seconds), HookDeadline.deadlineMillis(seconds)))
  )

  it("names what is wrong with anything else", () => {
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
      [[], "--gateway URL is missing"],
      [["--gateway", "x", "--gateway", "y"], "--gateway is given twice"],
      [["--gateway", "not a url"], "is not a URL"],
      [["--gateway", "file:///tmp/x"], "http or https"],
      [["--gateway", "http://h", "--timeout", "-1"], "--timeout must be a positive number"],
      [["--gateway", "http://h", "--timeout", "soon"], "--timeout must be a positive number"],
      [["--gateway", "http://h", "extra"], "unknown argument \"extra\""]
    ]
    for (const [args, problem] of cases) {
      const parsed = parseForward(args, {})
      assert.isString(parsed, args.join(" "))
      assert.include(parsed, problem)
    }
  })
})
