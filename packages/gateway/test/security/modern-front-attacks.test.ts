/**
 * The 2026-07-28 front against an attacker, over real HTTP with SDK 2.4 clients and raw requests:
 * the guard stands in front of it, a request is its own principal's and no other's (listen streams,
 * session ids, a forged `_meta`), a header that disagrees with the body, a missing or forged
 * envelope, an unknown revision and an oversized body are refused before anything reaches a
 * server, and a server that puts a marked secret on every channel leaks nothing in this era either.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Client } from "@modelcontextprotocol/client"
import { Effect } from "effect"
import * as path from "node:path"
import { MAX_LISTENS_PER_PRINCIPAL } from "../../src/front/http/mcp/ModernRoute.ts"
import { cliIn, toolText } from "../cli-process.ts"
import { httpClient, NODE, startGateway } from "../e2e.ts"
import { recordingLogs, recordingModernHttpClient, secretServer } from "../leak-harness.ts"
import { envelope, MODERN, modernHttpClient, modernPost } from "../modern-wire.ts"
import { leaksIn, SECRET_PATTERN } from "../secrets.ts"
import { recorder } from "./call-recorder.ts"
import { rawStdioGateway } from "./stdio-wire.ts"

const ENV = { ALICE_TOKEN: "alice-token-0001", BOB_TOKEN: "bob-token-0002" }
const principals = { alice: { token: "env:ALICE_TOKEN" }, bob: { token: "env:BOB_TOKEN" } }
const alice = { authorization: `Bearer ${ENV.ALICE_TOKEN}` }
const bob = { authorization: `Bearer ${ENV.BOB_TOKEN}` }
const CONFORMANCE = { command: NODE, args: [path.join(import.meta.dirname, "..", "fixtures", "conformance-server.ts")] }

const transfer = (extra: Record<string, unknown> = {}) => ({
  id: 1,
  method: "tools/call",
  params: { name: "transfer_funds", arguments: { to: "mallory", memo: "m" }, _meta: envelope(), ...extra }
})

/** A gateway over the recording server with two principals; the recorded calls and the audit rows. */
const recordingGateway = Effect.gen(function*() {
  const bank = recorder()
  const { gateway, http } = yield* startGateway({
    servers: { bank: bank.server },
    policy: { default: "allow" },
    listen: { principals }
  }, ENV)
  const nothingGotThrough = Effect.gen(function*() {
    assert.strictEqual(bank.received(), "", "no call reached the server")
    const rows = yield* gateway.store.query()
    assert.deepStrictEqual(rows.filter((row) => row.outcome === "ok"), [], "no call completed")
  })
  return { gateway, http, bank, nothingGotThrough }
})

