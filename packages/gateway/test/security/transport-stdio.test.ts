/**
 * Attacks on the stdio front, over the real wire: the gateway CLI as a child process serving
 * stdio, fed raw frames. stdout must carry only JSON-RPC messages; every frame that carries an id
 * gets exactly one answer with that id; other output goes to stderr, redacted.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Fiber, Layer, Schema } from "effect"
import { writeFileSync } from "node:fs"
import * as path from "node:path"
import { PassThrough } from "node:stream"
import { fromObject } from "../../src/config/ConfigLoader.ts"
import { Gateway } from "../../src/runtime/Gateway.ts"
import { makePlan } from "../../src/runtime/PlanBuilder.ts"
import { serveStdio } from "../../src/serve/StdioFront.ts"
import { telemetryLayer } from "../../src/telemetry/OtlpExport.ts"
import { cliIn } from "../cli-process.ts"
import { NODE } from "../e2e.ts"
import { isJsonRpcLine, type RawGateway, rawStdioGateway } from "./stdio-wire.ts"

const toolsOnly = { command: NODE, args: [path.join(import.meta.dirname, "..", "fixtures", "tools-only-server.ts")] }
const SECRET = "sk-abcdefghijklmnopqrstuvwxyz0123"

/** Asserts that every stdout line so far is one JSON-RPC message. */
const assertOnlyJsonRpc = (gateway: RawGateway) => {
  for (const line of gateway.lines()) {
    assert.isTrue(isJsonRpcLine(line), `not a JSON-RPC line on stdout: ${line.slice(0, 200)}`)
  }
}

const request = (id: unknown, method: string, params?: unknown) =>
  JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) })

const { dir, writeConfig } = cliIn("interlock-stdio-")

/** A stdio gateway child in front of the tools-only fixture. */
const toolsOnlyGateway = () =>
  rawStdioGateway(writeConfig("tools-only.json", { servers: { tools: toolsOnly }, audit: { path: ":memory:" } }), dir)

describe("stdio front: stdout carries only JSON-RPC", () => {
  it.live(
    "list calls against a server without resources or prompts answer empty lists, and no debug line reaches stdout",
    () =>
      Effect.gen(function*() {
        const gateway = yield* toolsOnlyGateway()
        const methods = ["resources/list", "resources/templates/list", "prompts/list", "tools/list"]
        for (const [index, method] of methods.entries()) gateway.send(request(`list-${index}`, method))
        const replies = yield* Effect.promise(() =>
          Promise.all(methods.map((_, index) => gateway.reply(`list-${index}`)))
        )
        assert.deepStrictEqual(replies.slice(0, 3).map((reply) => reply.result), [{ resources: [] }, {
          resourceTemplates: []
        }, { prompts: [] }])
        assert.deepStrictEqual((replies[3].result!.tools as Array<{ name: string }>).map((tool) => tool.name), ["echo"])
        assertOnlyJsonRpc(gateway)
        // The hub no longer asks a server for lists it does not advertise, so the SDK prints nothing anywhere.
        assert.notInclude(gateway.lines().join("\n") + gateway.stderr(), "does not advertise")
      }),
    60_000
  )

  it.live(
    "console output and raw stdout writes of code in the gateway go to stderr, redacted",
    () =>
      Effect.gen(function*() {
        const config = path.join(dir, "chatty.config.mjs")
        // A rule predicate (code in the config) that prints a call's argument three ways; the rule never matches.
        writeFileSync(
          config,
          `export default {
        servers: { tools: ${JSON.stringify(toolsOnly)} },
        audit: { path: ":memory:" },
        redact: [{ detectors: "all" }],
        policy: { default: "allow", rules: [{ id: "chatty", match: "*", decision: "deny", when: (args) => {
          console.log("log says " + args.text)
          console.info("info says " + args.text)
          process.stdout.write("raw write says " + args.text + "\\n")
          return false
        } }] }
      }\n`
        )
        const gateway = yield* rawStdioGateway(config, dir)
        gateway.send(request(1, "tools/call", { name: "echo", arguments: { text: `token ${SECRET}` } }))
        const reply = yield* Effect.promise(() => gateway.reply(1))
        assert.strictEqual(reply.error, undefined)
        assertOnlyJsonRpc(gateway)
        const stderr = gateway.stderr()
        for (
          const said of ["log says token [REDACTED]", "info says token [REDACTED]", "raw write says token [REDACTED]"]
        ) assert.include(stderr, said)
        assert.notInclude(stderr, SECRET)
      }),
    60_000
  )
})

