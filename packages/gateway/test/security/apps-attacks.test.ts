/**
 * MCP Apps attacks: an App server (the app-server fixture, APP_LEAK=1) puts marked secrets into
 * its `ui://` page (an attribute, a script string, text, a comment, a style), its tool's `_meta.ui`
 * and a tool result. Through a real gateway, neither the host (HTTP and stdio, both eras), the
 * audit nor the logs hold them, and the page the host gets is still well-formed: its tags balance
 * and its script still compiles. A redaction that would have to cut markup withholds the page.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as vm from "node:vm"
import { redactResourceEntry } from "../../src/governance/ContentRedaction.ts"
import { redactHtml, safeReplacement, WITHHELD_HTML } from "../../src/governance/HtmlRedaction.ts"
import { compileRedactions, type Redaction } from "../../src/governance/Redactor.ts"
import { appServer } from "../apps-fixture.ts"
import { startGateway } from "../e2e.ts"
import { recordingHttpClient, recordingLogs, recordingModernHttpClient, recordingStdioClient } from "../leak-harness.ts"
import { leaksIn, SECRET, SECRET_PATTERN } from "../secrets.ts"

const CONFIG = {
  servers: { leak: appServer("leak", "ui://app/index.html", true), plain: appServer("plain") },
  policy: { default: "allow" },
  audit: { path: ":memory:", capture: "full" },
  redact: [{ pattern: SECRET_PATTERN }, { detectors: "all" }]
}

const VOID = new Set([
  "area",
  "base",
  "br",
  "col",
  "embed",
  "hr",
  "img",
  "input",
  "link",
  "meta",
  "source",
  "track",
  "wbr"
])

/**
 * A small well-formedness check: every start tag (but void ones) has its end tag in order, every
 * attribute's quotes close, and script bodies compile as JavaScript. Returns what is wrong, or [].
 */