describe("the 2026-07-28 front's guard and principals", () => {
  it.live(
    "the guard comes first: no token, a wrong token, a foreign Host or Origin get nothing",
    () =>
      Effect.gen(function*() {
        const { http, nothingGotThrough } = yield* recordingGateway
        for (const headers of [{}, { authorization: "Bearer not-a-token" }]) {
          const answer = yield* modernPost(http.mcpUrl, transfer(), headers)
          assert.strictEqual(answer.status, 401, answer.text)
        }
        const evilOrigin = yield* modernPost(http.mcpUrl, transfer(), { ...alice, origin: "http://evil.example" })
        assert.strictEqual(evilOrigin.status, 403)
        const discover = yield* modernPost(http.mcpUrl, {
          id: 2,
          method: "server/discover",
          params: { _meta: envelope() }
        })
        assert.strictEqual(discover.status, 401, "not even discover answers a stranger")
        yield* nothingGotThrough
      }),
    60_000
  )

  it.live(
    "a request is its own token's: a forged principal in _meta and another's session id change nothing",
    () =>
      Effect.gen(function*() {
        const { gateway, http, bank } = yield* recordingGateway
        const aliceLegacy = yield* httpClient(http.mcpUrl, { token: ENV.ALICE_TOKEN })
        yield* Effect.promise(() => aliceLegacy.listTools())
        assert.strictEqual(http.liveSessions(), 1)
        const sessionId = (aliceLegacy.transport as { sessionId?: string } | undefined)?.sessionId
        assert.isString(sessionId)
        const forged = { ...envelope(), "interlock/principal": { id: "alice" }, principal: "alice" }
        const answer = yield* modernPost(http.mcpUrl, transfer({ _meta: forged }), {
          ...bob,
          "mcp-session-id": sessionId
        })
        assert.strictEqual(answer.status, 200, answer.text)
        const rows = yield* gateway.store.query()
        assert.deepStrictEqual(
          rows.map((row) => row.principal),
          ["bob"],
          "the call is bob's, whatever its _meta and headers claim"
        )
        assert.include(bank.received(), "mallory")
        // Alice's session is untouched, and still hers alone.
        assert.strictEqual(http.liveSessions(), 1)
        assert.include(
          (yield* Effect.promise(() => aliceLegacy.listTools())).tools.map((t) => t.name),
          "transfer_funds"
        )
      }),
    60_000
  )

  it.live(
    "listen streams are per principal: bob never hears of the resource alice follows, and his streams cannot fill hers",
    () =>
      Effect.gen(function*() {
        const { http } = yield* startGateway({
          servers: { conformance: CONFORMANCE },
          policy: { default: "allow" },
          listen: { principals }
        }, ENV)
        const seen = (client: Client) => {
          const methods: Array<string> = []
          const waiters: Array<() => void> = []
          for (const method of ["notifications/resources/updated", "notifications/tools/list_changed"] as const) {
            client.setNotificationHandler(method, () => {
              methods.push(method)
              for (const wake of waiters.splice(0)) wake()
            })
          }
          const until = async (method: string) => {
            while (!methods.includes(method)) await new Promise<void>((wake) => waiters.push(wake))
          }
          return { methods, until }
        }
        const aliceHost = yield* modernHttpClient(http.mcpUrl, { token: ENV.ALICE_TOKEN })
        const bobHost = yield* modernHttpClient(http.mcpUrl, { token: ENV.BOB_TOKEN })
        const aliceSeen = seen(aliceHost)
        const bobSeen = seen(bobHost)
        yield* Effect.promise(() => aliceHost.listResources())
        yield* Effect.promise(() =>
          aliceHost.listen({ toolsListChanged: true, resourceSubscriptions: ["test://watched-resource"] })
        )
        yield* Effect.promise(() => bobHost.listen({ toolsListChanged: true }))
        yield* Effect.promise(() => bobHost.callTool({ name: "test_update_watched_resource", arguments: {} }))
        yield* Effect.promise(() => aliceSeen.until("notifications/resources/updated"))
        // A list change after it reaches both streams: bob's stream works, and had the update come to it, it would be
        // here first.
        yield* Effect.promise(() => bobHost.callTool({ name: "test_change_lists", arguments: {} }))
        yield* Effect.promise(() => bobSeen.until("notifications/tools/list_changed"))
        yield* Effect.promise(() => aliceSeen.until("notifications/tools/list_changed"))
        assert.notInclude(bobSeen.methods, "notifications/resources/updated")

        // Bob opens as many streams as a principal may; one more is refused, and alice can still listen.
        const opened: Array<AbortController> = []
        yield* Effect.addFinalizer(() =>
          Effect.sync(() => {
            for (const c of opened) c.abort()
          })
        )
        const listen = (headers: Record<string, string>) =>
          Effect.promise(async () => {
            const controller = new AbortController()
            opened.push(controller)
            const response = await fetch(http.mcpUrl, {
              method: "POST",
              signal: controller.signal,
              headers: {
                "content-type": "application/json",
                accept: "application/json, text/event-stream",
                "mcp-protocol-version": MODERN,
                "mcp-method": "subscriptions/listen",
                ...headers
              },
              body: JSON.stringify({
                jsonrpc: "2.0",
                id: opened.length,
                method: "subscriptions/listen",
                params: { notifications: { toolsListChanged: true }, _meta: envelope() }
              })
            })
            const reader = response.body!.getReader()
            const first = await reader.read()
            return new TextDecoder().decode(first.value)
          })
        for (let i = 1; i < MAX_LISTENS_PER_PRINCIPAL; i++) {
          assert.include(yield* listen(bob), "notifications/subscriptions/acknowledged")
        }
        assert.include(yield* listen(bob), "Subscription limit reached")
        assert.include(yield* listen(alice), "notifications/subscriptions/acknowledged")
      }),
    60_000
  )
})

