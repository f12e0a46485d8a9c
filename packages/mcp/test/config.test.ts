import { assert, describe, it } from "@effect/vitest"
import { canonicalName, ConfigError } from "@interlock/core"
import { McpServer } from "@modelcontextprotocol/server"
import { Effect, Schema } from "effect"
import { compileFilter, compileHub, type HubOptions } from "../src/HubConfig.ts"
import { McpHub } from "../src/index.ts"

const rejected = (options: unknown): ConfigError => {
  const out = compileHub(options as HubOptions)
  assert.instanceOf(out, ConfigError)
  return out as ConfigError
}

const stdio = { stdio: { command: "node" } }

describe("hub configuration", () => {
  it("names the place at fault", () => {
    const cases: Array<[unknown, string, string]> = [
      [{ servers: { a: {} } }, "servers.a", "exactly one of stdio, http or memory, got none"],
      [{ servers: { a: { ...stdio, http: { url: "http://127.0.0.1/" } } } }, "servers.a", "got stdio and http"],
      [{ servers: { a: { stdio: { command: " " } } } }, "servers.a.stdio.command", "non-empty string"],
      [{ servers: { a: { stdio: { command: "x", args: ["ok", 3] } } } }, "servers.a.stdio.args", "array of strings"],
      [{ servers: { a: { stdio: { command: "x", env: { A: 1 } } } } }, "servers.a.stdio.env", "string values"],
      [{ servers: { a: { stdio: { command: "x", stderrBytes: -1 } } } }, "servers.a.stdio.stderrBytes", "integer"],
      [{ servers: { a: { http: { url: "ftp://127.0.0.1/" } } } }, "servers.a.http.url", "http or https, not ftp:"],
      [{ servers: { a: { http: { url: "not a url" } } } }, "servers.a.http.url", "absolute"],
      [
        { servers: { a: { http: { url: "http://127.0.0.1/", bearer: "plain" } } } },
        "servers.a.http.bearer",
        "Redacted"
      ],
      [{ servers: { a: { memory: {} } } }, "servers.a.memory", "McpServer"],
      [{ servers: { a: { ...stdio, tools: { deny: [""] } } } }, "servers.a.tools.deny[0]", "empty"],
      [{ servers: { a: { ...stdio, tools: { allow: "x" } } } }, "servers.a.tools.allow", "array"],
      [{ servers: { a: { ...stdio, tools: { block: [] } } } }, "servers.a.tools", "unknown keys: block"],
      [{ servers: { a: { ...stdio, connect: "now" } } }, "servers.a.connect", `"lazy" or "eager"`],
      [{ servers: { a: { ...stdio, protocol: { pin: "latest" } } } }, "servers.a.protocol", "pin"],
      [{ servers: { a: { ...stdio, connectTimeout: -5 } } }, "servers.a.connectTimeout", "positive"],
      [{ servers: { a: { ...stdio, reconnect: 3 } } }, "servers.a.reconnect", "Schedule"],
      [{ servers: { a: { ...stdio, retries: 3 } } }, "servers.a", "unknown keys: retries"],
      [{ servers: { "a/b": stdio } }, `servers."a/b"`, `no "/"`],
      [{ servers: { "": stdio } }, `servers.""`, "non-empty"],
      [{ servers: { "My-Server": stdio, "my_server": stdio } }, "servers.my_server", `same as "My-Server"`],
      [{ servers: [] }, "servers", "keyed by server id"],
      [{ servers: {}, requestTimeout: "soon" }, "requestTimeout", "positive"]
    ]
    for (const [options, path, detail] of cases) {
      const error = rejected(options)
      assert.strictEqual(error.path, path, JSON.stringify(options))
      assert.include(error.detail, detail)
    }
  })

  it("accepts each kind of endpoint", () => {
    const out = compileHub({
      servers: {
        a: stdio,
        b: { http: { url: "http://127.0.0.1:1/mcp" }, connect: "eager", protocol: "legacy" },
        c: { memory: { server: new McpServer({ name: "m", version: "1" }) }, protocol: { pin: "2026-07-28" } }
      }
    })
    assert.notInstanceOf(out, ConfigError)
    assert.deepStrictEqual([...(out as Exclude<typeof out, ConfigError>).servers.keys()], ["a", "b", "c"])
  })

  it.effect("a bad config fails the Layer build with the ConfigError", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Effect.provide(
        Effect.gen(function*() {
          return yield* McpHub
        }),
        McpHub.layer({ servers: { a: { stdio: { command: "" } } } })
      ))
      assert.strictEqual(error._tag, "ConfigError")
    }))

  const words = Schema.Array(Schema.Literals(["read", "write", "file", "dir", "x1", "ß"])).check(Schema.isMinLength(1))
  const spelling = Schema.Array(Schema.Int)

  const spell = (parts: ReadonlyArray<string>, seeds: ReadonlyArray<number>) =>
    parts.map((part, i) => {
      const seed = Math.abs(seeds[i % Math.max(1, seeds.length)] ?? 0)
      const cased = seed % 2 === 0 ? part : part.toUpperCase()
      return i === 0 ? cased : `${"-_."[seed % 3]}${cased}`
    }).join("")

  it.effect.prop(
    "a deny rule covers every loose spelling of the name",
    [words, spelling, spelling],
    ([parts, a, b]) =>
      Effect.sync(() => {
        const written = spell(parts, a)
        const called = spell(parts, b)
        const exposed = compileFilter("tools", "srv", { deny: [written] })
        assert.notInstanceOf(exposed, ConfigError)
        assert.isFalse((exposed as (name: string) => boolean)(called), `${written} must cover ${called}`)
        const allowOnly = compileFilter("tools", "srv", { allow: [`srv/${written}`] }) as (name: string) => boolean
        assert.isTrue(allowOnly(called))
        assert.isFalse(allowOnly(`${called}_extra`))
      })
  )

  it("a deny covers a lookalike spelling of the name (Cyrillic \u0456); an allow does not grant one", () => {
    const exposed = compileFilter("tools", "srv", { deny: ["write_file"] }) as (name: string) => boolean
    assert.isFalse(exposed("wr\u0456te_file"))
    assert.isFalse(exposed("WR\u0406TE-FILE"))
    assert.isTrue(exposed("read_file"))
    const allowOnly = compileFilter("tools", "srv", { allow: ["srv/write_file"] }) as (name: string) => boolean
    assert.isTrue(allowOnly("write_file"))
    assert.isFalse(allowOnly("wr\u0456te_file"))
  })

  it.effect.prop("server ids that are the same loose name are rejected, others accepted", [
    words,
    spelling,
    spelling,
    words
  ], ([parts, a, b, other]) =>
    Effect.sync(() => {
      const first = spell(parts, a)
      const second = spell(parts, b)
      const third = spell(other, a)
      const servers: Record<string, unknown> = { [first]: stdio }
      servers[second] = stdio
      servers[third] = stdio
      const out = compileHub({ servers } as unknown as HubOptions)
      const ids = Object.keys(servers)
      const distinct = new Set(ids.map(canonicalName)).size === ids.length
      assert.strictEqual(out instanceof ConfigError, !distinct)
    }))
})