const malformed = (html: string): ReadonlyArray<string> => {
  const problems: Array<string> = []
  const open: Array<string> = []
  const body = html.replace(/<!--[\s\S]*?-->/g, "").replace(/<!doctype[^>]*>/i, "")
  const scripts = [...body.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1])
  for (const script of scripts) {
    try {
      new vm.Script(script)
    } catch {
      problems.push("a script no longer compiles")
    }
  }
  const withoutRaw = body.replace(/<(script|style)>[\s\S]*?<\/\1>/g, "<$1></$1>")
  for (
    const tag of withoutRaw.matchAll(/<(\/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[a-zA-Z-]+(?:="[^"]*"|='[^']*')?)*)\s*>/g)
  ) {
    const [, closing, name] = tag
    if (VOID.has(name)) continue
    if (closing === "") open.push(name)
    else if (open.pop() !== name) problems.push(`</${name}> closes nothing open`)
  }
  if (open.length > 0) problems.push(`unclosed: ${open.join(", ")}`)
  if (withoutRaw.replace(/<[^<>]*>/g, "").includes("<")) problems.push("a stray < in text, or a tag that did not parse")
  return problems
}

const HOSTS = [
  ["HTTP, 2025-11-25", (s: Effect.Success<ReturnType<typeof startGateway>>) => recordingHttpClient(s.http.mcpUrl)],
  [
    "HTTP, 2026-07-28",
    (s: Effect.Success<ReturnType<typeof startGateway>>) => recordingModernHttpClient(s.http.mcpUrl)
  ],
  ["stdio, 2025-11-25", (s: Effect.Success<ReturnType<typeof startGateway>>) => recordingStdioClient(s.gateway)],
  ["stdio, 2026-07-28", (s: Effect.Success<ReturnType<typeof startGateway>>) => recordingStdioClient(s.gateway, true)]
] as const

type Entry = { readonly text?: string; readonly _meta?: unknown }

describe("MCP Apps attacks", () => {
  it.live(
    "secrets in an App's page, its _meta.ui and its result reach no host, audit or log, and the page stays well-formed",
    () => {
      const lines: Array<string> = []
      return recordingLogs(
        lines,
        Effect.gen(function*() {
          const started = yield* startGateway(CONFIG)
          for (const [label, connect] of HOSTS) {
            const { client, received } = yield* connect(started)
            const tools = (yield* Effect.promise(() => client.listTools())).tools
            const show = tools.find((t) => t.name === "leak__show")
            assert.strictEqual(
              (show?._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri,
              "ui://leak__app/index.html",
              label
            )
            assert.include(
              JSON.stringify(show?._meta),
              "[REDACTED]",
              `${label}: the secret in _meta.ui was masked, not dropped`
            )
            const [page] = (yield* Effect.promise(() => client.readResource({ uri: "ui://leak__app/index.html" })))
              .contents as ReadonlyArray<Entry>
            const [plain] = (yield* Effect.promise(() => client.readResource({ uri: "ui://plain__app/index.html" })))
              .contents as ReadonlyArray<Entry>
            const result = yield* Effect.promise(() => client.callTool({ name: "leak__show", arguments: {} }))
            assert.include(JSON.stringify(result), "its key is [REDACTED]", label)
            const html = page.text ?? ""
            assert.deepStrictEqual(malformed(html), [], `${label}: the redacted page is well-formed`)
            assert.deepStrictEqual(
              malformed(plain.text ?? ""),
              [],
              `${label}: the fixture's page itself is well-formed`
            )
            assert.include(html, `data-key="[REDACTED] [REDACTED]"`, `${label}: the secret in an attribute`)
            assert.include(
              html,
              `key: "[REDACTED] [REDACTED]", other: '[REDACTED] [REDACTED]'`,
              `${label}: the secrets in script strings`
            )
            assert.include(html, "<!-- build key [REDACTED] [REDACTED] -->", label)
            // Beyond the secrets, the page is the server's own (the plain copy has "none" where the secrets were).
            assert.strictEqual(
              html.replaceAll("[REDACTED] [REDACTED]", "none").replaceAll("leak", "plain"),
              plain.text,
              label
            )
            assert.deepStrictEqual(leaksIn(received.raw.join("")), [], `${label}: raw bytes the host received`)
            assert.deepStrictEqual(
              leaksIn(JSON.stringify(received.messages)),
              [],
              `${label}: messages the host received`
            )
          }
          const rows = yield* started.gateway.store.query()
          assert.isAtLeast(rows.length, HOSTS.length)
          assert.deepStrictEqual(leaksIn(JSON.stringify(rows)), [], "audit rows")
          assert.deepStrictEqual(leaksIn(lines.join("\n")), [], "the gateway's log")
        })
      )
    },
    120_000
  )
})

const redactions = (entries: ReadonlyArray<Record<string, unknown>>) =>
  compileRedactions(entries) as ReadonlyArray<Redaction>

describe("HTML redaction", () => {
  const page = (secret: string) =>
    `<!doctype html><html><body><p class="x" data-k="${secret}">a ${secret} b</p><script>let s = "${secret}"; // ` +
    `${secret}\nlet t = 1;</script></body></html>`

  it("masks only content: a pattern that spans quotes, tags and line breaks leaves them in place", () => {
    const out = redactHtml(page(SECRET), redactions([{ pattern: `${SECRET}[^x]{0,6}` }]))
    assert.notInclude(out, "SECRET-")
    assert.deepStrictEqual(malformed(out), [])
    // The match ran past the attribute's closing quote and the script string's: both quotes stayed.
    assert.include(out, `data-k="[REDACTED]">`)
    assert.include(out, `let s = "[REDACTED]"[REDACTED]`)
  })

  it("withholds the page when a match covers a tag's or an attribute's name", () => {
    assert.strictEqual(redactHtml(`<p ${SECRET}="1">x</p>`, redactions([{ pattern: SECRET_PATTERN }])), WITHHELD_HTML)
    assert.strictEqual(redactHtml(page("x"), redactions([{ pattern: "body" }])), WITHHELD_HTML)
    assert.deepStrictEqual(malformed(WITHHELD_HTML), [])
  })

  it("a replacement cannot open markup or end a string", () => {
    assert.strictEqual(safeReplacement(`<b onclick="x">'\`\\\n`), "bonclickx")
    assert.strictEqual(safeReplacement("<>"), "REDACTED")
    const out = redactHtml(
      page(SECRET),
      redactions([{ pattern: SECRET_PATTERN, replacement: "</script><img src=x onerror=alert(1)>" }])
    )
    assert.deepStrictEqual(malformed(out), [])
    assert.notInclude(out, "<img")
    assert.strictEqual(
      redactHtml(`a <${"1"}${SECRET}`, redactions([{ pattern: `1${SECRET}`, replacement: "hidden" }])),
      "a < hidden"
    )
  })

  it("leaves a page without a match as it is, and a blob of HTML stays exempt by position", () => {
    const html = page("nothing")
    assert.strictEqual(redactHtml(html, redactions([{ pattern: SECRET_PATTERN }, { detectors: "all" }])), html)
    const blob = {
      uri: "ui://app/index.html",
      mimeType: "text/html;profile=mcp-app",
      blob: Buffer.from(page(SECRET)).toString("base64")
    }
    assert.strictEqual(redactResourceEntry(blob, redactions([{ pattern: SECRET_PATTERN }])), blob)
  })
})
