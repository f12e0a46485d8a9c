/**
 * Attacks on the stdio front, over the real wire: the gateway CLI as a child process serving
 * stdio, fed raw frames. stdout must carry only JSON-RPC messages; every frame that carries an id
 * gets exactly one answer with that id; other output goes to stderr, redacted.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { writeFileSync } from "node:fs"
import * as path from "node:path"
import { cliIn } from "../cli-process.ts"
import { NODE } from "../e2e.ts"
import { isJsonRpcLine, rawStdioGateway, type RawGateway } from "./stdio-wire.ts"

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
const toolsOnlyGateway = () => rawStdioGateway(writeConfig("tools-only.json", { servers: { tools: toolsOnly }, audit: { path: ":memory:" } }), dir)

describe("stdio front: stdout carries only JSON-RPC", () => {
  it.live("list calls against a server without resources or prompts answer empty lists, and no debug line reaches stdout", () =>
    Effect.gen(function*() {
      const gateway = yield* toolsOnlyGateway()
      const methods = ["resources/list", "resources/templates/list", "prompts/list", "tools/list"]
      methods.forEach((method, index) => gateway.send(request(`list-${index}`, method)))
      const replies = yield* Effect.promise(() => Promise.all(methods.map((_, index) => gateway.reply(`list-${index}`))))
      assert.deepStrictEqual(replies.slice(0, 3).map((reply) => reply.result), [{ resources: [] }, { resourceTemplates: [] }, { prompts: [] }])
      assert.deepStrictEqual((replies[3].result?.tools as Array<{ name: string }>).map((tool) => tool.name), ["echo"])
      assertOnlyJsonRpc(gateway)
      // The hub no longer asks a server for lists it does not advertise, so the SDK prints nothing anywhere.
      assert.notInclude(gateway.lines().join("\n") + gateway.stderr(), "does not advertise")
    }), 60_000)

  it.live("console output and raw stdout writes of code in the gateway go to stderr, redacted", () =>
    Effect.gen(function*() {
      const config = path.join(dir, "chatty.config.mjs")
      // A rule predicate (code in the config) that prints a call's argument three ways; the rule never matches.
      writeFileSync(config, `export default {
        servers: { tools: ${JSON.stringify(toolsOnly)} },
        audit: { path: ":memory:" },
        redact: [{ detectors: "all" }],
        policy: { default: "allow", rules: [{ id: "chatty", match: "*", decision: "deny", when: (args) => {
          console.log("log says " + args.text)
          console.info("info says " + args.text)
          process.stdout.write("raw write says " + args.text + "\\n")
          return false
        } }] }
      }\n`)
      const gateway = yield* rawStdioGateway(config, dir)
      gateway.send(request(1, "tools/call", { name: "echo", arguments: { text: `token ${SECRET}` } }))
      const reply = yield* Effect.promise(() => gateway.reply(1))
      assert.strictEqual(reply.error, undefined)
      assertOnlyJsonRpc(gateway)
      const stderr = gateway.stderr()
      for (const said of ["log says token [REDACTED]", "info says token [REDACTED]", "raw write says token [REDACTED]"]) assert.include(stderr, said)
      assert.notInclude(stderr, SECRET)
    }), 60_000)
})

describe("stdio front: every invalid frame is answered", () => {
  it.live("schema-invalid frames get -32600 with their id, unparseable ones -32700 with id null, and the session lives", () =>
    Effect.gen(function*() {
      const gateway = yield* toolsOnlyGateway()
      // Each frame with the ids its answers must carry.
      const invalid: ReadonlyArray<readonly [ReadonlyArray<unknown>, string]> = [
        [["extra"], JSON.stringify({ jsonrpc: "2.0", id: "extra", method: "ping", extra: 1 })],
        [["array-params"], JSON.stringify({ jsonrpc: "2.0", id: "array-params", method: "tools/list", params: [] })],
        [[1.5], JSON.stringify({ jsonrpc: "2.0", id: 1.5, method: "ping" })],
        [["old"], JSON.stringify({ jsonrpc: "1.0", id: "old", method: "ping" })],
        [["method-number"], JSON.stringify({ jsonrpc: "2.0", id: "method-number", method: 5 })],
        [["batch-1", "batch-2"], JSON.stringify([{ jsonrpc: "2.0", id: "batch-1", method: "ping" }, { jsonrpc: "2.0", id: "batch-2", method: "ping" }])]
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
      const nulls = gateway.lines().map((line) => JSON.parse(line)).filter((message) => message.id === null).map((message) => message.error.code)
      assert.deepStrictEqual(nulls, [-32700, -32600, -32600])
      // The session still works, and each id was answered exactly once.
      gateway.send(request("after", "ping"))
      assert.deepStrictEqual((yield* Effect.promise(() => gateway.reply("after"))).result, {})
      const answered = gateway.lines().map((line) => JSON.parse(line).id)
      for (const id of ids) assert.strictEqual(answered.filter((seen) => seen === id).length, 1, `answers to ${String(id)}`)
      assertOnlyJsonRpc(gateway)
    }), 60_000)
})
