/**
 * Attacks with large host-sent values, over the real wire: names, URIs, ids and arguments past the
 * door caps are refused on both fronts with an error that names the cap and never echoes the value,
 * nothing reaches the pipeline or a server, and a flood of distinct 1 MB names cannot fill the heap
 * of a gateway child process run with a 128 MB heap.
 */
import { assert, describe, it } from "@effect/vitest"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Effect, Schema } from "effect"
import { spawn } from "node:child_process"
import { MAX_ID_LENGTH, MAX_NAME_LENGTH, MAX_URI_LENGTH, overLimit } from "../../src/front/http/DoorLimits.ts"
import { BIN, cliIn } from "../cli-process.ts"
import { echoServer, httpClient, NODE, startGateway } from "../e2e.ts"
import { rawStdioGateway } from "./stdio-wire.ts"

const MARK = "ZZ-LARGE-VALUE-ZZ"

/** The error text of a request that must fail. */
const failureOf = (attempt: () => Promise<unknown>) =>
  Effect.promise(() =>
    attempt().then(() => "(no error)", (error: unknown) => String(error instanceof Error ? error.message : error))
  )

/** A value of `length` characters that starts with MARK. */
const large = (length: number, seed = "") => `${MARK}${seed}`.padEnd(length, "x")

describe("door caps (the rule)", () => {
  it.effect.prop(
    "a request is refused exactly when a name, id or token is past its cap or its arguments past maxArgBytes, and " +
      "the error never quotes it",
    [
      Schema.String,
      Schema.Union([Schema.String, Schema.Int]),
      Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 60 })),
      Schema.Record(Schema.String, Schema.String),
      Schema.Int.check(Schema.isBetween({ minimum: 2, maximum: 400 }))
    ],
    ([seed, rawId, times, args, maxArgBytes]) =>
      Effect.sync(() => {
        // Repeating the generated strings reaches past the caps as often as it stays within them.
        const name = seed.repeat(times)
        const id = typeof rawId === "string" ? rawId.repeat(times * 3) : rawId
        const over = overLimit(
          { method: "tools/call", params: { name, arguments: args, _meta: { progressToken: id } } },
          id,
          { maxArgBytes }
        )
        const idOver = typeof id === "string" && id.length > MAX_ID_LENGTH
        const expected = idOver ? "MAX_ID_LENGTH" : name.length > MAX_NAME_LENGTH ?
          "MAX_NAME_LENGTH" :
          Buffer.byteLength(JSON.stringify(args)) > maxArgBytes
          ? "maxArgBytes"
          : undefined
        assert.strictEqual(over?.limit, expected)
        // Shorter than any value past a cap, so it cannot quote one.
        if (over !== undefined) assert.isBelow(over.message.length, MAX_NAME_LENGTH)
      })
  )
})

describe("door caps on nesting", () => {
  it("arguments nested past what JSON.stringify can walk are refused by maxArgBytes, not thrown", () => {
    let args: unknown = { leaf: MARK }
    for (let i = 0; i < 200_000; i++) args = { a: args }
    const over = overLimit({ method: "tools/call", params: { name: "echo", arguments: args } }, 1, {
      maxArgBytes: 1024 * 1024
    })
    assert.strictEqual(over?.limit, "maxArgBytes")
    assert.notInclude(over?.message ?? "", MARK)
  })
})

