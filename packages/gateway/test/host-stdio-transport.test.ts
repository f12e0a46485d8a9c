/**
 * HostStdioTransport over real streams (PassThrough): what reaches `onmessage` (the parsed,
 * checked messages, every key as the host wrote it; no invalid frame), what the host reads, and
 * the close, send and stdout behaviours kept from the SDK's StdioServerTransport.
 */
import { assert, describe, it } from "@effect/vitest"
import { JsonText } from "@interlock/core"
import type { JSONRPCMessage } from "@modelcontextprotocol/server"
import { Effect, Schema } from "effect"
import { PassThrough } from "node:stream"
import { HostStdioTransport } from "../src/front/stdio/HostStdioTransport.ts"

/** A started transport on fresh streams, with everything it delivered, reported and wrote. */
const started = (maxBytes?: number) =>
  Effect.promise(async () => {
    const input = new PassThrough()
    const output = new PassThrough()
    const transport = new HostStdioTransport(input, output, maxBytes)
    const messages: Array<JSONRPCMessage> = []
    const errors: Array<Error> = []
    let closes = 0
    transport.onmessage = (message) => void messages.push(message)
    transport.onerror = (error) => void errors.push(error)
    transport.onclose = () => void (closes += 1)
    await transport.start()
    const lines: Array<any> = []
    /** The lines written to the host so far, read with JsonText. */
    const written = (): Array<any> => {
      const text = (output.read() as Buffer | null)?.toString("utf8") ?? ""
      lines.push(...text.split("\n").filter((line) => line.length > 0).map((line) => JsonText.parse(line)))
      return lines
    }
    return { input, output, transport, messages, errors, closes: () => closes, written }
  })

/** Resolves after the streams' pending events (nextTick and immediates) have run. */
const settled = Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))

const ping = (id: string | number): JSONRPCMessage => ({ jsonrpc: "2.0", id, method: "ping" })