describe("stdio front: every invalid frame is answered", () => {
  it.live(
    "schema-invalid frames get -32600 with their id, unparseable ones -32700 with id null, and the session lives",
    () =>
      Effect.gen(function*() {
        const gateway = yield* toolsOnlyGateway()
        // Each frame with the ids its answers must carry.
        const invalid: ReadonlyArray<readonly [ReadonlyArray<unknown>, string]> = [
          [["extra"], JSON.stringify({ jsonrpc: "2.0", id: "extra", method: "ping", extra: 1 })],
          [["array-params"], JSON.stringify({ jsonrpc: "2.0", id: "array-params", method: "tools/list", params: [] })],
          [[1.5], JSON.stringify({ jsonrpc: "2.0", id: 1.5, method: "ping" })],
          [["old"], JSON.stringify({ jsonrpc: "1.0", id: "old", method: "ping" })],
          [["method-number"], JSON.stringify({ jsonrpc: "2.0", id: "method-number", method: 5 })],
          [
            ["batch-1", "batch-2"],
            JSON.stringify([{ jsonrpc: "2.0", id: "batch-1", method: "ping" }, {
              jsonrpc: "2.0",
              id: "batch-2",
              method: "ping"
            }])
          ]
        ]
        const ids = invalid.flatMap(([ids]) => ids)
        for (const [, line] of invalid) gateway.send(line)
        for (const id of ids) {
          const reply = yield* Effect.promise(() => gateway.reply(id))
          assert.strictEqual(reply.error?.code, -32600, `frame ${String(id)}`)
        }
        gateway.send("{not json")
        gateway.send("[]")
        gateway.send(JSON.stringify({ jsonrpc: "2.0", id: { an: "object" }, method: "ping" }))
        const unparseable = yield* Effect.promise(() => gateway.reply(null, 3))
        assert.isNumber(unparseable.error?.code)
        const nulls = gateway.lines().map((line) => JSON.parse(line)).filter((message) => message.id === null).map((
          message
        ) => message.error.code)
        assert.deepStrictEqual(nulls, [-32700, -32600, -32600])
        // The session still works, and each id was answered exactly once.
        gateway.send(request("after", "ping"))
        assert.deepStrictEqual((yield* Effect.promise(() => gateway.reply("after"))).result, {})
        const answered = gateway.lines().map((line) => JSON.parse(line).id)
        for (const id of ids) {
          assert.strictEqual(answered.filter((seen) => seen === id).length, 1, `answers to ${String(id)}`)
        }
        assertOnlyJsonRpc(gateway)
      }),
    60_000
  )
})

/** A gateway (in this process) in front of the tools-only fixture, for the stdio front's fuzzing. */
const inProcessGateway = Layer.unwrap(Effect.gen(function*() {
  const loaded = yield* fromObject({
    servers: { tools: toolsOnly },
    audit: { path: ":memory:" },
    policy: { default: "allow" }
  }, process.cwd())
  const plan = makePlan(loaded, { env: {} })
  if (!("servers" in plan)) return yield* Effect.die(plan)
  return Gateway.layer(plan).pipe(Layer.provide(telemetryLayer(plan)))
}))

const METHODS = [
  "ping",
  "tools/list",
  "tools/call",
  "resources/list",
  "resources/read",
  "prompts/list",
  "prompts/get",
  "completion/complete",
  "no/such"
] as const
const KINDS = [
  "request",
  "notification",
  "extra-member",
  "array-params",
  "float-id",
  "object-id",
  "old-version",
  "batch",
  "json",
  "text"
] as const

