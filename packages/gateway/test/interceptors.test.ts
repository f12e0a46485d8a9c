/**
 * The gateway as an interceptor host (SEP-1763), end to end: a real SDK host in each era, the gateway
 * on HTTP, the recording server downstream (it writes every tools/call it receives), and the
 * interceptor fixture server of @interlock/mcp's tests over stdio or Streamable HTTP.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Client } from "@modelcontextprotocol/client"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { cliIn } from "./cli-process.ts"
import { httpClient, NODE, startGateway } from "./e2e.ts"
import { modernHttpClient } from "./modern-wire.ts"

const INTERCEPTOR_SERVER = path.join(
  import.meta.dirname,
  "..",
  "..",
  "mcp",
  "test",
  "fixtures",
  "interceptor-server.ts"
)
const RECORDING_SERVER = path.join(import.meta.dirname, "fixtures", "recording-server.ts")

/** One test interceptor (the fixture's Spec). */
interface Spec {
  readonly name: string
  readonly type: "validation" | "mutation"
  readonly behavior: string
  readonly phase?: "request" | "response" | "both"
  readonly mode?: "audit"
  readonly failOpen?: boolean
  readonly priorityHint?: number
  readonly field?: string
  readonly value?: string
  readonly events?: ReadonlyArray<string>
}

const tempFile = (name: string) => path.join(mkdtempSync(path.join(tmpdir(), "gateway-interceptors-")), name)

const lines = (file: string): Array<any> => {
  try {
    return readFileSync(file, "utf8").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line))
  } catch {
    return []
  }
}

const stdioInterceptor = (specs: ReadonlyArray<Spec>, record: string) => ({
  command: NODE,
  args: [INTERCEPTOR_SERVER],
  env: { INTERCEPTORS: JSON.stringify(specs), RECORD_FILE: record }
})

/** A gateway over the recording server with these interceptor entries; what each side recorded. */
const gatewayWith = (interceptors: (record: string) => ReadonlyArray<Record<string, unknown>>) =>
  Effect.gen(function*() {
    const downstream = tempFile("calls.jsonl")
    const invoked = tempFile("invocations.jsonl")
    const { gateway, http } = yield* startGateway({
      servers: { rec: { command: NODE, args: [RECORDING_SERVER], env: { RECORD_FILE: downstream } } },
      namespace: "never",
      policy: { default: "allow" },
      hookTimeoutMs: 1_500,
      interceptors: interceptors(invoked)
    })
    return { gateway, url: http.mcpUrl, calls: () => lines(downstream), invocations: () => lines(invoked) }
  })

const one = (specs: ReadonlyArray<Spec>, extra: Record<string, unknown> = {}) => (record: string) => [
  { server: stdioInterceptor(specs, record), ...extra }
]

const callNote = (client: Client, args: Record<string, unknown>) =>
  Effect.promise(async () => {
    const result = await client.callTool({ name: "note", arguments: args }) as {
      isError?: boolean
      content: Array<{ type: string; text?: string }>
    }
    return { isError: result.isError === true, text: result.content.map((c) => c.text ?? "").join("") }
  })

const ERAS = [
  ["2025-11-25", (url: string) => httpClient(url)],
  ["2026-07-28", (url: string) => modernHttpClient(url)]
] as const

