/**
 * MCP hints reach the policy through the gateway: a Cedar `resource.readOnlyHint` and a JSON rule's
 * `annotations` see what the real @modelcontextprotocol/server-filesystem lists for each tool, on
 * the HTTP front (in process, the server connected on first use; and `interlock serve`, connected
 * at start) and the stdio front, for 2025 and 2026-07-28 hosts that call without listing first.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Client } from "@modelcontextprotocol/client"
import { Effect } from "effect"
import { existsSync, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { BIN, serveHttp, toolText } from "./cli-process.ts"
import { httpClient, NODE, startGateway } from "./e2e.ts"
import { modernHttpClient, stdioClient } from "./modern-wire.ts"

const FILESYSTEM = path.join(
  import.meta.dirname,
  "..",
  "..",
  "..",
  "node_modules",
  "@modelcontextprotocol",
  "server-filesystem",
  "dist",
  "index.js"
)

/** A fresh root with a file in it, and the filesystem server on it as `files`. */
const filesRoot = () => {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), "interlock-hints-")))
  writeFileSync(path.join(root, "note.txt"), "hello")
  return { root, files: { command: NODE, args: [FILESYSTEM, root], cwd: root } }
}

/** The policy: only tools the server says are read-only, with "directory" in their name. */
const CEDAR = `@id("read-only-dirs")
permit(principal, action == Interlock::Action::"callTool", resource)
  when { resource.server == "files" && resource.name like "*directory*" && resource.readOnlyHint };
`

/** JSON rules on the hints: a destructive tool is denied, a read-only one allowed, one non-destructive one allowed. */
const RULES = {
  default: "deny",
  rules: [
    {
      id: "no-destroy",
      match: "files/*",
      decision: "deny",
      reason: "destructive",
      annotations: { destructiveHint: true }
    },
    { id: "read-only", match: "files/*", decision: "allow", annotations: { readOnlyHint: true } },
    { id: "mkdir-ok", match: "files/create_directory", decision: "allow", annotations: { destructiveHint: false } }
  ]
}

/** A rule on the hints of a server that never starts: the call must fail before any decision on defaults. */
const RULES_ON_BROKEN = {
  default: "deny",
  rules: [{ id: "read-only", match: "broken/*", decision: "allow", annotations: { readOnlyHint: true } }]
}

type Kind = "cedar" | "json"

/** The policy config of a kind, its Cedar file written under `root`. */
const policyOf = (kind: Kind, root: string) => {
  if (kind === "json") return RULES
  const file = path.join(root, "..", `${path.basename(root)}.cedar`)
  writeFileSync(file, CEDAR)
  return { cedar: file }
}

/** Calls a tool and says whether it ran (a result that is no error) and what it answered. */
const call = (client: Client, name: string, args: Record<string, unknown>) =>
  Effect.promise(async () => {
    const result = await client.callTool({ name, arguments: args })
    return { ran: result.isError !== true, text: toolText(result) }
  })

/** What each policy lets through, called first thing by a new host (nothing listed yet). */
const assertDecisions = (client: Client, kind: Kind, root: string, what: string) =>
  Effect.gen(function*() {
    const listed = yield* call(client, "list_directory", { path: root })
    assert.isTrue(listed.ran, `${what}: list_directory (readOnlyHint: true) must be allowed: ${listed.text}`)
    assert.include(listed.text, "note.txt", what)
    const made = yield* call(client, "create_directory", { path: path.join(root, `made-${kind}`) })
    // Cedar: not read-only, so no permit; JSON: destructiveHint false, so mkdir-ok allows it.
    assert.strictEqual(made.ran, kind === "json", `${what}: create_directory: ${made.text}`)
    assert.strictEqual(existsSync(path.join(root, `made-${kind}`)), kind === "json", what)
    const wrote = yield* call(client, "write_file", { path: path.join(root, "x.txt"), content: "no" })
    assert.isFalse(wrote.ran, `${what}: write_file (destructive) must be denied`)
    assert.include(wrote.text, kind === "json" ? "destructive" : "no Cedar policy permits this request", what)
    assert.isFalse(existsSync(path.join(root, "x.txt")), what)
  })

describe("MCP hints reach the policy through the gateway", () => {
  for (const kind of ["cedar", "json"] as const) {
    it.live(
      `${kind}, HTTP front in process (server connected on the first call), 2025 and 2026-07-28 hosts`,
      () =>
        Effect.gen(function*() {
          for (const era of ["2025", "2026-07-28"] as const) {
            const { files, root } = filesRoot()
            const { http } = yield* startGateway({ servers: { files }, policy: policyOf(kind, root) })
            const client = era === "2025" ? yield* httpClient(http.mcpUrl) : yield* modernHttpClient(http.mcpUrl)
            yield* assertDecisions(client, kind, root, `${kind} http ${era}`)
          }
        }),
      120_000
    )

    it.live(
      `${kind}, stdio front of \`interlock serve --stdio\`, 2025 and 2026-07-28 hosts`,
      () =>
        Effect.gen(function*() {
          for (const era of ["legacy", "modern"] as const) {
            const { files, root } = filesRoot()
            const config = path.join(root, "..", `${path.basename(root)}.json`)
            writeFileSync(
              config,
              JSON.stringify({ servers: { files }, policy: policyOf(kind, root), audit: { path: ":memory:" } })
            )
            const client = yield* stdioClient(
              NODE,
              ["--conditions=@interlock/source", BIN, "serve", "--stdio", "--config", config],
              era
            )
            yield* assertDecisions(client, kind, root, `${kind} stdio ${era}`)
          }
        }),
      120_000
    )
  }

  it.live(
    "the issue's case: `interlock serve` over HTTP permits list_directory under the Cedar policy",
    () =>
      Effect.gen(function*() {
        const { files, root } = filesRoot()
        const dir = path.join(root, "..", `${path.basename(root)}-serve`)
        mkdirSync(dir)
        const served = yield* serveHttp(dir, {
          servers: { files },
          policy: policyOf("cedar", root),
          audit: { path: ":memory:" }
        })
        const client = yield* httpClient(served.url)
        yield* assertDecisions(client, "cedar", root, "cedar serve http")
      }),
    120_000
  )
})

describe("learning a tool's definition first", () => {
  it.live(
    "a server that cannot start fails the first call, unsent, before any decision on guessed hints; its stderr " +
      "never shows",
    () =>
      Effect.gen(function*() {
        const secret = "sk-abcdefghijklmnopqrstuvwxyz0123"
        const { gateway, http } = yield* startGateway({
          servers: {
            broken: { command: NODE, args: ["-e", `console.error("starting with token ${secret}"); process.exit(3)`] }
          },
          policy: RULES_ON_BROKEN,
          redact: [{ detectors: "all" }]
        })
        const client = yield* httpClient(http.mcpUrl)
        const answer = yield* Effect.promise(() =>
          client.callTool({ name: "anything", arguments: {} }).then(toolText, (error: Error) => error.message)
        )
        // The host learns why (not a denial on MCP's defaults), and nothing of what the server printed.
        assert.include(answer, "ended during start", answer)
        assert.notInclude(answer, secret)
        const rows = yield* gateway.store.query()
        assert.deepStrictEqual(rows.map((row) => [row.outcome, row.sent]), [["failed", false]])
        assert.notInclude(JSON.stringify(rows), secret)
      }),
    60_000
  )
})
