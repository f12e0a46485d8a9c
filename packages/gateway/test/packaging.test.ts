/**
 * The packages as a new user gets them: `npm pack` every package (its prepack builds it), install the
 * tarballs into an empty folder outside the workspace whose only node is Node 22.19 (the `engines`
 * floor, from the `node` package), and use them there: a JavaScript app, a strict TypeScript consumer
 * and the `interlock` bin. The bin must also refuse an older Node in one line.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { ok, pathWith, run, SYSTEM_PATH, USER_ENV } from "./user-shell.ts"

const ROOT = path.join(import.meta.dirname, "..", "..", "..")
const PACKAGES = ["core", "claude", "cedar", "mcp", "agent", "gateway", "ai"] as const
/** The Node the packages promise to run on (`engines.node`), and one below it. */
const NODE_FLOOR = "22.19.0"
const NODE_OLD = "20.19.0"
/** Versions the consumer installs beside our tarballs (the workspace's, so npm's cache has them). */
const CONSUMER_DEPS = ["effect@4.1.0", "@types/node@24.19.4"]

interface Packed {
  readonly name: string
  readonly version: string
  readonly filename: string
  readonly size: number
  readonly files: ReadonlyArray<{ readonly path: string }>
}

const work = mkdtempSync(path.join(tmpdir(), "interlock-packaging-"))
const tarballs = path.join(work, "tarballs")
const app = path.join(work, "app")
const old = path.join(work, "old-node")
const appBin = path.join(app, "node_modules", ".bin")
const node22 = path.join(appBin, "node")
let packed: ReadonlyArray<Packed> = []

// Removing two installed trees (two Node binaries among them) can outlast the default 10 s hook timeout on a loaded
// machine.
afterAll(() => rmSync(work, { recursive: true, force: true }), 120_000)

beforeAll(async () => {
  for (const dir of [tarballs, app, old]) mkdirSync(dir)
  const workspaces = PACKAGES.flatMap((name) => ["--workspace", `packages/${name}`])
  const pack = await ok(
    run("npm", ["pack", "--json", "--pack-destination", tarballs, ...workspaces], {
      cwd: ROOT,
      path: pathWith(path.join(ROOT, "node_modules", ".bin"))
    }),
    "npm pack"
  )
  packed = JSON.parse(pack.stdout)
  const manifest = (name: string) =>
    JSON.stringify({ name, private: true, type: "module", allowScripts: { node: true } })
  writeFileSync(path.join(app, "package.json"), manifest("interlock-packaging-app"))
  writeFileSync(path.join(old, "package.json"), manifest("interlock-packaging-old-node"))
  // npm itself runs on the workspace's Node 24; what it installs runs on the Node it installs.
  const npmPath = pathWith(path.join(ROOT, "node_modules", ".bin"))
  const install = (cwd: string, specs: ReadonlyArray<string>) =>
    ok(
      run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--save-exact", ...specs], {
        cwd,
        path: npmPath
      }),
      `npm install in ${cwd}`
    )
  await Promise.all([
    install(app, [`node@${NODE_FLOOR}`, ...CONSUMER_DEPS, ...packed.map((p) => path.join(tarballs, p.filename))]),
    install(old, [`node@${NODE_OLD}`])
  ])
  cpSync(path.join(import.meta.dirname, "packaging"), app, { recursive: true })
  writeFileSync(
    path.join(app, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2024",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        // Effect's own declarations name CryptoKey, JsonWebKey and Transferable from the DOM lib.
        lib: ["ES2024", "DOM"],
        types: ["node"],
        strict: true,
        exactOptionalPropertyTypes: true,
        noUncheckedIndexedAccess: true,
        skipLibCheck: false,
        verbatimModuleSyntax: true,
        noEmit: true
      },
      include: ["consumer.ts"]
    })
  )
  writeFileSync(
    path.join(app, "interlock.config.json"),
    JSON.stringify({
      servers: {},
      audit: { path: "audit.db" },
      policy: {
        default: "allow",
        rules: [{ id: "no-fetch", match: "claude/WebFetch", decision: "deny", reason: "no network" }]
      }
    })
  )
}, 420_000)

/**
 * The dist/ stem of each entry point the workspace's package.json exports: "index" for the root, "vercel/index" for
 * ./vercel.
 */
const entryStems = (name: string): ReadonlyArray<string> =>
  Object.keys(
    JSON.parse(readFileSync(path.join(ROOT, "packages", name.replace("@interlock/", ""), "package.json"), "utf8"))
      .exports
  )
    .filter((entry) => entry !== "./package.json")
    .map((entry) => (entry === "." ? "index" : `${entry.slice(2)}/index`))

