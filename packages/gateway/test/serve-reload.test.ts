/**
 * Config reload on a real `interlock serve` process: a real file edit plus SIGHUP, and `--watch`
 * with real edits (in place and by rename). Every wait ends on what the gateway shows (its log
 * line, the config hash its console shows in force). The policy of the config in force decides the
 * next call; a broken or half-written file leaves the running one in force with one log line; a
 * call in flight finishes under the config it started with, and its audit row names that config.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigError } from "@interlock/core"
import { Effect } from "effect"
import { existsSync, mkdirSync, renameSync, symlinkSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import * as SqliteAuditStore from "../src/audit/SqliteAuditStore.ts"
import { loadConfig } from "../src/config/ConfigLoader.ts"
import { makePlan } from "../src/runtime/PlanBuilder.ts"
import { cliIn, toolText } from "./cli-process.ts"
import { httpClient, NODE } from "./e2e.ts"
import { serveProcess, waitForHash, waitForLines, waitUntil } from "./serve-process.ts"

const { dir } = cliIn("interlock-reload-")
const hold = {
  command: NODE,
  args: [path.join(import.meta.dirname, "fixtures", "hold-server.ts")],
  env: { HOLD_DIR: dir }
}

/** A config of the hold server with `policy`, audited to `<name>.db`. */
const configOf = (name: string, policy: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  servers: { hold },
  listen: { http: "127.0.0.1:0" },
  audit: { path: path.join(dir, `${name}.db`) },
  policy,
  ...extra
})

const allowAll = { default: "allow" }
const denyEcho = (reason: string) => ({
  default: "allow",
  rules: [{ id: "no-echo", match: "hold/echo", decision: "deny", reason }]
})

/** Writes a config in place (as most editors and `>` do). */
const writeInPlace = (file: string, config: unknown) => writeFileSync(file, JSON.stringify(config, null, 2))

/** Writes a file as editors that save by rename do: a new file, renamed over the old one. */
const renameText = (file: string, text: string) => {
  const temp = `${file}.tmp-${process.hrtime.bigint()}`
  writeFileSync(temp, text)
  renameSync(temp, file)
}

/** Writes a config by rename. */
const writeByRename = (file: string, config: unknown) => renameText(file, JSON.stringify(config, null, 2))

// The gateway's own copy of effect (the one its sources resolve), so that a config's Effect is one it runs.
const EFFECT =
  pathToFileURL(path.join(import.meta.dirname, "..", "..", "..", "node_modules", "effect", "dist", "index.js")).href

/**
 * An interlock.config.ts of `config` with an Effect postToolCall hook that suspends: it runs in a
 * fiber of its generation's supervisor, which is interrupted if that generation is closed under a
 * call still running.
 */
const codeConfig = (config: unknown) =>
  `import { Effect } from ${JSON.stringify(EFFECT)}\nconst data = ${JSON.stringify(config)}\n` +
  `export default { ...data, hooks: { postToolCall: [{ match: "*", id: "after", run: () => ` +
  `Effect.as(Effect.sleep(20), { _tag: "Continue" }) }] } }\n`

/** The hash the gateway records for a config file, as the gateway computes it. */
const hashOf = (file: string) =>
  Effect.flatMap(loadConfig(file, { fresh: true }), (loaded) => {
    const plan = makePlan(loaded)
    return plan instanceof ConfigError ? Effect.die(plan) : Effect.succeed(plan.configHash)
  }).pipe(Effect.orDie)

/** The audit rows of `<name>.db`, oldest first. */
const rowsOf = (name: string) =>
  Effect.sync(() => {
    const store = SqliteAuditStore.open(path.join(dir, `${name}.db`))
    return Effect.runSync(
      store.query({ limit: 1000 }).pipe(Effect.ensuring(Effect.sync(() => store.close())), Effect.orDie)
    ).toReversed()
  })

const call = (
  client: { callTool: (params: { name: string; arguments: Record<string, unknown> }) => Promise<unknown> },
  name: string,
  args: Record<string, unknown>
) =>
  Effect.promise(() =>
    client.callTool({ name, arguments: args }) as Promise<{ isError?: boolean; content: Array<{ text?: string }> }>
  )

const RELOADED = "config reloaded"
const FAILED = "config reload failed"

