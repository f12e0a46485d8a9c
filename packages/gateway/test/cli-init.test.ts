import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import * as path from "node:path"
import { cliIn } from "./cli-process.ts"
import { echoServer } from "./e2e.ts"

const { cli, dir, writeConfig } = cliIn("interlock-cli-init-")

describe("interlock init and check", () => {
  it.live(
    "init writes a commented config that check accepts, prints the next commands, and keeps an existing file " +
      "unless --force",
    () =>
      Effect.gen(function*() {
        const help = yield* cli(["init", "--help"])
        assert.strictEqual(help.code, 0)
        assert.include(help.stdout, "interlock init")
        assert.include(help.stdout, "--force")
        const echo = `echo=${[echoServer.command, ...echoServer.args].join(" ")}`
        const written = yield* cli(["init", "--server", echo])
        assert.strictEqual(written.code, 0, written.stderr)
        assert.include(written.stdout, "Wrote interlock.config.jsonc.")
        assert.match(written.stdout, /\n {2}\S+ check --config interlock\.config\.jsonc /)
        assert.match(written.stdout, /\n {2}\S+ serve --config interlock\.config\.jsonc /)
        assert.notMatch(written.stdout, /npx interlock/)
        const text = readFileSync(path.join(dir, "interlock.config.jsonc"), "utf8")
        assert.match(text, /^\/\/ /m)
        assert.include(text, `"default": "deny"`)
        assert.include(text, `"match": "echo/*", "decision": "ask"`)
        assert.include(text, `"audit": { "path": ".interlock/audit.db"`)

        // check finds it on its own (interlock.config.jsonc is a default name), connects, and lists the tools.
        const checked = yield* cli(["check"])
        assert.strictEqual(checked.code, 0, checked.stderr)
        assert.include(checked.stdout, "echo-ask")
        assert.match(checked.stdout, /Exposed tools \(\d+\):[\s\S]*\n {2}write_file\n/)

        const again = yield* cli(["init", "--server", "other=npx x"])
        assert.strictEqual(again.code, 1)
        assert.include(again.stderr, "exists already: pass --force")
        assert.strictEqual(readFileSync(path.join(dir, "interlock.config.jsonc"), "utf8"), text)

        const forced = yield* cli([
          "init",
          "--force",
          "--config",
          "interlock.config.jsonc",
          "--name",
          "fs",
          "--",
          "npx",
          "-y",
          "@modelcontextprotocol/server-filesystem",
          "./sandbox"
        ])
        assert.strictEqual(forced.code, 0, forced.stderr)
        const replaced = readFileSync(path.join(dir, "interlock.config.jsonc"), "utf8")
        assert.include(
          replaced,
          `"fs": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "./sandbox"] }`
        )
        assert.strictEqual((yield* cli(["check", "--no-connect"])).code, 0)

        const bad = yield* cli(["init", "--config", "x.json", "--server", "no name"])
        assert.strictEqual(bad.code, 1)
        assert.include(bad.stderr, "--server")
      }),
    90_000
  )

  it.live(
    "check lists every problem with its path, suggests the nearest key, and aligns its tables",
    () =>
      Effect.gen(function*() {
        const file = writeConfig("typos.json", {
          servres: { echo: echoServer },
          polcy: {},
          audit: { pth: "a.db" },
          listen: { http: 7 }
        })
        const { code, stderr } = yield* cli(["check", "--config", file])
        assert.strictEqual(code, 1)
        assert.include(stderr, "5 problems:")
        assert.match(stderr, /servres {2,}is not a known key \(did you mean "servers"\?\)/)
        assert.match(stderr, /servers {2,}is required/)
        assert.match(stderr, /polcy {2,}is not a known key \(did you mean "policy"\?\)/)
        assert.match(stderr, /audit\.pth {2,}is not a known key \(did you mean "path"\?\)/)
        assert.match(stderr, /listen\.http {2,}has the wrong type/)
        assert.notInclude(stderr, "more problem")
        // Aligned: every problem's message starts in the same column.
        const lines = stderr.split("\n").filter((line) => / is (not|required)| has /.test(line))
        assert.strictEqual(new Set(lines.map((line) => line.search(/ {2}(is|has) /))).size, 1)

        const good = writeConfig("rules.json", {
          servers: { echo: echoServer, "a-much-longer-name": echoServer },
          policy: {
            default: "allow",
            rules: [{ id: "r", match: "echo/write_file", decision: "deny" }, {
              id: "a-longer-rule-id",
              match: "*",
              decision: "ask",
              reason: "why"
            }]
          }
        })
        const described = yield* cli(["check", "--no-connect", "--config", good])
        assert.strictEqual(described.code, 0, described.stderr)
        const table = described.stdout.split("\n")
        const servers = table.filter((line) => / stdio /.test(line))
        assert.strictEqual(new Set(servers.map((line) => line.indexOf(" stdio "))).size, 1)
        const rules = table.filter((line) => /^ {2}(RULE|r |a-longer)/.test(line))
        assert.strictEqual(rules.length, 3)
        assert.strictEqual(new Set(rules.map((line) => line.search(/(DECISION|deny|ask)/))).size, 1)
      }),
    60_000
  )
})