/** One generated frame: its kind, and the material it is built from. */
const FrameSeed = Schema.Struct({
  kind: Schema.Literals(KINDS),
  method: Schema.Literals(METHODS),
  params: Schema.optional(Schema.Record(Schema.String, Schema.Json)),
  junk: Schema.Json,
  text: Schema.String
})

/** The line a seed becomes (its index makes ids unique) and the ids whose answers it is owed. */
const frameOf = (
  seed: typeof FrameSeed.Type,
  index: number
): { readonly line: string; readonly ids: ReadonlyArray<string | number> } => {
  const id = index % 2 === 0 ? `f${index}` : index
  const message = {
    jsonrpc: "2.0",
    id,
    method: seed.method,
    ...(seed.params === undefined ? {} : { params: seed.params })
  }
  const json = (value: unknown, ids: ReadonlyArray<string | number>) => ({ line: JSON.stringify(value), ids })
  switch (seed.kind) {
    case "request":
      return json(message, [id])
    case "notification":
      return json({ jsonrpc: "2.0", method: `notifications/${seed.method}` }, [])
    case "extra-member":
      return json({ ...message, extra: seed.junk }, [id])
    case "array-params":
      return json({ ...message, params: [seed.junk] }, [id])
    case "float-id":
      return json({ ...message, id: index + 0.5 }, [index + 0.5])
    case "object-id":
      return json({ ...message, id: { index } }, [])
    case "old-version":
      return json({ ...message, jsonrpc: "1.0" }, [id])
    case "batch":
      return json([message, { ...message, id: `${id}-b` }], [id, `${id}-b`])
    case "json":
      // Junk with no id of its own (objects and arrays are wrapped, so they cannot carry one).
      return json(typeof seed.junk === "object" && seed.junk !== null ? { junk: seed.junk } : seed.junk, [])
    case "text":
      return { line: seed.text.replace(/[\r\n]/g, " "), ids: [] }
  }
}

layer(inProcessGateway, { excludeTestServices: true })("stdio front under fuzzing", (it) => {
  it.effect.prop(
    "every output line is JSON-RPC and every frame with an id is answered exactly once",
    [Schema.Array(FrameSeed).check(Schema.isMaxLength(25))],
    ([seeds]) =>
      Effect.gen(function*() {
        const input = new PassThrough()
        const output = new PassThrough()
        const lines: Array<string> = []
        let partial = ""
        const waiters = new Set<() => void>()
        output.setEncoding("utf8")
        output.on("data", (chunk: string) => {
          const parts = (partial + chunk).split("\n")
          partial = parts.pop() ?? ""
          lines.push(...parts.filter((line) => line.length > 0))
          for (const waiter of waiters) waiter()
        })
        const answers = (id: unknown) =>
          lines.filter((line) => JSON.parse(line).id === id && !("method" in JSON.parse(line))).length
        const answered = (ids: ReadonlyArray<unknown>) =>
          Effect.promise(() =>
            new Promise<void>((resolve) => {
              const check = () => {
                if (ids.every((id) => answers(id) > 0)) {
                  waiters.delete(check)
                  resolve()
                }
              }
              waiters.add(check)
              check()
            })
          )
        const serving = yield* Effect.forkChild(serveStdio({ input, output }))
        const frames = seeds.map(frameOf)
        const init = {
          jsonrpc: "2.0",
          id: "init",
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "fuzz", version: "1" } }
        }
        input.write(`${JSON.stringify(init)}\n`)
        yield* answered(["init"])
        for (const frame of frames) input.write(`${frame.line}\n`)
        input.write(`${JSON.stringify({ jsonrpc: "2.0", id: "end", method: "ping" })}\n`)
        const owed = frames.flatMap((frame) => frame.ids)
        yield* answered([...owed, "end"])
        input.end()
        yield* Fiber.join(serving)
        for (const line of lines) assert.isTrue(isJsonRpcLine(line), `not JSON-RPC: ${line.slice(0, 200)}`)
        for (const id of owed) assert.strictEqual(answers(id), 1, `answers to ${String(id)}`)
      }),
    { timeout: 120_000, arbitrary: { runs: 50 } }
  )
})