describe("door caps over HTTP", () => {
  it.live(
    "names, URIs, progress tokens and arguments past their caps are refused by cap, nothing is called, and refused " +
      "calls are audited without their values",
    () =>
      Effect.gen(function*() {
        const { gateway, http } = yield* startGateway({
          servers: { echo: echoServer },
          policy: { default: "allow" },
          maxArgBytes: 4096
        })
        const client = yield* httpClient(http.mcpUrl)
        const attempts: ReadonlyArray<readonly [string, () => Promise<unknown>]> = [
          ["MAX_NAME_LENGTH", () => client.callTool({ name: large(MAX_NAME_LENGTH + 1), arguments: {} })],
          ["MAX_NAME_LENGTH", () => client.getPrompt({ name: large(MAX_NAME_LENGTH + 1) })],
          ["MAX_URI_LENGTH", () => client.readResource({ uri: `echo://${large(MAX_URI_LENGTH)}` })],
          ["MAX_URI_LENGTH", () => client.subscribeResource({ uri: `echo://${large(MAX_URI_LENGTH)}` })],
          ["MAX_ID_LENGTH", () =>
            client.callTool({
              name: "echo",
              arguments: { text: "hi" },
              _meta: { progressToken: large(MAX_ID_LENGTH + 1) }
            })],
          ["maxArgBytes", () => client.callTool({ name: "echo", arguments: { text: large(5000) } })],
          ["maxArgBytes", () => client.getPrompt({ name: "note-0", arguments: { text: large(5000) } })]
        ]
        for (const [limit, attempt] of attempts) {
          const message = yield* failureOf(attempt)
          assert.include(message, limit)
          assert.notInclude(message, MARK)
          assert.isBelow(message.length, 300)
        }
        // Nothing went down the pipeline; each refused tools/call has a `refused` row that names the cap,
        // under its name cut to the cap, and holds nothing of the values. A call within the caps still works.
        const refused = yield* gateway.store.query({ limit: 10 })
        assert.deepStrictEqual(refused.map((row) => [row.outcome, row.sent]), [["refused", false], ["refused", false], [
          "refused",
          false
        ]])
        assert.deepStrictEqual(
          refused.map((row) => row.error?.match(/MAX_NAME_LENGTH|MAX_ID_LENGTH|maxArgBytes/)?.[0]).sort(),
          ["MAX_ID_LENGTH", "MAX_NAME_LENGTH", "maxArgBytes"]
        )
        for (const row of refused) assert.isAtMost(row.tool.length, MAX_NAME_LENGTH + 1)
        assert.isBelow(JSON.stringify(refused).length, 8_000)
        const ok = yield* Effect.promise(() => client.callTool({ name: "echo", arguments: { text: "x".repeat(4000) } }))
        assert.strictEqual((ok.content as Array<{ text: string }>)[0].text, "x".repeat(4000))
        assert.deepStrictEqual((yield* gateway.store.query({ limit: 10 })).map((row) => row.outcome), [
          "ok",
          "refused",
          "refused",
          "refused"
        ])
      }),
    60_000
  )
})

describe("door caps over stdio", () => {
  const { dir, writeConfig } = cliIn("interlock-caps-")

  it.live(
    "a request id past MAX_ID_LENGTH (answered with id null) and a tool name past MAX_NAME_LENGTH are refused by " +
      "cap, without the value",
    () =>
      Effect.gen(function*() {
        const gateway = yield* rawStdioGateway(
          writeConfig("echo.json", { servers: { echo: echoServer }, audit: { path: ":memory:" } }),
          dir
        )
        const longId = large(MAX_ID_LENGTH + 1)
        gateway.send(JSON.stringify({ jsonrpc: "2.0", id: longId, method: "tools/list" }))
        gateway.send(
          JSON.stringify({
            jsonrpc: "2.0",
            id: 2,
            method: "tools/call",
            params: { name: large(MAX_NAME_LENGTH + 1), arguments: {} }
          })
        )
        // An id past the cap is not echoed: the answer has id null (JSON-RPC's id for one it cannot give back).
        const byId = yield* Effect.promise(() => gateway.reply(null))
        assert.strictEqual(byId.error?.code, -32600)
        assert.include(byId.error?.message, "MAX_ID_LENGTH")
        assert.notInclude(gateway.lines().join("\n"), longId)
        const byName = yield* Effect.promise(() => gateway.reply(2))
        assert.strictEqual(byName.error?.code, -32602)
        assert.include(byName.error?.message, "MAX_NAME_LENGTH")
        assert.notInclude(JSON.stringify(byName), MARK)
      }),
    60_000
  )
})

/**
 * How many distinct 1 MB names each front gets (twice the heap: any retention per name fills it), and the heap the
 * gateway child runs with (MB).
 */
const FLOOD = 256
const HEAP_MB = 128
const MB = 1024 * 1024

