/**
 * examples/default as its README describes it, through the real CLI over stdio with an SDK client
 * as the host: `secrets.txt` reads redacted (a relative path is the filesystem server's, resolved
 * against its sandbox), `sandbox/secrets.txt` is not there, the deny rule holds. And the gateway
 * README's path rule (`paths.base` on the server, `notWithin: "."`) agrees with where the server
 * reads: it lets `secrets.txt` through and denies what leaves the sandbox.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { blockEnv, ROOT, scratchDir, WORKSPACE_BIN } from "./Workspace.ts"

const EXAMPLE = path.join(ROOT, "examples", "default")
const BIN = path.join(ROOT, "packages", "gateway", "bin", "interlock.js")
const dir = scratchDir("default-example-")
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The parts of the example's config the tests edit. */
interface ExampleConfig {
  readonly servers: { readonly files: { paths?: unknown } }
  readonly policy: { readonly rules: Array<unknown> }
}

/**
 * A copy of examples/default (so its audit file is written there), with `edit` applied to its config; the config's
 * path.
 */
const copyOfExample = (name: string, edit: (config: ExampleConfig) => void = () => undefined) => {
  const copy = path.join(dir, name)
  cpSync(EXAMPLE, copy, { recursive: true, filter: (source) => !source.includes(".interlock") })
  const file = path.join(copy, "interlock.config.json")
  const config: ExampleConfig = JSON.parse(readFileSync(file, "utf8"))
  edit(config)
  writeFileSync(file, JSON.stringify(config, null, 2))
  return file
}

/** Connects an SDK client to `interlock serve --stdio` on the config, runs `use`, closes. */
const asHost = async <A>(
  config: string,
  use: (
    call: (name: string, args: Record<string, unknown>) => Promise<{ isError: boolean; text: string }>
  ) => Promise<A>
) => {
  const client = new Client({ name: "default-example-host", version: "1.0.0" })
  await client.connect(
    new StdioClientTransport({
      command: path.join(WORKSPACE_BIN, "node"),
      args: [BIN, "serve", "--stdio", "--config", config],
      cwd: path.dirname(config),
      env: blockEnv([]) as Record<string, string>,
      stderr: "pipe"
    })
  )
  try {
    return await use(async (name, args) => {
      const result = await client.callTool({ name, arguments: args })
      const content = (result.content ?? []) as Array<{ text?: string }>
      return { isError: result.isError === true, text: content.map((block) => block.text ?? "").join("") }
    })
  } finally {
    await client.close()
  }
}

describe("examples/default, as its README says", () => {
  it("reads secrets.txt redacted, finds no sandbox/secrets.txt, and denies get-env", async () => {
    await asHost(copyOfExample("as-is"), async (call) => {
      const secrets = await call("files__read_text_file", { path: "secrets.txt" })
      assert.isFalse(secrets.isError, secrets.text)
      assert.include(secrets.text, "A fake key for the redaction demo: [REDACTED]")
      assert.notInclude(secrets.text, "sk-demo")
      assert.notInclude(secrets.text, "AKIAIOSFODNN7EXAMPLE")
      const doubled = await call("files__read_text_file", { path: "sandbox/secrets.txt" })
      assert.isTrue(doubled.isError)
      assert.include(doubled.text, "ENOENT")
      assert.include(doubled.text, path.join("sandbox", "sandbox", "secrets.txt"))
      const env = await call("everything__get-env", {})
      assert.isTrue(env.isError)
      assert.include(env.text, "the environment is private")
    })
  }, 60_000)

  it("the gateway README's path rule places paths where server-filesystem reads them", async () => {
    const rule = (root: string) => ({
      id: "sandbox-only",
      match: "files/read_text_file",
      decision: "deny",
      reason: "outside the sandbox",
      when: { args: { path: { notWithin: root } } }
    })
    await asHost(
      copyOfExample("with-base", (config) => {
        config.servers.files.paths = { base: "./sandbox" }
        config.policy.rules.unshift(rule("."))
      }),
      async (call) => {
        const inside = await call("files__read_text_file", { path: "secrets.txt" })
        assert.isFalse(inside.isError, inside.text)
        assert.include(inside.text, "[REDACTED]")
        const outside = await call("files__read_text_file", { path: "../interlock.config.json" })
        assert.isTrue(outside.isError)
        assert.include(outside.text, "outside the sandbox")
      }
    )
    // Without `paths.base` the gateway places paths beside the config, not where the server reads:
    // the rule denies the sandbox's own file and passes a path that the server reads as sandbox/sandbox/.
    await asHost(
      copyOfExample("without-base", (config) => config.policy.rules.unshift(rule("sandbox"))),
      async (call) => {
        const misplaced = await call("files__read_text_file", { path: "secrets.txt" })
        assert.isTrue(misplaced.isError)
        assert.include(misplaced.text, "outside the sandbox")
        const passed = await call("files__read_text_file", { path: "sandbox/secrets.txt" })
        assert.isTrue(passed.isError)
        assert.include(passed.text, "ENOENT")
      }
    )
  }, 90_000)
})