describe("the 2026-07-28 front refuses what does not add up", () => {
  it.live(
    "headers that disagree with the body, or are missing, are refused and nothing is called",
    () =>
      Effect.gen(function*() {
        const { http, nothingGotThrough } = yield* recordingGateway
        const cases: ReadonlyArray<[string, Record<string, string | undefined>]> = [
          ["Mcp-Method names another method", { ...alice, "mcp-method": "tools/list" }],
          ["Mcp-Name names another tool", { ...alice, "mcp-name": "harmless_tool" }],
          ["MCP-Protocol-Version names 2025", { ...alice, "mcp-protocol-version": "2025-11-25" }],
          ["no Mcp-Method", { ...alice, "mcp-method": undefined }],
          ["no Mcp-Name", { ...alice, "mcp-name": undefined }],
          ["no MCP-Protocol-Version", { ...alice, "mcp-protocol-version": undefined }]
        ]
        for (const [what, headers] of cases) {
          const answer = yield* modernPost(http.mcpUrl, transfer(), headers)
          assert.strictEqual(answer.status, 400, `${what}: ${answer.text}`)
          assert.isDefined(answer.json?.error, what)
          assert.isUndefined(answer.json?.result, what)
        }
        const mismatch = yield* modernPost(http.mcpUrl, transfer(), { ...alice, "mcp-name": "harmless_tool" })
        assert.include(mismatch.json.error.message, "Mcp-Name")
        yield* nothingGotThrough
      }),
    60_000
  )

  it.live(
    "a missing or malformed envelope, a pre-2026 or unknown revision: a clear refusal naming what is wrong",
    () =>
      Effect.gen(function*() {
        const { http, nothingGotThrough } = yield* recordingGateway
        // The revision requires the version and the capabilities; the client info is optional (SDK 2.4 agrees).
        const { "io.modelcontextprotocol/clientCapabilities": _capabilities, ...noCapabilities } = envelope()
        const refusals: ReadonlyArray<[string, Record<string, unknown>, Record<string, string>, string]> = [
          ["no client capabilities", transfer({ _meta: noCapabilities }), alice, "clientCapabilities"],
          [
            "client info not an object",
            transfer({ _meta: { ...envelope(), "io.modelcontextprotocol/clientInfo": "admin" } }),
            alice,
            "clientInfo"
          ],
          [
            "capabilities not an object",
            transfer({ _meta: { ...envelope(), "io.modelcontextprotocol/clientCapabilities": [1] } }),
            alice,
            "clientCapabilities"
          ],
          [
            "an unknown revision",
            transfer({ _meta: { ...envelope(), "io.modelcontextprotocol/protocolVersion": "2099-01-01" } }),
            { ...alice, "mcp-protocol-version": "2099-01-01" },
            MODERN
          ],
          [
            "a 2025 revision claimed in _meta",
            transfer({ _meta: { ...envelope(), "io.modelcontextprotocol/protocolVersion": "2025-11-25" } }),
            { ...alice, "mcp-protocol-version": "2025-11-25" },
            MODERN
          ],
          ["a modern header and no envelope", transfer({ _meta: {} }), alice, "envelope"]
        ]
        for (const [what, body, headers, named] of refusals) {
          const answer = yield* modernPost(http.mcpUrl, body, headers)
          assert.strictEqual(answer.status, 400, `${what}: ${answer.text}`)
          assert.include(JSON.stringify(answer.json.error), named, what)
        }
        // The 2025 path gives no way around it: an initialize claiming the modern header is refused too.
        const initialize = yield* modernPost(http.mcpUrl, {
          id: 3,
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } }
        }, alice)
        assert.strictEqual(initialize.status, 400, initialize.text)
        assert.strictEqual(http.liveSessions(), 0)
        yield* nothingGotThrough
      }),
    60_000
  )

  it.live(
    "an oversized body is answered 413 and never parsed or called; a JSON body of another type 415",
    () =>
      Effect.gen(function*() {
        const { http, nothingGotThrough } = yield* recordingGateway
        const big = transfer({ arguments: { to: "mallory", memo: "x".repeat(5 * 1024 * 1024) } })
        const answer = yield* modernPost(http.mcpUrl, big, alice)
        assert.strictEqual(answer.status, 413)
        const plain = yield* modernPost(http.mcpUrl, transfer(), { ...alice, "content-type": "text/plain" })
        assert.strictEqual(plain.status, 415, plain.text)
        yield* nothingGotThrough
      }),
    60_000
  )
})