describe("the gateway as an interceptor host", () => {
  for (const [era, connect] of ERAS) {
    it.live(`${era} host: a deny-all validator blocks the call and nothing reaches the server`, () =>
      Effect.gen(function*() {
        const g = yield* gatewayWith(one([{ name: "deny", type: "validation", behavior: "deny-all" }]))
        const client = yield* connect(g.url)
        const result = yield* callNote(client, { nonce: "n-1", secret: "PAYLOAD-MARK" })
        assert.isTrue(result.isError)
        assert.include(result.text, `interceptor "deny" found the request invalid (at arguments)`)
        assert.notInclude(result.text, "PAYLOAD-MARK")
        assert.deepStrictEqual(g.calls(), [])
        const [row] = yield* g.gateway.store.query({ limit: 1 })
        assert.strictEqual(row.outcome, "denied")
        assert.deepStrictEqual(row.receipt?.hooks.map((h) => [h.id, h.status]), [[
          "interceptor:deny:preToolCall",
          "deny"
        ]])
      }))

    it.live(`${era} host: the request mutation lands on the wire and the response mutation in what the host sees`, () =>
      Effect.gen(function*() {
        const g = yield* gatewayWith(one([
          { name: "stamp", type: "mutation", behavior: "rewrite-field", field: "nonce", value: "stamped" },
          { name: "reword", type: "mutation", behavior: "rewrite-field", value: "reworded", phase: "response" }
        ]))
        const client = yield* connect(g.url)
        const result = yield* callNote(client, { nonce: "n-2" })
        assert.deepStrictEqual(result, { isError: false, text: "reworded" })
        assert.deepStrictEqual(g.calls(), [{ tool: "note", nonce: "stamped" }])
      }))
  }

  it.live("audit mode records and never blocks", () =>
    Effect.gen(function*() {
      const g = yield* gatewayWith(one([
        { name: "watch", type: "validation", behavior: "deny-all", mode: "audit" },
        { name: "shadow", type: "mutation", behavior: "rewrite-field", field: "nonce", value: "x", mode: "audit" }
      ]))
      const client = yield* httpClient(g.url)
      const result = yield* callNote(client, { nonce: "n-3" })
      assert.deepStrictEqual(result, { isError: false, text: "noted n-3" })
      assert.deepStrictEqual(g.calls(), [{ tool: "note", nonce: "n-3" }])
      assert.deepStrictEqual(g.invocations().map((i) => i.name), ["shadow", "watch"])
      const [row] = yield* g.gateway.store.query({ limit: 1 })
      assert.strictEqual(row.outcome, "ok")
      assert.deepStrictEqual(row.receipt?.hooks.map((h) => [h.id, h.note?.replace(/[0-9a-f]{64}/, "<digest>")]), [
        ["interceptor:shadow:preToolCall", "audit modified shadow sha256:<digest>"],
        ["interceptor:watch:preToolCall", "audit invalid:error"]
      ])
    }))

  const FAILING = { crash: "crashes", hang: "hangs", junk: "answers junk" } as const
  for (const behavior of ["crash", "hang", "junk"] as const) {
    it.live(`an interceptor that ${FAILING[behavior]} fails closed by default, whatever it declares`, () =>
      Effect.gen(function*() {
        const g = yield* gatewayWith(one([{ name: behavior, type: "validation", behavior, failOpen: true }]))
        const client = yield* httpClient(g.url)
        const result = yield* callNote(client, { nonce: "n-4" })
        assert.isTrue(result.isError)
        assert.include(result.text, `interceptor:${behavior}:preToolCall`)
        assert.deepStrictEqual(g.calls(), [])
      }))
  }

  it.live("mutators run in priorityHint order, then the validators, on the mutated arguments", () =>
    Effect.gen(function*() {
      const g = yield* gatewayWith(one([
        { name: "needs-tag", type: "validation", behavior: "require-field", field: "tag" },
        { name: "second", type: "mutation", behavior: "rewrite-field", field: "tag", value: "second", priorityHint: 5 },
        { name: "first", type: "mutation", behavior: "rewrite-field", field: "tag", value: "first", priorityHint: -5 }
      ]))
      const client = yield* httpClient(g.url)
      const result = yield* callNote(client, { nonce: "n-5" })
      assert.isFalse(result.isError)
      assert.deepStrictEqual(g.invocations().map((i) => i.name), ["first", "second", "needs-tag"])
      assert.deepStrictEqual(g.invocations()[2].payload.arguments, { nonce: "n-5", tag: "second" })
      assert.deepStrictEqual(g.calls(), [{ tool: "note", nonce: "n-5" }])
    }))

  it.live("on the response, validators run before mutators: a blocked result is withheld and no mutator sees it", () =>
    Effect.gen(function*() {
      const g = yield* gatewayWith(one([
        { name: "reword", type: "mutation", behavior: "rewrite-field", value: "reworded", phase: "response" },
        { name: "deny", type: "validation", behavior: "deny-all", phase: "response" }
      ]))
      const client = yield* httpClient(g.url)
      const result = yield* callNote(client, { nonce: "n-6" })
      assert.isTrue(result.isError)
      assert.include(result.text, `Result withheld: interceptor "deny" found the response invalid`)
      assert.deepStrictEqual(g.invocations().map((i) => i.name), ["deny"])
    }))

  it.live("a mutator that renames the tool is refused, and the server is not called", () =>
    Effect.gen(function*() {
      const g = yield* gatewayWith(one([{ name: "renamer", type: "mutation", behavior: "rename" }]))
      const client = yield* httpClient(g.url)
      const result = yield* callNote(client, { nonce: "n-7" })
      assert.isTrue(result.isError)
      assert.include(result.text, `interceptor "renamer" changed the tool's name`)
      assert.deepStrictEqual(g.calls(), [])
    }))

  it.live("an interceptor server over Streamable HTTP, with only and events", () =>
    Effect.gen(function*() {
      const specs: ReadonlyArray<Spec> = [
        { name: "deny", type: "validation", behavior: "deny-all" },
        { name: "unused", type: "validation", behavior: "deny-all", events: ["prompts/get"] }
      ]
      const record = tempFile("http-invocations.jsonl")
      const server = yield* Effect.acquireRelease(
        Effect.callback<{ url: string; kill: () => void }, Error>((resume) => {
          const child = spawn(NODE, [INTERCEPTOR_SERVER, "http"], {
            env: { ...process.env, INTERCEPTORS: JSON.stringify(specs), RECORD_FILE: record },
            stdio: ["ignore", "ignore", "pipe"]
          })
          child.stderr.on("data", (chunk: Buffer) => {
            const port = /LISTENING (\d+)/.exec(chunk.toString())?.[1]
            if (port !== undefined) {
              resume(Effect.succeed({ url: `http://127.0.0.1:${port}/mcp`, kill: () => child.kill() }))
            }
          })
          child.once("exit", (code) => resume(Effect.fail(new Error(`exited ${code}`))))
        }),
        (s) => Effect.sync(s.kill)
      )
      const g = yield* gatewayWith(() => [{ server: { url: server.url }, only: ["deny"], events: ["tools/call"] }])
      const client = yield* modernHttpClient(g.url)
      const result = yield* callNote(client, { nonce: "n-8" })
      assert.isTrue(result.isError)
      assert.deepStrictEqual(g.calls(), [])
      assert.deepStrictEqual(lines(record).map((i) => i.name), ["deny"])
    }))

  it.live("an interceptor server that cannot be read stops the gateway with an error naming its entry", () =>
    Effect.gen(function*() {
      const started = yield* Effect.result(startGateway({
        servers: {},
        interceptors: [{
          server: { command: NODE, args: [INTERCEPTOR_SERVER], env: { INTERCEPTORS: "[]" } },
          only: ["ghost"]
        }]
      }))
      assert.strictEqual(started._tag, "Failure")
      const error = started._tag === "Failure" ? started.failure : undefined
      assert.include(String((error as { message?: string } | undefined)?.message), "interceptors[0]")
      assert.include(String((error as { message?: string } | undefined)?.message), `only names "ghost"`)
    }))

  it.live(
    "interlock check names each interceptor, and says when a declared failOpen is treated as fail-closed",
    () =>
      Effect.gen(function*() {
        const { cli, writeConfig } = cliIn("interlock-interceptors-")
        const specs: ReadonlyArray<Spec> = [
          { name: "lenient", type: "validation", behavior: "allow-all", failOpen: true },
          { name: "sampler", type: "validation", behavior: "allow-all", events: ["sampling/createMessage"] }
        ]
        const file = writeConfig("interceptors.json", {
          servers: {},
          interceptors: [{ server: stdioInterceptor(specs, tempFile("check.jsonl")) }]
        })
        const { code, stdout } = yield* cli(["check", "--config", file])
        assert.strictEqual(code, 0)
        assert.match(stdout, /Interceptor servers:\n {2}interceptors\[0\] +stdio .* failOpen never\n/)
        assert.match(
          stdout,
          /Interceptors \(2\):\n {2}lenient +interceptors\[0\] +validation +enforce +tools\/call request\n/
        )
        assert.include(
          stdout,
          `note: "lenient" declares failOpen; it is treated as fail-closed (interceptors[0] has failOpen: "never")`
        )
        assert.include(
          stdout,
          `note: "sampler" hooks sampling/createMessage (request), which Interlock has no hook for`
        )
      }),
    60_000
  )
})
