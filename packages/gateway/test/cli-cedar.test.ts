/**
 * `interlock check` with a Cedar policy: a broken policy fails with its file:line:column before
 * any server starts; a policy that misnames an argument fails validation against the schema
 * generated from the live listing; a good one passes. `interlock schema --cedar` prints that
 * schema, each tool's arguments in `context.args`. All through the real CLI over a real server.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { writeFileSync } from "node:fs"
import * as path from "node:path"
import { cliIn } from "./cli-process.ts"
import { echoServer } from "./e2e.ts"

const { cli, dir, writeConfig } = cliIn("interlock-cli-cedar-")

const withPolicy = (name: string, text: string) => {
  writeFileSync(path.join(dir, `${name}.cedar`), text)
  return writeConfig(`${name}.json`, {
    servers: { echo: echoServer },
    policy: { cedar: `${name}.cedar` },
    audit: { enabled: false }
  })
}

describe("interlock check and schema with a Cedar policy", () => {
  it.live("a policy that does not parse fails check with its file, line and column", () =>
    Effect.gen(function*() {
      const config = withPolicy(
        "broken",
        `@id("ok") permit(principal, action, resource);\n\nforbid(principal, action, resource)\n  when { ` +
          `context.args.text like };\n`
      )
      const { code, stderr } = yield* cli(["check", "--config", config, "--no-connect"])
      assert.strictEqual(code, 1, stderr)
      assert.include(stderr, `${path.join(dir, "broken.cedar")}:4:`)
      assert.include(stderr, "unexpected token")
    }), 60_000)

  it.live(
    "check validates against the live listing's schema: a misnamed argument is an error with its line",
    () =>
      Effect.gen(function*() {
        const config = withPolicy(
          "misnamed",
          `@id("echo")\npermit(principal, action == Interlock::Action::"callTool", resource == ` +
            `Interlock::Tool::"echo/echo")\n  when { context.args.txet == "hi" };\n`
        )
        const { code, stderr } = yield* cli(["check", "--config", config])
        assert.strictEqual(code, 1, stderr)
        assert.match(stderr, /misnamed\.cedar:3:\d+: policy echo: .*txet/)
      }),
    60_000
  )

  it.live(
    "a valid policy passes check, and schema --cedar prints the listing's Cedar schema",
    () =>
      Effect.gen(function*() {
        const config = withPolicy(
          "good",
          `@id("echo")\npermit(principal, action == Interlock::Action::"callTool", resource == ` +
            `Interlock::Tool::"echo/echo")\n  when { context.args.text like "hi*" };\n`
        )
        const checked = yield* cli(["check", "--config", config])
        assert.strictEqual(checked.code, 0, checked.stderr)
        assert.include(checked.stdout, "Policy: Cedar good.cedar")
        assert.match(checked.stdout, /Cedar policy valid against the schema of \d+ listed tools?/)
        const schema = yield* cli(["schema", "--cedar", "--config", config])
        assert.strictEqual(schema.code, 0, schema.stderr)
        assert.include(schema.stdout, "namespace Interlock")
        assert.match(schema.stdout, /action "?callTool"? appliesTo/)
        assert.match(schema.stdout, /text\?: (__cedar::)?String/)
      }),
    60_000
  )
})