describe("HostStdioTransport", () => {
  it.effect(
    "delivers each valid frame once, parsed with every key as sent; invalid frames are answered and " +
      "never delivered",
    () =>
      Effect.gen(function*() {
        const t = yield* started(200)
        const trapped: JSONRPCMessage = {
          jsonrpc: "2.0",
          id: 7,
          method: "tools/call",
          params: { name: "echo", arguments: { a: { "x\\": 1 }, b: { "x\n": 2 }, c: [{ "\\": 3 }, { "\"": 4 }] } }
        }
        t.input.write(
          `${JSON.stringify(ping(1))}\nnot json\n${JSON.stringify({ jsonrpc: "2.0", id: "bad", method: 5 })}\n`
        )
        t.input.write(
          `${JSON.stringify([ping("b1")])}\n{"jsonrpc":"2.0","id":"big","method":"ping","params":{"x":"${
            "a".repeat(300)
          }"}}\n`
        )
        t.input.write(`${JSON.stringify(trapped).slice(0, 20)}`)
        t.input.write(`${JSON.stringify(trapped).slice(20)}\r\n`)
        yield* settled
        assert.deepStrictEqual(t.messages, [ping(1), trapped])
        assert.deepStrictEqual(t.written().map((line) => [line.id, line.error.code]), [
          [null, -32700],
          ["bad", -32600],
          [
            "b1",
            -32600
          ],
          [null, -32600]
        ])
        assert.deepStrictEqual(t.errors, [])
      })
  )

  it.effect.prop("any arguments, in any chunks, reach onmessage exactly as the host wrote them", [
    Schema.Record(Schema.String, Schema.Json),
    Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 48 }))
  ], ([args, cut]) =>
    Effect.gen(function*() {
      const t = yield* started()
      const sent: JSONRPCMessage = {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "echo", arguments: { a: { "x\\": 1 }, args } }
      }
      const bytes = Buffer.from(`${JSON.stringify(sent)}\n`, "utf8")
      for (let i = 0; i < bytes.length; i += cut) t.input.write(bytes.subarray(i, i + cut))
      yield* settled
      assert.deepStrictEqual(t.messages, [JsonText.parse(JSON.stringify(sent))])
      assert.deepStrictEqual(t.written(), [])
    }))

  it.effect("sends one JSON line per message, as the SDK serializes it", () =>
    Effect.gen(function*() {
      const t = yield* started()
      const reply: JSONRPCMessage = { jsonrpc: "2.0", id: 1, result: { keys: { "x\n": 1, "x\\": 2 } } }
      yield* Effect.promise(() => t.transport.send(reply))
      assert.strictEqual((t.output.read() as Buffer).toString("utf8"), `${JSON.stringify(reply)}\n`)
    }))

  it.effect("a send into a full output resolves only once the output drains", () =>
    Effect.gen(function*() {
      const input = new PassThrough()
      const output = new PassThrough({ highWaterMark: 1 })
      const transport = new HostStdioTransport(input, output)
      yield* Effect.promise(() => transport.start())
      let sent = false
      const sending = transport.send({ jsonrpc: "2.0", id: 1, result: { text: "a".repeat(1000) } }).then(() =>
        void (sent = true)
      )
      yield* settled
      assert.isFalse(sent, "resolved before the output drained")
      output.resume()
      yield* Effect.promise(() => sending)
      assert.isTrue(sent)
    }))

  it.effect("the end of stdin closes it once; nothing is delivered after, and a send rejects", () =>
    Effect.gen(function*() {
      const t = yield* started()
      t.input.end(`${JSON.stringify(ping(1))}\n`)
      yield* settled
      assert.strictEqual(t.closes(), 1)
      assert.deepStrictEqual(t.messages, [ping(1)])
      const refused = yield* Effect.promise(() =>
        t.transport.send(ping(2)).then(() => "sent", (error: Error) => error.message)
      )
      assert.include(refused, "closed")
      yield* Effect.promise(() => t.transport.close())
      assert.strictEqual(t.closes(), 1, "a second close does nothing")
    }))

  it.effect("close stops delivery and pauses stdin; closing twice reports one close", () =>
    Effect.gen(function*() {
      const t = yield* started()
      yield* Effect.promise(() => t.transport.close())
      yield* Effect.promise(() => t.transport.close())
      t.input.write(`${JSON.stringify(ping(1))}\n`)
      yield* settled
      assert.strictEqual(t.closes(), 1)
      assert.deepStrictEqual(t.messages, [])
      assert.isTrue(t.input.isPaused())
      assert.strictEqual(t.input.listenerCount("data"), 0)
    }))

  it.effect("a failing stdout is reported and closes it; a stdin already ended at start closes it", () =>
    Effect.gen(function*() {
      const t = yield* started()
      t.output.destroy(new Error("EPIPE: the host went away"))
      yield* settled
      assert.deepStrictEqual(t.errors.map((error) => error.message), ["EPIPE: the host went away"])
      assert.strictEqual(t.closes(), 1)
      const input = new PassThrough()
      input.end()
      input.resume()
      yield* settled
      const late = new HostStdioTransport(input, new PassThrough())
      let closed = false
      late.onclose = () => void (closed = true)
      yield* Effect.promise(() => late.start())
      yield* settled
      assert.isTrue(closed)
    }))

  it.effect("a second start rejects, and a handler that throws is reported without ending the session", () =>
    Effect.gen(function*() {
      const t = yield* started()
      const again = yield* Effect.promise(() =>
        t.transport.start().then(() => "started", (error: Error) => error.message)
      )
      assert.include(again, "already started")
      t.transport.onmessage = (message) => {
        if ("id" in message && message.id === 1) throw new Error("handler failed")
        t.messages.push(message)
      }
      t.input.write(`${JSON.stringify(ping(1))}\n${JSON.stringify(ping(2))}\n`)
      yield* settled
      assert.deepStrictEqual(t.errors.map((error) => error.message), ["handler failed"])
      assert.deepStrictEqual(t.messages, [ping(2)])
      assert.strictEqual(t.closes(), 0)
    }))
})
