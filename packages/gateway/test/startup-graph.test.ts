/**
 * What `interlock claude-hook` loads, as Claude Code runs it on every tool call: for a config with
 * rules, built-in hooks and a SQLite audit store, neither the HTTP server, nor Postgres, nor the MCP
 * client, nor OTLP, both from the sources (bin/interlock.ts) and from the bundle the published bin
 * runs (built here from the sources into a temporary folder, so the test needs no `npm run build`), and
 * from the claude-hook bundle the bin runs through its code cache. A config that asks for Postgres does
 * load it. No timing here: bench/startup.ts measures.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { bundle, HOOK_DIR } from "../scripts/bundle.ts"
import { SOURCES_BIN } from "./cli-process.ts"
import { NODE } from "./e2e.ts"
import { HOOK_CONFIG } from "./hook-config.ts"

const RECORDER = path.join(import.meta.dirname, "fixtures", "record-modules.ts")

/**
 * What the hook path must not load, by what it is; each pattern is tested on module URLs and on the bundle's original
 * sources.
 */
const FORBIDDEN: Record<string, RegExp> = {
  "the HTTP server": new RegExp(
    [
      String.raw`^node:https?$`,
      String.raw`[\\/]gateway[\\/](src|dist)[\\/](?:[\w-]+[\\/])*(HttpFront|FrontServer|HttpSessionTransport)\.`,
      String.raw`@modelcontextprotocol[\\/]node`,
      "NodeHttpServer"
    ].join("|")
  ),
  "Postgres": /@effect[\\/]sql-pg|[\\/]node_modules[\\/]pg(-[a-z-]+)?[\\/]|[\\/]PgAuditStore\./,
  "the MCP client": /@modelcontextprotocol[\\/](client|core|server)|[\\/]packages[\\/]mcp[\\/]|[\\/]McpHub\./,
  "OTLP":
    /observability[\\/]Otlp|@effect[\\/]opentelemetry|[\\/]gateway[\\/](src|dist)[\\/](?:[\w-]+[\\/])*OtlpExport\./
}

const EVENT = JSON.stringify({
  session_id: "s1",
  transcript_path: "/t.jsonl",
  cwd: "/",
  permission_mode: "default",
  hook_event_name: "PreToolUse",
  tool_name: "WebFetch",
  tool_input: { url: "https://example.invalid" },
  tool_use_id: "toolu_1"
})

const work = mkdtempSync(path.join(tmpdir(), "interlock-startup-graph-"))
const bundled = path.join(work, "bundle")
afterAll(() => rmSync(work, { recursive: true, force: true }))
beforeAll(async () => {
  await bundle({ from: "source", outDir: bundled })
  writeFileSync(
    path.join(work, "run.mjs"),
    `(await import(${JSON.stringify(path.join(bundled, "Cli.js"))})).main(process.argv.slice(2))\n`
  )
  // The claude-hook bundle as ClaudeHookBundle.ts runs it, its code caches in `hook-caches`, one per chunk it loads.
  writeFileSync(
    path.join(work, "run-hook.mjs"),
    `import { requireCached } from ${
      JSON.stringify(path.join(import.meta.dirname, "..", "src", "cli", "CodeCache.ts"))
    }\n` +
      `requireCached(${JSON.stringify(path.join(bundled, HOOK_DIR, "ClaudeHook.cjs"))}, ${
        JSON.stringify(path.join(work, "hook-caches"))
      }).main({ config: process.argv[4] })\n`
  )
  writeFileSync(path.join(work, "sqlite.json"), JSON.stringify(HOOK_CONFIG))
  writeFileSync(
    path.join(work, "postgres.json"),
    JSON.stringify({ ...HOOK_CONFIG, audit: { postgres: "postgres://interlock@127.0.0.1:1/audit" } })
  )
}, 120_000)

/**
 * Runs `node [flags] script claude-hook --config <config>` (or `args`) on the event with the recorder; its stdout and
 * the modules it loaded.
 */
const loadedBy = (
  flags: ReadonlyArray<string>,
  script: string,
  config: string,
  args = ["claude-hook", "--config", path.join(work, config)]
) =>
  new Promise<{ stdout: string; stderr: string; modules: ReadonlyArray<string> }>((resolve, reject) => {
    const record = path.join(work, `${path.basename(script)}-${config}-${args[0]}.txt`)
    const child = execFile(NODE, [...flags, "--import", RECORDER, script, ...args], {
      cwd: work,
      timeout: 60_000,
      env: { ...process.env, NODE_OPTIONS: "", INTERLOCK_RECORD_MODULES: record }
    }, (error, stdout, stderr) => {
      if (error?.killed) return reject(new Error(`claude-hook did not answer\n${stderr}`))
      resolve({ stdout, stderr, modules: readFileSync(record, "utf8").split("\n").filter((line) => line !== "") })
    })
    child.stdin?.end(EVENT)
  })