describe("interlock serve: config reload", () => {
  it.live(
    "SIGHUP applies an edited policy to the next call; broken and restart-only edits leave it in force with " +
      "one line each",
    () =>
      Effect.gen(function*() {
        const file = path.join(dir, "sighup.json")
        writeInPlace(file, configOf("sighup", allowAll))
        const first = yield* hashOf(file)
        const serve = yield* serveProcess(dir, file)
        const client = yield* httpClient(serve.mcpUrl)
        assert.strictEqual(toolText(yield* call(client, "echo", { text: "before" })), "before")

        writeInPlace(file, configOf("sighup", denyEcho("denied by the reloaded config")))
        const second = yield* hashOf(file)
        serve.signal("SIGHUP")
        yield* waitForHash(serve, second)
        assert.lengthOf(serve.lines(RELOADED), 1)
        const denied = yield* call(client, "echo", { text: "after" })
        assert.isTrue(denied.isError)
        assert.include(toolText(denied), "denied by the reloaded config")

        // Not JSON: the running config stays, and the one line names the file and where.
        writeFileSync(file, `{ "servers": { "hold": `)
        serve.signal("SIGHUP")
        const [broken] = yield* waitForLines(serve, FAILED)
        // The file is named as every config message names it: relative to the gateway's directory, where it is.
        assert.include(broken, `${path.basename(file)}: is not valid JSON`)
        // Valid JSON, invalid config: the line names the path at fault and never the value there.
        writeInPlace(file, {
          ...configOf("sighup", allowAll),
          policy: { default: "sk-literal-secret-value-0123456789" }
        })
        serve.signal("SIGHUP")
        const failures = yield* waitForLines(serve, FAILED, 2)
        assert.include(failures[1], "policy.default")
        assert.notInclude(serve.output(), "sk-literal-secret-value")
        // A Cedar file that does not exist fails while the policy is built, before anything is swapped.
        writeInPlace(file, configOf("sighup", { cedar: "missing.cedar" }))
        serve.signal("SIGHUP")
        assert.include((yield* waitForLines(serve, FAILED, 3))[2], "policy.cedar")
        // What needs a restart is refused whole, naming the key.
        writeInPlace(file, { ...configOf("sighup", allowAll), listen: { http: "127.0.0.1:1" } })
        serve.signal("SIGHUP")
        const [refused] = yield* waitForLines(serve, "config reload refused")
        assert.include(refused, "listen.http cannot change without a restart")
        writeInPlace(file, { ...configOf("sighup", allowAll), servers: { hold, other: hold } })
        serve.signal("SIGHUP")
        assert.include((yield* waitForLines(serve, "config reload refused", 2))[1], "servers.other")

        // Each failure was one line, and the second config is still the one deciding.
        assert.lengthOf(serve.lines(FAILED), 3)
        assert.lengthOf(serve.lines(RELOADED), 1)
        yield* waitForHash(serve, second)
        assert.isTrue((yield* call(client, "echo", { text: "still" })).isError)
        const rows = yield* rowsOf("sighup")
        assert.deepStrictEqual(rows.map((row) => [row.outcome, row.configHash]), [["ok", first], ["denied", second], [
          "denied",
          second
        ]])
      }),
    120_000
  )

  it.live(
    "a call in flight during a reload finishes under the config it started with (its hooks too), and its row names " +
      "that config",
    () =>
      Effect.gen(function*() {
        const file = path.join(dir, "inflight.config.ts")
        writeFileSync(file, codeConfig(configOf("inflight", allowAll)))
        const first = yield* hashOf(file)
        const serve = yield* serveProcess(dir, file)
        const client = yield* httpClient(serve.mcpUrl)
        const slow = Effect.runPromise(call(client, "hold", { name: "early" }))
        yield* waitUntil(
          "the held call to reach the server",
          () => (existsSync(path.join(dir, "early.held")) ? true : undefined)
        )

        writeFileSync(
          file,
          codeConfig(
            configOf("inflight", {
              default: "allow",
              rules: [{ match: "hold/hold", decision: "deny", reason: "no holding now" }]
            })
          )
        )
        const second = yield* hashOf(file)
        serve.signal("SIGHUP")
        yield* waitForHash(serve, second)
        const late = yield* call(client, "hold", { name: "late" })
        assert.isTrue(late.isError)
        assert.include(toolText(late), "no holding now")
        assert.isFalse(existsSync(path.join(dir, "late.held")), "the new policy's call never reached the server")

        writeFileSync(path.join(dir, "early.release"), "")
        assert.strictEqual(toolText(yield* Effect.promise(() => slow)), "released early")
        const rows = yield* rowsOf("inflight")
        assert.deepStrictEqual(
          rows.map((row) => [row.tool, row.outcome, row.configHash]).sort(),
          [["hold", "denied", second], ["hold", "ok", first]]
        )
      }),
    120_000
  )

  it.live(
    "attack: under reloads back and forth, a call both configs deny never gets through (no moment without a policy)",
    () =>
      Effect.gen(function*() {
        const file = path.join(dir, "window.json")
        const a = configOf("window", {
          default: "allow",
          rules: [{ match: "hold/hold", decision: "deny", reason: "A says no" }]
        })
        const b = configOf("window", { default: "deny", rules: [{ match: "hold/echo", decision: "allow" }] })
        writeInPlace(file, a)
        const hashA = yield* hashOf(file)
        const serve = yield* serveProcess(dir, file)
        const client = yield* httpClient(serve.mcpUrl)
        let stop = false
        const answers: Array<boolean | undefined> = []
        const hammer = Effect.gen(function*() {
          while (!stop) answers.push((yield* call(client, "hold", { name: "window" })).isError)
        })
        const flips = Effect.gen(function*() {
          let hashB = ""
          for (let i = 0; i < 10; i++) {
            writeInPlace(file, i % 2 === 0 ? b : a)
            const hash = yield* hashOf(file)
            if (i === 0) hashB = hash
            serve.signal("SIGHUP")
            yield* waitForHash(serve, hash)
          }
          stop = true
          return hashB
        })
        const [hashB] = yield* Effect.all([flips, hammer, hammer, hammer], { concurrency: "unbounded" })
        assert.isAbove(answers.length, 10)
        assert.isTrue(answers.every((isError) => isError === true), "every call was refused")
        assert.isFalse(existsSync(path.join(dir, "window.held")), "no call reached the server")
        const rows = (yield* rowsOf("window")).filter((row) => row.tool === "hold")
        assert.strictEqual(rows.length, answers.length)
        assert.isTrue(rows.every((row) =>
          row.outcome === "denied" && row.sent === false && (row.configHash === hashA || row.configHash === hashB)
        ))
        assert.deepStrictEqual(
          new Set(rows.map((row) =>
            row.configHash
          )),
          new Set([hashA, hashB]),
          "calls were decided by both configs"
        )
      }),
    120_000
  )

  it.live(
    "--watch: an edit by rename applies; 20 rapid edits end in the last; a half-written file never applies",
    () =>
      Effect.gen(function*() {
        const file = path.join(dir, "watch.json")
        writeInPlace(file, configOf("watch", allowAll))
        const serve = yield* serveProcess(dir, file, ["--watch"])
        const client = yield* httpClient(serve.mcpUrl)
        assert.isUndefined((yield* call(client, "echo", { text: "a" })).isError)

        writeByRename(file, configOf("watch", denyEcho("renamed in")))
        yield* waitForHash(serve, yield* hashOf(file))
        assert.include(toolText(yield* call(client, "echo", { text: "b" })), "renamed in")

        for (let i = 0; i < 20; i++) {
          ;(i % 2 === 0 ? writeInPlace : writeByRename)(file, configOf("watch", denyEcho(`edit ${i}`)))
        }
        const last = yield* hashOf(file)
        yield* waitForHash(serve, last)
        assert.include(toolText(yield* call(client, "echo", { text: "c" })), "edit 19")
        assert.include(serve.lines(RELOADED).at(-1), last.slice(0, 12))

        // Half of a config that would allow echo again: never applied, one line; the whole file then is.
        const whole = JSON.stringify(configOf("watch", allowAll), null, 2)
        writeFileSync(file, whole.slice(0, Math.floor(whole.length / 2)))
        yield* waitForLines(serve, FAILED)
        assert.include(toolText(yield* call(client, "echo", { text: "d" })), "edit 19")
        writeFileSync(file, whole)
        yield* waitForHash(serve, yield* hashOf(file))
        assert.strictEqual(toolText(yield* call(client, "echo", { text: "e" })), "e")
        assert.lengthOf(serve.lines(FAILED), 1)
      }),
    120_000
  )

  it.live("--watch follows the Cedar file the config names", () =>
    Effect.gen(function*() {
      const cedar = path.join(dir, "watch.cedar")
      writeFileSync(cedar, `permit(principal, action, resource);\n`)
      const file = path.join(dir, "cedar.json")
      writeInPlace(file, configOf("cedar", { cedar: "watch.cedar" }))
      const serve = yield* serveProcess(dir, file, ["--watch"])
      const client = yield* httpClient(serve.mcpUrl)
      assert.strictEqual(toolText(yield* call(client, "echo", { text: "a" })), "a")
      renameText(
        cedar,
        `permit(principal, action, resource);\n@reason("no echo today")\nforbid(principal, action == ` +
          `Interlock::Action::"callTool", resource == Interlock::Tool::"hold/echo");\n`
      )
      yield* waitForHash(serve, yield* hashOf(file))
      assert.include(toolText(yield* call(client, "echo", { text: "b" })), "no echo today")
    }), 120_000)

  it.live(
    "--watch follows a Kubernetes ConfigMap update (the ..data symlink swapped to a new folder)",
    () =>
      Effect.gen(function*() {
        const mount = path.join(dir, "configmap")
        const version = (name: string, config: unknown) => {
          mkdirSync(path.join(mount, name), { recursive: true })
          writeFileSync(path.join(mount, name, "interlock.config.json"), JSON.stringify(config))
        }
        version("..v1", configOf("configmap", allowAll))
        symlinkSync("..v1", path.join(mount, "..data"))
        symlinkSync(path.join("..data", "interlock.config.json"), path.join(mount, "interlock.config.json"))
        const file = path.join(mount, "interlock.config.json")
        const serve = yield* serveProcess(dir, file, ["--watch"])
        const client = yield* httpClient(serve.mcpUrl)
        assert.strictEqual(toolText(yield* call(client, "echo", { text: "a" })), "a")
        // As the kubelet does: the new version beside the old, then a new link renamed over ..data.
        version("..v2", configOf("configmap", denyEcho("from the new ConfigMap")))
        symlinkSync("..v2", path.join(mount, "..data_tmp"))
        renameSync(path.join(mount, "..data_tmp"), path.join(mount, "..data"))
        yield* waitForHash(serve, yield* hashOf(file))
        assert.include(toolText(yield* call(client, "echo", { text: "b" })), "from the new ConfigMap")
      }),
    120_000
  )
})
