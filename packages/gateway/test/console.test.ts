import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { chromium } from "playwright-core"
import { echoServer, httpClient, startGateway } from "./e2e.ts"

const launch = Effect.acquireRelease(
  Effect.promise(() =>
    // A fresh --user-data-dir (playwright takes it as the persistent context's directory).
    chromium.launchPersistentContext(mkdtempSync(path.join(tmpdir(), "interlock-chromium-")), {
      executablePath: "/usr/bin/chromium",
      headless: true,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"]
    })),
  (browser) => Effect.promise(() => browser.close())
)

const text = (result: unknown): string =>
  ((result as { content: Array<{ text?: string }> }).content ?? []).map((block) => block.text ?? "").join("")

describe("web console in headless Chromium", () => {
  it.live("shows calls with receipts, a per-tool chart, and approves a pending call", () =>
    Effect.gen(function*() {
      const { http } = yield* startGateway({
        servers: { echo: echoServer },
        // The console's approver holds its own token: the caller's token cannot approve its own calls.
        listen: { token: "env:GW_TOKEN", consoleToken: "env:CONSOLE_TOKEN" },
        approvals: { via: "console", timeoutSeconds: 60 },
        policy: {
          default: "allow",
          rules: [
            { id: "no-crash", match: "echo/crash", decision: "deny" },
            { id: "writes", match: "echo/write_file", decision: "ask" }
          ]
        }
      }, { GW_TOKEN: "console-token-1", CONSOLE_TOKEN: "approver-token-1" })
      const client = yield* httpClient(http.mcpUrl, { token: "console-token-1" })
      yield* Effect.promise(() => client.callTool({ name: "echo", arguments: { text: "one" } }))
      yield* Effect.promise(() => client.callTool({ name: "crash", arguments: {} }))

      const browser = yield* launch
      const page = yield* Effect.promise(() => browser.newPage())
      const unauthorized = yield* Effect.promise(() => page.goto(http.consoleUrl))
      assert.strictEqual(unauthorized?.status(), 401)
      yield* Effect.promise(() => page.goto(`${http.consoleUrl}?token=approver-token-1`))
      yield* Effect.promise(() => page.waitForSelector("#calls tbody tr[data-outcome='denied']"))
      const outcomes = yield* Effect.promise(() => page.$$eval("#calls tbody tr", (rows) => rows.map((row) => (row as unknown as { dataset: Record<string, string> }).dataset.outcome)))
      assert.deepStrictEqual(outcomes, ["denied", "ok"])
      const policyCell = yield* Effect.promise(() => page.textContent("#calls tbody tr:first-child td:nth-child(5)"))
      assert.strictEqual(policyCell, "deny (no-crash)")
      const bars = yield* Effect.promise(() => page.$$eval("#chart-calls rect.bar", (rects) => rects.map((r) => r.getAttribute("data-outcome"))))
      assert.deepStrictEqual([...new Set(bars)].sort(), ["denied", "ok"])

      const pending = client.callTool({ name: "write_file", arguments: { path: "notes.txt", content: "hello" } })
      yield* Effect.promise(() => page.waitForSelector("#approvals tbody tr[data-id] button[data-decision='allow']"))
      const row = yield* Effect.promise(() => page.textContent("#approvals tbody tr[data-id]"))
      assert.include(row ?? "", "echo/write_file")
      yield* Effect.promise(() => page.click("#approvals tbody tr[data-id] button[data-decision='allow']"))
      const result = yield* Effect.promise(() => pending)
      assert.strictEqual(text(result), "wrote notes.txt")
      yield* Effect.promise(() => page.waitForSelector("#calls tbody tr:first-child td:nth-child(6):has-text('allow:console:console-token')"))
      assert.strictEqual(yield* Effect.promise(() => page.textContent("#calls tbody tr:first-child td.approved-by")), "console-token")
      assert.include(yield* Effect.promise(() => page.textContent("#viewer")), "console-token (approver")
      yield* Effect.promise(() => page.waitForSelector("#approvals tbody td.empty"))
    }), 90_000)
})