/** The original sources of the bundle's chunks among `modules` (from their source maps), and the rest as they are. */
const originals = (modules: ReadonlyArray<string>): ReadonlyArray<string> =>
  modules.flatMap((url) => {
    if (!url.startsWith("file:") || !fileURLToPath(url).startsWith(bundled)) return [url]
    // Rolldown's own helpers (its runtime chunk) come from no source, and have no map.
    if (path.basename(url).startsWith("rolldown-runtime-")) return []
    const map = JSON.parse(readFileSync(`${fileURLToPath(url)}.map`, "utf8")) as { sources: ReadonlyArray<string> }
    return map.sources.map((source) => path.resolve(bundled, source))
  })

const forbiddenIn = (modules: ReadonlyArray<string>) =>
  Object.entries(FORBIDDEN).flatMap(([what, pattern]) =>
    modules.filter((module) => pattern.test(module)).map((module) => `${what}: ${module}`)
  )

const denied = (stdout: string) => JSON.parse(stdout).hookSpecificOutput?.permissionDecision

/** The original sources of a bundled run: SQLite's store among them, and nothing forbidden. */
const assertSqliteOnly = (sources: ReadonlyArray<string>) => {
  assert.include(sources, "node:sqlite")
  assert.isTrue(
    sources.some((source) => source.endsWith(path.join("gateway", "src", "audit", "SqliteAuditStore.ts"))),
    "the source maps name the audit store"
  )
  assert.deepStrictEqual(forbiddenIn(sources), [])
}

describe("what claude-hook loads", () => {
  it("from the sources, with a SQLite audit store: no HTTP server, Postgres, MCP client or OTLP", async () => {
    const { modules, stdout } = await loadedBy(["--conditions=@interlock/source"], SOURCES_BIN, "sqlite.json")
    assert.strictEqual(denied(stdout), "deny")
    assert.include(modules, "node:sqlite")
    assert.isTrue(
      modules.some((url) => url.endsWith("/gateway/src/audit/SqliteAuditStore.ts")),
      "the recorder saw the audit store"
    )
    assert.deepStrictEqual(forbiddenIn(modules), [])
  }, 60_000)

  it("from the bundle, with a SQLite audit store: none of them either, in the chunks it loads", async () => {
    const { modules, stdout } = await loadedBy([], path.join(work, "run.mjs"), "sqlite.json")
    assert.strictEqual(denied(stdout), "deny")
    assertSqliteOnly(originals(modules))
  }, 60_000)

  it("from the claude-hook bundle, with a SQLite audit store: none of them in the chunks it loads", async () => {
    const { modules, stdout } = await loadedBy([], path.join(work, "run-hook.mjs"), "sqlite.json")
    assert.strictEqual(denied(stdout), "deny")
    // vm.Script runs the chunks, so no load hook sees them: each one loaded has its cache, named after it.
    const chunks = readdirSync(path.join(work, "hook-caches")).map((name) => name.split(".cjs.")[0])
    assert.include(chunks, "ClaudeHook")
    assertSqliteOnly([
      ...modules,
      ...chunks.filter((chunk) => chunk !== "rolldown-runtime").flatMap((chunk) =>
        (JSON.parse(readFileSync(path.join(bundled, HOOK_DIR, `${chunk}.cjs.map`), "utf8")) as {
          sources: ReadonlyArray<string>
        }).sources.map((source) => path.resolve(bundled, HOOK_DIR, source))
      )
    ])
  }, 60_000)

  it(
    "claude-hook --gateway (the forwarding client) loads no effect and no package of ours but itself; with no " +
      "gateway it denies",
    async () => {
      const { modules, stderr } = await loadedBy([], SOURCES_BIN, "none", [
        "claude-hook",
        "--gateway",
        "http://127.0.0.1:9",
        "--timeout",
        "5"
      ])
      assert.include(stderr, "cannot reach the gateway")
      const ours = modules.filter((url) => url.startsWith("file:") && !url.includes("record-modules"))
      assert.deepStrictEqual(ours.map((url) => path.basename(fileURLToPath(url))).sort(), [
        "ClaudeHookForward.ts",
        "interlock.js",
        "interlock.ts"
      ])
      assert.deepStrictEqual(modules.filter((url) => /effect|@interlock|@modelcontextprotocol/.test(url)), [])
    },
    60_000
  )

  it("check on the bundle's direct path loads no effect/cli parser", async () => {
    const { modules, stdout } = await loadedBy([], path.join(work, "run.mjs"), "sqlite.json", [
      "check",
      "--config",
      path.join(work, "sqlite.json"),
      "--no-connect"
    ])
    assert.include(stdout, "Config OK")
    assert.deepStrictEqual(
      originals(modules).filter((source) => /effect[\\/]dist[\\/]cli[\\/](Command|Flag|Argument)\.js$/.test(source)),
      []
    )
  }, 60_000)

  it("a config whose audit store is Postgres loads Postgres, and still answers", async () => {
    const { modules, stdout } = await loadedBy(["--conditions=@interlock/source"], SOURCES_BIN, "postgres.json")
    assert.isTrue(modules.some((url) => FORBIDDEN.Postgres.test(url)), "Postgres was loaded")
    assert.strictEqual(denied(stdout), "deny")
  }, 60_000)
})
