/**
 * `check` warns about an `npx NAME` server whose unscoped NAME is not installed where the server
 * runs (npx would fetch whatever the registry holds under that name), and not about a scoped
 * package, an installed bin, or the default example as the README runs it.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { npxPackages } from "../src/cli/NpxCheck.ts"
import { cliIn } from "./cli-process.ts"

const { cli, dir, writeConfig } = cliIn("interlock-npx-check-")
const EXAMPLE = path.join(import.meta.dirname, "..", "..", "..", "examples", "default", "interlock.config.json")

describe("check and npx servers", () => {
  it.live(
    "an unscoped npx package that is not installed here is warned about, on stderr, naming the server",
    () =>
      Effect.gen(function*() {
        const file = writeConfig("unscoped.json", {
          servers: { files: { command: "npx", args: ["-y", "mcp-server-nobody-installed", "./sandbox"] } }
        })
        const { code, stdout, stderr } = yield* cli(["check", "--no-connect", "--config", file])
        assert.strictEqual(code, 0, stderr)
        assert.include(stderr, "servers.files")
        assert.include(stderr, `the public package "mcp-server-nobody-installed"`)
        assert.notInclude(stdout, "Warning")
      }),
    60_000
  )

  it.live("a scoped package, an installed bin and the default example get no warning", () =>
    Effect.gen(function*() {
      mkdirSync(path.join(dir, "node_modules", ".bin"), { recursive: true })
      writeFileSync(path.join(dir, "node_modules", ".bin", "local-server"), "")
      const file = writeConfig("fine.json", {
        servers: {
          scoped: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "."] },
          installed: { command: "npx", args: ["local-server"] },
          node: { command: "node", args: ["server.js"] }
        }
      })
      for (const config of [file, EXAMPLE]) {
        const { code, stderr } = yield* cli(["check", "--no-connect", "--config", config])
        assert.strictEqual(code, 0, stderr)
        assert.notInclude(stderr, "Warning", config)
      }
    }), 60_000)

  it("the packages of an npx command line: --package values, else the first positional argument", () => {
    assert.deepStrictEqual(npxPackages(["-y", "pkg@1.2.3", "--flag"]), ["pkg@1.2.3"])
    assert.deepStrictEqual(npxPackages(["-p", "a", "--package=b", "cmd"]), ["a", "b"])
    assert.deepStrictEqual(npxPackages(["--yes", "--", "tool", "x"]), ["tool"])
    assert.deepStrictEqual(npxPackages(["-y"]), [])
  })
})
