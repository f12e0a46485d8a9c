/**
 * Issue 10 section 2: every channel by which a server's data reaches a host, the audit or the
 * gateway's logs passes the redactions. The secret-server fixture puts a marked secret on each of
 * them; a real SDK client over the HTTP front and one over the stdio front record everything they
 * receive, and neither they, the audit rows (capture "full") nor the log lines hold it anywhere.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Client } from "@modelcontextprotocol/client"
import { Effect } from "effect"
import { startGateway } from "../e2e.ts"
import {
  type Received,
  recordingHttpClient,
  recordingLogs,
  recordingStdioClient,
  secretServer
} from "../leak-harness.ts"
import { leaksIn, PNG, SECRET_PATTERN } from "../secrets.ts"

const CONFIG = {
  servers: { leak: secretServer },
  policy: { default: "allow" },
  audit: { path: ":memory:", capture: "full" },
  redact: [{ pattern: SECRET_PATTERN }, { detectors: "all" }]
}

const TOOLS = [
  "leak_text",
  "leak_split",
  "leak_structured",
  "leak_link",
  "leak_meta",
  "leak_image",
  "leak_embedded",
  "leak_log",
  "leak_ask"
] as const

type Block = {
  readonly type: string
  readonly text?: string
  readonly data?: string
  readonly resource?: { readonly blob?: string }
}

/** Calls every tool, read and prompt; what the host got back (results and errors) by name. */
const exercise = (client: Client) =>
  Effect.promise(async () => {
    const got: Record<string, unknown> = {}
    got.tools = await client.listTools()
    for (const name of TOOLS) got[name] = await client.callTool({ name, arguments: {} })
    const progress: Array<unknown> = []
    got.leak_progress = await client.callTool({ name: "leak_progress", arguments: {} }, {
      onprogress: (p) => void progress.push(p)
    })
    got.progress = progress
    got.leak_error = await client.callTool({ name: "leak_error", arguments: {} }).then(
      (r) => ({ resolved: r }),
      (e: Error) => ({ rejected: e.message })
    )
    got.leak_crash = await client.callTool({ name: "leak_crash", arguments: {} }).then(
      (r) => ({ resolved: r }),
      (e: Error) => ({ rejected: e.message })
    )
    got.resources = await client.listResources()
    got.templates = await client.listResourceTemplates()
    got.note = await client.readResource({ uri: "secret://note" })
    got.blob = await client.readResource({ uri: "secret://blob" })
    got.prompts = await client.listPrompts()
    got.prompt = await client.getPrompt({ name: "leak" })
    got.completion = await client.complete({
      ref: { type: "ref/prompt", name: "leak" },
      argument: { name: "a", value: "" }
    })
    got.subscribe = await client.subscribeResource({ uri: "secret://note" }).then(
      (r) => ({ resolved: r }),
      (e: Error) => ({ rejected: e.message })
    )
    return got
  })

const content = (result: unknown): ReadonlyArray<Block> => (result as { content: ReadonlyArray<Block> }).content

/**
 * Asserts what this host got: nothing leaked anywhere, every channel was really exercised, exempt payloads are intact.
 */
const checkHost = (got: Record<string, unknown>, received: Received) => {
  assert.deepStrictEqual(leaksIn(received.raw.join("")), [], "raw bytes the host received")
  assert.deepStrictEqual(leaksIn(JSON.stringify(received.messages)), [], "messages the host received")
  assert.deepStrictEqual(leaksIn(JSON.stringify(got)), [], "answers the host's client returned")
  assert.notInclude(received.raw.join(""), "fatal:", "a server's stderr never reaches a host")
  // The split secret: the text blocks joined hold the redaction, not the secret.
  assert.strictEqual(content(got.leak_split).map((b) => b.text).join(""), "the key is [REDACTED], keep it safe")
  // Exempt by position: base64 image data and blobs pass unchanged.
  assert.strictEqual(content(got.leak_image)[0].data, PNG)
  assert.strictEqual(content(got.leak_embedded)[1].resource?.blob, PNG)
  assert.strictEqual((got.blob as { contents: ReadonlyArray<{ blob?: string }> }).contents[0].blob, PNG)
  // Each channel was exercised: progress and log notifications arrived, the error and the crash answered.
  assert.lengthOf(got.progress as ReadonlyArray<unknown>, 2)
  assert.include(JSON.stringify(got.progress), "[REDACTED]")
  const logs = received.messages.filter((m) => "method" in m && m.method === "notifications/message")
  assert.lengthOf(logs, 2)
  const asked = received.messages.filter((m) =>
    "method" in m && (m.method === "sampling/createMessage" || m.method === "elicitation/create")
  )
  assert.lengthOf(asked, 2)
  assert.include(JSON.stringify(asked), "confirm [REDACTED] and [REDACTED]")
  assert.strictEqual(content(got.leak_ask)[0].text, "asked: decline")
  assert.include(String((got.leak_error as { rejected?: string }).rejected), "the vault refused [REDACTED]")
  assert.include(JSON.stringify(got.leak_crash), "exited with code 3")
  assert.include(JSON.stringify(got.leak_structured), "[REDACTED]")
}

/** Waits until the crashed server's stderr has reached the log (it is handed over when the process is gone). */
const stderrLogged = (lines: ReadonlyArray<string>) =>
  Effect.promise(async () => {
    for (let i = 0; i < 500 && !lines.some((line) => line.includes("its stderr")); i++) {
      await new Promise((r) => setImmediate(r))
    }
  })

const checkGateway = (
  gateway: Effect.Success<ReturnType<typeof startGateway>>["gateway"],
  lines: ReadonlyArray<string>
) =>
  Effect.gen(function*() {
    yield* stderrLogged(lines)
    const stderrLine = lines.find((line) => line.includes("its stderr"))
    assert.isDefined(stderrLine, "the crashed server's stderr went to the gateway's log")
    assert.include(stderrLine, "fatal: [REDACTED] and [REDACTED]")
    assert.deepStrictEqual(leaksIn(lines.join("\n")), [], "the gateway's log")
    const rows = yield* gateway.store.query()
    assert.isAtLeast(rows.length, TOOLS.length + 3)
    assert.deepStrictEqual(leaksIn(JSON.stringify(rows)), [], "audit rows")
  })

describe("secrets on every channel", () => {
  it.live("over the HTTP front: the host, the audit and the logs never see them", () => {
    const lines: Array<string> = []
    return recordingLogs(
      lines,
      Effect.gen(function*() {
        const { gateway, http } = yield* startGateway(CONFIG)
        const { client, received } = yield* recordingHttpClient(http.mcpUrl)
        checkHost(yield* exercise(client), received)
        yield* checkGateway(gateway, lines)
      })
    )
  }, 60_000)

  it.live("over the stdio front: the host, the audit and the logs never see them", () => {
    const lines: Array<string> = []
    return recordingLogs(
      lines,
      Effect.gen(function*() {
        const { gateway } = yield* startGateway(CONFIG)
        const { client, received } = yield* recordingStdioClient(gateway)
        checkHost(yield* exercise(client), received)
        yield* checkGateway(gateway, lines)
      })
    )
  }, 60_000)
})
