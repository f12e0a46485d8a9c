/**
 * The plain `claude-hook` as the published bin runs it: bin/interlock.js in a copy of the package whose dist/ is
 * built here from the sources (the bundles, and the modules the bin loads first), so the test needs no build. It
 * answers as the sources do (a rule, a redaction, a Cedar policy), writes its audit rows and its private code
 * caches, and answers the same when a cache is corrupted, stale, public or foreign; a bundle that does not load exits
 * 2.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync
} from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { build } from "rolldown"
import { bundle, HOOK_DIR } from "../scripts/bundle.ts"
import * as SqliteAuditStore from "../src/audit/SqliteAuditStore.ts"
import { DIR_MODE, FILE_MODE, RUNS_THAT_WRITE } from "../src/cli/CodeCache.ts"
import { NODE } from "./e2e.ts"
import { HOOK_CONFIG } from "./hook-config.ts"

const PACKAGE = path.join(import.meta.dirname, "..")
const SOURCES_BIN = path.join(PACKAGE, "bin", "interlock.ts")
const work = mkdtempSync(path.join(tmpdir(), "interlock-hook-bundle-"))
const copy = path.join(work, "package")
const BIN = path.join(copy, "bin", "interlock.js")
const HOOK = path.join(copy, "dist", "bundle", HOOK_DIR)
const cache = path.join(work, "cache")
const caches = path.join(cache, "interlock", "code-cache")
const app = path.join(work, "app")
const db = path.join(app, "audit.db")
afterAll(() => rmSync(work, { recursive: true, force: true }))

beforeAll(async () => {
  mkdirSync(path.join(copy, "bin"), { recursive: true })
  copyFileSync(path.join(PACKAGE, "package.json"), path.join(copy, "package.json"))
  copyFileSync(path.join(PACKAGE, "bin", "interlock.js"), BIN)
  symlinkSync(path.join(PACKAGE, "..", "..", "node_modules"), path.join(copy, "node_modules"))
  await bundle({ from: "source", outDir: path.join(copy, "dist", "bundle") })
  // What the bin imports before a bundle, where package.json's imports find them (tsc puts them there in a build).
  await build({
    cwd: PACKAGE,
    input: {
      "cli/ClaudeHookBundle": path.join(PACKAGE, "src", "cli", "ClaudeHookBundle.ts"),
      "cli/ClaudeHookForward": path.join(PACKAGE, "src", "cli", "ClaudeHookForward.ts"),
      "config/ConfigNames": path.join(PACKAGE, "src", "config", "ConfigNames.ts")
    },
    platform: "node",
    external: [/^node:/, /ClaudeHookLocal/],
    logLevel: "warn",
    output: { dir: path.join(copy, "dist"), format: "esm", entryFileNames: "[name].js" }
  })
  mkdirSync(app)
  writeFileSync(path.join(app, "secret.txt"), `token sk-${"a".repeat(24)}\n`)
  writeFileSync(path.join(app, "interlock.config.json"), JSON.stringify(HOOK_CONFIG))
  writeFileSync(
    path.join(app, "policy.cedar"),
    `@id("all")\npermit(principal, action, resource);\n\n@id("no-fetch")\nforbid(principal, action == ` +
      `Interlock::Action::"callTool", resource == Interlock::Tool::"claude/webfetch");\n`
  )
  writeFileSync(
    path.join(app, "cedar.config.json"),
    JSON.stringify({ servers: {}, audit: { path: "audit.db" }, policy: { cedar: "policy.cedar" } })
  )
}, 180_000)

const event = (tool: string, input: Record<string, unknown>) =>
  JSON.stringify({
    session_id: "s1",
    transcript_path: "/t.jsonl",
    cwd: app,
    permission_mode: "default",
    hook_event_name: "PreToolUse",
    tool_name: tool,
    tool_input: input,
    tool_use_id: "toolu_1"
  })
const FETCH = event("WebFetch", { url: "https://example.invalid" })
const READ = event("Read", { file_path: path.join(app, "interlock.config.json") })
const SECRET = event("Read", { file_path: path.join(app, "secret.txt") })

interface Answer {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** `node bin claude-hook ...args` in the app folder on `stdin`, with the test's cache directory. */
const hook = (
  bin: string,
  stdin: string,
  env: Record<string, string> = {},
  args = ["--config", "interlock.config.json"]
) =>
  new Promise<Answer>((resolve) => {
    const child = execFile(NODE, [bin, "claude-hook", ...args], {
      cwd: app,
      timeout: 60_000,
      env: { ...process.env, NODE_OPTIONS: "", XDG_CACHE_HOME: cache, ...env }
    }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : null, stdout, stderr }))
    child.stdin?.end(stdin)
  })

/** How many rows the app's audit store holds. */
const rowCount = () => {
  if (!existsSync(db)) return 0
  const store = SqliteAuditStore.open(db)
  try {
    return Effect.runSync(store.query({ limit: 10_000 })).length
  } finally {
    store.close()
  }
}

/** The bundle's answer equals the sources' (exit code and stdout), and each writes one audit row. */
const sameAsSources = async (stdin: string, env: Record<string, string> = {}, args?: ReadonlyArray<string>) => {
  const before = rowCount()
  const bundled = await hook(BIN, stdin, env, args === undefined ? undefined : [...args])
  const sources = await hook(SOURCES_BIN, stdin, env, args === undefined ? undefined : [...args])
  assert.strictEqual(bundled.code, 0, bundled.stderr)
  assert.deepStrictEqual({ code: bundled.code, stdout: bundled.stdout }, { code: sources.code, stdout: sources.stdout })
  assert.strictEqual(rowCount(), before + 2, "each run wrote its audit row")
  return JSON.parse(bundled.stdout) as { hookSpecificOutput?: { permissionDecision?: string } }
}