/** The package.json of an installed package. */
const installed = (name: string) => {
  const dir = path.join(app, "node_modules", "@interlock", name)
  return { dir, json: JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) }
}

/** Every file an exports, imports or bin map names under the conditions a consumer resolves. */
const published = (map: unknown): ReadonlyArray<string> =>
  typeof map === "string"
    ? [map]
    : typeof map === "object" && map !== null
    ? Object.entries(map).flatMap(([key, value]) => key === "@interlock/source" ? [] : published(value))
    : []

describe("the packed packages, installed outside the workspace", () => {
  it("each tarball holds the built package, its README and LICENSE, and no sources, tests or configs", () => {
    assert.deepStrictEqual(packed.map((p) => p.name).sort(), PACKAGES.map((name) => `@interlock/${name}`).sort())
    for (const p of packed) {
      const files = p.files.map((file) => file.path)
      for (const needed of ["package.json", "README.md", "LICENSE"]) {
        assert.include(files, needed, `${p.name} lacks ${needed}`)
      }
      // Each entry point in the workspace's package.json (the root, ./testing, ./vercel) is built: JavaScript, types,
      // map.
      for (const stem of entryStems(p.name)) {
        for (const needed of [`dist/${stem}.js`, `dist/${stem}.d.ts`, `dist/${stem}.js.map`]) {
          assert.include(files, needed, `${p.name} lacks ${needed}`)
        }
      }
      assert.deepStrictEqual(
        files.filter((file) => /^(src|test|bin\/.*\.ts$)|vitest\.config|tsconfig|tsbuildinfo/.test(file)),
        [],
        p.name
      )
      assert.deepStrictEqual(files.filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts")), [], p.name)
    }
  })

  it("the gateway's tarball holds the CLI's bundle and its rendered help", () => {
    const files = packed.find((p) => p.name === "@interlock/gateway")?.files.map((file) => file.path) ?? []
    for (const needed of ["bin/interlock.js", "dist/bundle/Cli.js", "dist/bundle/help.txt", "dist/cli/Cli.js"]) {
      assert.include(files, needed)
    }
  })

  it(
    "each package.json promises Node 22.19, names its repository, points only at built files and pins our " +
      "packages exactly",
    () => {
      const versions = new Map(packed.map((p) => [p.name, p.version]))
      for (const name of PACKAGES) {
        const { dir, json } = installed(name)
        assert.strictEqual(json.engines?.node, ">=22.19", name)
        assert.strictEqual(json.repository?.directory, `packages/${name}`, name)
        assert.isString(json.repository?.url, name)
        // Every entry point (the root, or subpaths such as @interlock/ai/vercel) has built types and JavaScript.
        for (const [entry, target] of Object.entries<{ types: string; import: string }>(json.exports)) {
          if (entry === "./package.json") continue
          const stem = entry === "." ? "index" : `${entry.slice(2)}/index`
          assert.strictEqual(target.types, `./dist/${stem}.d.ts`, `${name} ${entry}`)
          assert.strictEqual(target.import, `./dist/${stem}.js`, `${name} ${entry}`)
        }
        for (const target of [...published(json.exports), ...published(json.imports), ...published(json.bin)]) {
          assert.match(target, /\.(js|d\.ts|json)$/, `${name}: ${target}`)
          assert.isTrue(existsSync(path.join(dir, target)), `${name}: ${target} is not in the tarball`)
        }
        for (const [dependency, range] of Object.entries<string>(json.dependencies ?? {})) {
          if (dependency.startsWith("@interlock/")) {
            assert.strictEqual(range, versions.get(dependency), `${name} -> ${dependency}`)
          }
        }
      }
    }
  )

  it("a JavaScript app calls a tool through a hook and the policy on Node 22.19", async () => {
    const { stdout } = await ok(run(node22, ["app.js"], { cwd: app, path: pathWith(appBin) }), "node app.js")
    const result = JSON.parse(stdout)
    assert.deepStrictEqual(
      { text: result.text, rule: result.rule, denied: result.denied, hooked: result.hooked, node: result.node },
      { text: "echo: HI", rule: "echo-ok", denied: "Denied", hooked: ["echo", "unknown"], node: NODE_FLOOR }
    )
    for (const [name, exported] of Object.entries<number>(result.packages)) assert.isAbove(exported, 0, name)
    // Interlock.client and @interlock/core/testing, from the installed tarball.
    assert.deepStrictEqual(result.promise, {
      text: "echo: promise",
      approval: "packager",
      refused: "Denied",
      sent: false,
      reached: ["echo"],
      asked: 1,
      closed: "ClientClosed",
      loose: true
    })
    // @interlock/ai/vercel: the allowed tool ran, the other was denied before its execute; the model middleware denied
    // a prompt and redacted a streamed delta.
    assert.deepStrictEqual(result.ai, {
      echoed: "vercel",
      rm: "Denied",
      ran: ["echo"],
      model: { denied: "ModelDenied", streamed: "key [REDACTED]" }
    })
  }, 60_000)

  it("@interlock/cedar's WASM module loads from the installed tarball and decides on Node 22.19", async () => {
    const { stdout } = await ok(
      run(node22, ["cedar-app.js"], { cwd: app, path: pathWith(appBin) }),
      "node cedar-app.js"
    )
    assert.deepStrictEqual(JSON.parse(stdout), {
      text: "echo: hi",
      rule: "echo-ok",
      denied: "denied by policy rule no-secret: no secrets",
      node: NODE_FLOOR
    })
  }, 60_000)

  it(
    "the installed bin checks a Cedar policy (file:line:column on an error) and claude-hook decides by it on " +
      "Node 22.19",
    async () => {
      const env = { cwd: app, path: pathWith(appBin) }
      writeFileSync(
        path.join(app, "policy.cedar"),
        `@id("no-fetch") @reason("no network") forbid(principal, action,
          resource == Interlock::Tool::"claude/webfetch");
@id("rest") permit(principal, action, resource);
`
      )
      writeFileSync(
        path.join(app, "cedar.config.json"),
        JSON.stringify({ servers: {}, audit: { path: "cedar-audit.db" }, policy: { cedar: "policy.cedar" } })
      )
      const check = await ok(
        run("interlock", ["check", "--config", "cedar.config.json"], env),
        "interlock check (cedar)"
      )
      assert.include(check.stdout, "Policy: Cedar policy.cedar")
      const event = {
        session_id: "s1",
        transcript_path: "/t.jsonl",
        cwd: app,
        permission_mode: "default",
        hook_event_name: "PreToolUse",
        tool_name: "WebFetch",
        tool_input: { url: "https://example.invalid" },
        tool_use_id: "toolu_3"
      }
      const hook = await ok(
        run("interlock", ["claude-hook", "--config", "cedar.config.json"], { ...env, input: JSON.stringify(event) }),
        "interlock claude-hook (cedar)"
      )
      assert.deepInclude(JSON.parse(hook.stdout).hookSpecificOutput, {
        permissionDecision: "deny",
        permissionDecisionReason: "no network"
      })
      writeFileSync(
        path.join(app, "policy.cedar"),
        `permit(principal, action, resource)
  when { context.args.url like };
`
      )
      const broken = await run("interlock", ["check", "--config", "cedar.config.json"], env)
      assert.strictEqual(broken.code, 1)
      assert.include(broken.stderr, `${path.join(app, "policy.cedar")}:2:`)
    },
    120_000
  )

  it(
    "a TypeScript consumer with strict, exactOptionalPropertyTypes, noUncheckedIndexedAccess and skipLibCheck false " +
      "type-checks",
    async () => {
      const tsc = path.join(ROOT, "node_modules", "typescript", "bin", "tsc")
      const result = await run(node22, [tsc, "-p", "."], { cwd: app, path: pathWith(appBin) })
      assert.strictEqual(result.stdout + result.stderr, "")
      assert.strictEqual(result.code, 0)
    },
    120_000
  )

  it("the installed bin runs --help, check and claude-hook on Node 22.19, the only node on its PATH", async () => {
    const env = { cwd: app, path: pathWith(appBin) }
    assert.strictEqual((await ok(run("node", ["--version"], env), "node --version")).stdout.trim(), `v${NODE_FLOOR}`)
    assert.include((await ok(run("interlock", ["--help"], env), "interlock --help")).stdout, "claude-hook")
    const check = await ok(run("interlock", ["check", "--config", "interlock.config.json"], env), "interlock check")
    assert.include(check.stdout, "Config OK")
    assert.include(check.stdout, "no-fetch")
    const event = {
      session_id: "s1",
      transcript_path: "/t.jsonl",
      cwd: app,
      permission_mode: "default",
      hook_event_name: "PreToolUse",
      tool_name: "WebFetch",
      tool_input: { url: "https://example.invalid" },
      tool_use_id: "toolu_1"
    }
    const hook = await ok(
      run("interlock", ["claude-hook", "--config", "interlock.config.json"], { ...env, input: JSON.stringify(event) }),
      "interlock claude-hook"
    )
    assert.deepInclude(JSON.parse(hook.stdout).hookSpecificOutput, {
      hookEventName: "PreToolUse",
      permissionDecision: "deny",
      permissionDecisionReason: "no network"
    })
    // A config written as code imports @interlock/core itself: the bin runs the unbundled dist for it, so both share
    // one core.
    writeFileSync(
      path.join(app, "code.config.js"),
      [
        `import { Verdict } from "@interlock/core"`,
        `export default { servers: {}, audit: { path: "code-audit.db" },`,
        `  hooks: { preToolCall: [{ match: "*", id: "shell", run: (call) => String(call.args.command).includes("rm ` +
        `-rf") ? Verdict.deny("no rm -rf") : Verdict.continue }] },`,
        `  policy: { default: "allow" } }`
      ].join("\n")
    )
    const shell = { ...event, tool_name: "Bash", tool_input: { command: "rm -rf /" } }
    const coded = await ok(
      run("interlock", ["claude-hook", "--config", "code.config.js"], { ...env, input: JSON.stringify(shell) }),
      "interlock claude-hook on a code config"
    )
    assert.deepInclude(JSON.parse(coded.stdout).hookSpecificOutput, {
      permissionDecision: "deny",
      permissionDecisionReason: "no rm -rf"
    })
  }, 120_000)

  it(
    "the installed bin's claude-hook --gateway answers through a gateway the installed bin serves, and exits 2 once " +
      "it is gone",
    async () => {
      const env = { cwd: app, path: pathWith(appBin) }
      const token = "packaging-token-0123456789"
      writeFileSync(
        path.join(app, "gateway.json"),
        JSON.stringify({
          servers: {},
          audit: { path: "gateway-audit.db" },
          listen: { http: "127.0.0.1:0", principals: { packager: { token: "env:PACKAGING_TOKEN" } } },
          policy: {
            default: "allow",
            rules: [{ id: "no-fetch", match: "claude/WebFetch", decision: "deny", reason: "no network" }]
          }
        })
      )
      const gateway = spawn("interlock", ["serve", "--config", "gateway.json"], {
        cwd: app,
        env: { ...USER_ENV, PATH: env.path, PACKAGING_TOKEN: token },
        stdio: ["ignore", "pipe", "pipe"]
      })
      const exited = new Promise((resolve) => gateway.once("exit", resolve))
      try {
        const url = await new Promise<string>((resolve, reject) => {
          let out = ""
          gateway.stdout.on("data", (chunk: Buffer) => {
            out += chunk.toString("utf8")
            const found = /MCP endpoint: (http:\/\/\S+)\/mcp/.exec(out)
            if (found !== null) resolve(found[1])
          })
          gateway.once("exit", (code) => reject(new Error(`interlock serve exited ${code}: ${out}`)))
        })
        const event = {
          session_id: "s1",
          transcript_path: "/t.jsonl",
          cwd: app,
          permission_mode: "default",
          hook_event_name: "PreToolUse",
          tool_name: "WebFetch",
          tool_input: { url: "https://example.invalid" },
          tool_use_id: "toolu_2"
        }
        const forwarded = await run("interlock", ["claude-hook", "--gateway", url], {
          ...env,
          input: JSON.stringify(event),
          env: { INTERLOCK_TOKEN: token }
        })
        assert.strictEqual(forwarded.code, 0, forwarded.stderr)
        assert.deepInclude(JSON.parse(forwarded.stdout).hookSpecificOutput, {
          permissionDecision: "deny",
          permissionDecisionReason: "no network"
        })
        gateway.kill()
        await exited
        const down = await run("interlock", ["claude-hook", "--gateway", url, "--timeout", "5"], {
          ...env,
          input: JSON.stringify(event)
        })
        assert.strictEqual(down.code, 2)
        assert.strictEqual(down.stdout, "")
        assert.include(down.stderr, "cannot reach the gateway")
      } finally {
        gateway.kill()
      }
    },
    120_000
  )

  it("the installed bin on Node 20 exits 1 (claude-hook: 2) with one line that names the Node it needs", async () => {
    const oldBin = path.join(old, "node_modules", ".bin")
    const result = await run("interlock", ["--help"], {
      cwd: app,
      path: `${oldBin}${path.delimiter}${appBin}${path.delimiter}${SYSTEM_PATH}`
    })
    assert.strictEqual(result.code, 1)
    assert.strictEqual(result.stdout, "")
    assert.strictEqual(result.stderr, `interlock needs Node.js 22.19 or newer; this is Node.js ${NODE_OLD}\n`)
    // As a Claude Code hook it exits 2 instead, which blocks the tool (exit 1 would let it run).
    const hook = await run("interlock", ["claude-hook", "--config", "interlock.config.json"], {
      cwd: app,
      path: `${oldBin}${path.delimiter}${appBin}${path.delimiter}${SYSTEM_PATH}`
    })
    assert.strictEqual(hook.code, 2)
    assert.strictEqual(hook.stdout, "")
  }, 60_000)
})