describe("the 2026-07-28 front over stdio refuses what does not add up", () => {
  it.live(
    "a malformed envelope or an unknown revision is answered with an error, a pinned modern connection refuses " +
      "initialize, and nothing is called",
    () =>
      Effect.gen(function*() {
        const bank = recorder()
        const { dir, writeConfig } = cliIn("interlock-modern-stdio-attacks-")
        const file = writeConfig("interlock.config.json", {
          servers: { bank: bank.server },
          policy: { default: "allow" },
          audit: { path: ":memory:" }
        })
        const raw = yield* rawStdioGateway(file, dir, ["--conditions=@interlock/source"], false)
        const send = (id: string, method: string, params: Record<string, unknown>) =>
          Effect.promise(() => {
            raw.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }))
            return raw.reply(id)
          })
        const { "io.modelcontextprotocol/clientCapabilities": _capabilities, ...noCapabilities } = envelope()
        const call = { name: "transfer_funds", arguments: { to: "mallory", memo: "m" } }
        const missing = yield* send("a", "tools/call", { ...call, _meta: noCapabilities })
        assert.include(missing.error?.message, "clientCapabilities")
        const unknown = yield* send("b", "tools/call", {
          ...call,
          _meta: { ...envelope(), "io.modelcontextprotocol/protocolVersion": "2099-01-01" }
        })
        assert.include(JSON.stringify(unknown.error), MODERN)
        assert.strictEqual(bank.received(), "")
        const discover = yield* send("c", "server/discover", { _meta: envelope() })
        assert.include(discover.result?.supportedVersions as ReadonlyArray<string>, MODERN)
        assert.strictEqual(bank.received(), "", "nothing reached the server")
        const served = yield* send("e", "tools/call", { ...call, _meta: envelope() })
        assert.strictEqual(served.result?.resultType, "complete")
        assert.include(bank.received(), "mallory")
        const initialize = yield* send("d", "initialize", {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "x", version: "1" }
        })
        assert.isDefined(initialize.error, "a connection pinned to 2026-07-28 does not switch eras")
      }),
    60_000
  )
})

const LEAK_TOOLS = [
  "leak_text",
  "leak_split",
  "leak_structured",
  "leak_link",
  "leak_meta",
  "leak_image",
  "leak_embedded",
  "leak_log",
  "leak_ask",
  "leak_progress",
  "leak_error"
] as const

describe("secrets on every channel, in the 2026-07-28 era", () => {
  it.live("over the HTTP front: the host, the audit and the logs never see them", () => {
    const lines: Array<string> = []
    return recordingLogs(
      lines,
      Effect.gen(function*() {
        const { gateway, http } = yield* startGateway({
          servers: { leak: secretServer },
          policy: { default: "allow" },
          audit: { path: ":memory:", capture: "full" },
          redact: [{ pattern: SECRET_PATTERN }, { detectors: "all" }]
        })
        const { client, received } = yield* recordingModernHttpClient(http.mcpUrl)
        assert.strictEqual(client.getProtocolEra(), "modern")
        const got = yield* Effect.promise(async () => {
          const out: Record<string, unknown> = { tools: await client.listTools() }
          for (const name of LEAK_TOOLS) {
            // A log level, so that the server's log messages (which carry secrets) reach the host at all.
            const params = { name, arguments: {}, _meta: { "io.modelcontextprotocol/logLevel": "debug" } }
            out[name] = await client.callTool(params, { onprogress: () => undefined }).then(
              (r) => r,
              (e: Error) => ({ rejected: e.message })
            )
          }
          out.resources = await client.listResources()
          out.templates = await client.listResourceTemplates()
          out.note = await client.readResource({ uri: "secret://note" })
          out.prompts = await client.listPrompts()
          out.prompt = await client.getPrompt({ name: "leak" })
          out.completion = await client.complete({
            ref: { type: "ref/prompt", name: "leak" },
            argument: { name: "a", value: "" }
          })
          const listening = await client.listen({ resourceSubscriptions: ["secret://note"] }).then(
            (s) => s.honoredFilter,
            (e: Error) => ({ rejected: e.message })
          )
          out.listen = listening
          return out
        })
        assert.deepStrictEqual(leaksIn(received.raw.join("")), [], "raw bytes the host received")
        assert.deepStrictEqual(leaksIn(JSON.stringify(received.messages)), [], "messages the host received")
        assert.deepStrictEqual(leaksIn(JSON.stringify(got)), [], "answers the host's client returned")
        // The channels were exercised: the redacted texts, the error, the log messages on the call's stream.
        assert.strictEqual(toolText(got.leak_split), "the key is [REDACTED], keep it safe")
        assert.include(JSON.stringify(got.leak_error), "the vault refused [REDACTED]")
        assert.include(JSON.stringify(got.note), "[REDACTED]")
        const logs = received.messages.filter((m) => "method" in m && m.method === "notifications/message")
        assert.isAtLeast(logs.length, 1)
        const rows = yield* gateway.store.query()
        assert.isAtLeast(rows.length, LEAK_TOOLS.length)
        assert.deepStrictEqual(leaksIn(JSON.stringify(rows)), [], "audit rows")
        assert.deepStrictEqual(leaksIn(lines.join("\n")), [], "the gateway's log")
      })
    )
  }, 60_000)
})