const cacheFiles = () => readdirSync(caches).filter((name) => name.endsWith(".cache"))
const entryCache = () => path.join(caches, cacheFiles().find((name) => name.startsWith("ClaudeHook.cjs."))!)
/** The runs byte of a cache file's header, after its first line. */
const runsOf = (file: string) => readFileSync(file)["interlock-code-cache-1\n".length]

describe("the published bin's claude-hook bundle", () => {
  it("answers as the sources do, a rule's deny, an allow and a redaction's deny, with its audit rows", async () => {
    assert.strictEqual((await sameAsSources(FETCH)).hookSpecificOutput?.permissionDecision, "deny")
    assert.deepStrictEqual(await sameAsSources(READ), {})
    assert.strictEqual((await sameAsSources(SECRET)).hookSpecificOutput?.permissionDecision, "deny")
  }, 120_000)

  it("answers a Cedar policy as the sources do (Cedar's WASM build required from the bundle)", async () => {
    const args = ["--config", "cedar.config.json"]
    assert.strictEqual((await sameAsSources(FETCH, {}, args)).hookSpecificOutput?.permissionDecision, "deny")
    assert.strictEqual((await sameAsSources(READ, {}, args)).hookSpecificOutput?.permissionDecision, "allow")
  }, 120_000)

  it(
    "writes private code caches in the user's cache directory, which its first runs complete and later runs only read",
    async () => {
      assert.strictEqual(statSync(caches).mode & 0o777, DIR_MODE)
      for (const name of cacheFiles()) assert.strictEqual(statSync(path.join(caches, name)).mode & 0o777, FILE_MODE)
      assert.include(cacheFiles().map((name) => name.split(".cjs.")[0]), "ClaudeHook")
      for (let run = 0; run < RUNS_THAT_WRITE; run++) await hook(BIN, READ)
      assert.strictEqual(runsOf(entryCache()), RUNS_THAT_WRITE)
      const done = readFileSync(entryCache())
      await hook(BIN, FETCH)
      assert.deepStrictEqual(readFileSync(entryCache()), done, "a complete cache is not written again")
    },
    120_000
  )

  const tamperings: ReadonlyArray<readonly [string, (file: string) => void]> = [
    ["a changed byte", (file) => {
      const bytes = readFileSync(file)
      bytes[bytes.length - 100] ^= 0xff
      writeFileSync(file, bytes)
    }],
    ["cut short", (file) => writeFileSync(file, readFileSync(file).subarray(0, 1000))],
    ["stale (made for another build of the chunk)", (file) => {
      // The header of another chunk's cache on this chunk's: its digest covers another source.
      const other = cacheFiles().find((name) => !name.startsWith("ClaudeHook.cjs."))!
      writeFileSync(file, readFileSync(path.join(caches, other)))
    }],
    ["random bytes", (file) => writeFileSync(file, Buffer.alloc(4096, 0x41))],
    ["readable by others", (file) => chmodSync(file, 0o644)],
    ...(process.getuid?.() === 0 ? [["another user's", (file: string) => chownSync(file, 65534, 65534)] as const] : [])
  ]
  for (const [what, tamper] of tamperings) {
    it(`ignores a cache that is ${what}: the answers are the same, and the cache is written anew`, async () => {
      const file = entryCache()
      tamper(file)
      assert.strictEqual((await sameAsSources(FETCH)).hookSpecificOutput?.permissionDecision, "deny")
      assert.deepStrictEqual(await sameAsSources(READ), {})
      assert.strictEqual(runsOf(file), 2, "two runs wrote a new cache")
      assert.strictEqual(statSync(file).mode & 0o777, FILE_MODE)
      assert.strictEqual(statSync(file).uid, process.getuid?.() ?? statSync(file).uid)
    }, 120_000)
  }

  it("with NODE_DISABLE_COMPILE_CACHE reads and writes no cache", async () => {
    rmSync(cache, { recursive: true, force: true })
    assert.strictEqual(
      (await sameAsSources(FETCH, { NODE_DISABLE_COMPILE_CACHE: "1" })).hookSpecificOutput?.permissionDecision,
      "deny"
    )
    assert.throws(() => statSync(cache))
  }, 120_000)

  it("leaves any other form of claude-hook to effect/cli, which answers it", async () => {
    const help = await hook(BIN, "", {}, ["--help"])
    assert.strictEqual(help.code, 0, help.stderr)
    assert.include(help.stdout, "--timeout")
  }, 60_000)

  it("exits 2, printing no answer, when its bundle does not load", async () => {
    const entry = path.join(HOOK, "ClaudeHook.cjs")
    const good = readFileSync(entry)
    try {
      for (const broken of ["this is not JavaScript (", `throw new Error("broken bundle")`]) {
        writeFileSync(entry, broken)
        const answer = await hook(BIN, FETCH, { NODE_DISABLE_COMPILE_CACHE: "1" })
        assert.strictEqual(answer.code, 2, answer.stderr)
        assert.strictEqual(answer.stdout, "")
      }
    } finally {
      writeFileSync(entry, good)
    }
  }, 60_000)
})