/** Runs `count` tasks, `width` at a time. */
const inWaves = async (count: number, width: number, task: (index: number) => Promise<void>) => {
  for (let start = 0; start < count; start += width) {
    await Promise.all(Array.from({ length: Math.min(width, count - start) }, (_, offset) => task(start + offset)))
  }
}

/** `interlock serve --http 127.0.0.1:0` with a small heap; its MCP URL from the banner; killed with the scope. */
const httpGatewayChild = (config: string, cwd: string) =>
  Effect.gen(function*() {
    const child = yield* Effect.acquireRelease(
      Effect.sync(() =>
        spawn(NODE, [`--max-old-space-size=${HEAP_MB}`, BIN, "serve", "--http", "127.0.0.1:0", "--config", config], {
          cwd
        })
      ),
      (child) => Effect.sync(() => child.kill("SIGKILL"))
    )
    let stdout = ""
    let stderr = ""
    child.stderr.on("data", (chunk: Buffer) => void (stderr += chunk.toString()))
    const url = yield* Effect.promise(() =>
      new Promise<string>((resolve, reject) => {
        child.stdout.on("data", (chunk: Buffer) => {
          stdout += chunk.toString()
          const match = /MCP endpoint: (\S+)/.exec(stdout)
          if (match !== null) resolve(match[1])
        })
        child.on("exit", (code) => reject(new Error(`the gateway exited (${code}): ${stderr.slice(-2000)}`)))
      })
    )
    return { url, alive: () => child.exitCode === null && child.signalCode === null, stderr: () => stderr }
  })

describe("a flood of distinct 1 MB names", () => {
  const { dir, writeConfig } = cliIn("interlock-flood-")
  const config = () =>
    writeConfig("flood.json", {
      servers: { echo: echoServer },
      policy: { default: "allow" },
      audit: { path: ":memory:" }
    })

  it.live(
    `over stdio: ${FLOOD} calls leave a gateway with a ${HEAP_MB} MB heap answering`,
    () =>
      Effect.gen(function*() {
        const gateway = yield* rawStdioGateway(config(), dir, [`--max-old-space-size=${HEAP_MB}`])
        yield* Effect.promise(() =>
          inWaves(FLOOD, 8, async (index) => {
            gateway.send(
              JSON.stringify({
                jsonrpc: "2.0",
                id: index,
                method: "tools/call",
                params: { name: large(MB, String(index)), arguments: {} }
              })
            )
            const reply = await gateway.reply(index)
            assert.include(reply.error?.message, "MAX_NAME_LENGTH")
          })
        )
        gateway.send(
          JSON.stringify({
            jsonrpc: "2.0",
            id: "after",
            method: "tools/call",
            params: { name: "echo", arguments: { text: "still here" } }
          })
        )
        const after = yield* Effect.promise(() => gateway.reply("after"))
        assert.deepStrictEqual(after.result?.content, [{ type: "text", text: "still here" }])
        assert.isBelow(gateway.lines().reduce((total, line) => total + line.length, 0), FLOOD * 500)
      }),
    240_000
  )

  it.live(
    `over HTTP: ${FLOOD} calls leave a gateway with a ${HEAP_MB} MB heap answering`,
    () =>
      Effect.gen(function*() {
        const child = yield* httpGatewayChild(config(), dir)
        const client = new Client({ name: "flood-host", version: "1.0.0" })
        yield* Effect.acquireRelease(
          Effect.promise(() => client.connect(new StreamableHTTPClientTransport(new URL(child.url)))),
          () => Effect.promise(() => client.close().catch(() => undefined))
        )
        yield* Effect.promise(() =>
          inWaves(FLOOD, 8, async (index) => {
            const message = await client.callTool({ name: large(MB, String(index)), arguments: {} }).then(
              () => "(no error)",
              (error: Error) => error.message
            )
            assert.include(message, "MAX_NAME_LENGTH")
          })
        )
        const after = yield* Effect.promise(() => client.callTool({ name: "echo", arguments: { text: "still here" } }))
        assert.deepStrictEqual(after.content, [{ type: "text", text: "still here" }])
        assert.isTrue(child.alive())
      }),
    240_000
  )
})
