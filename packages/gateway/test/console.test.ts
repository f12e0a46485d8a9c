import { assert, describe, it } from "@effect/vitest"
import { Verdict } from "@interlock/core"
import { Effect } from "effect"
import { mkdirSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import type { Page } from "playwright-core"
import { launchChromium } from "./chromium.ts"
import { echoServer, httpClient, startGateway } from "./e2e.ts"

const run = <A>(f: () => Promise<A>) => Effect.promise(f)

const count = (page: Page, selector: string) => run(() => page.$$eval(selector, (nodes) => nodes.length))

/** The seconds a countdown's text ("m:ss left") shows. */
const secondsLeft = (shown: string | null): number => {
  const match = /^(\d+):(\d\d) left$/.exec(shown ?? "")
  assert.isNotNull(match, String(shown))
  return Number(match![1]) * 60 + Number(match![2])
}

/** What the test reads of `/api/state`. */
interface State {
  readonly calls: ReadonlyArray<{ readonly id: number; readonly principal: string | null; readonly tool: string }>
  readonly options: { readonly principal: ReadonlyArray<string> }
  readonly approvals: ReadonlyArray<{ readonly time: number; readonly deadline: number }>
  readonly series: {
    readonly outcomes: ReadonlyArray<string>
    readonly buckets: ReadonlyArray<
      { readonly counts: Record<string, number>; readonly p50: number | null; readonly p95: number | null }
    >
  }
}

// The page's globals that the functions run in the page use (they run there, serialized; the
// test's tsconfig has no DOM lib). `window` holds what the init script and a payload would set.
interface PageElement {
  readonly textContent: string | null
  readonly dataset: Readonly<Record<string, string | undefined>>
}
declare const document: {
  querySelectorAll(selector: string): ArrayLike<PageElement>
  querySelector(selector: string): PageElement | null
  readonly scripts: ArrayLike<unknown>
}
declare const window: { readonly __pwned?: number; readonly __violations?: ReadonlyArray<string> }
/** The page script's function behind the approve and deny buttons. */
declare const answer: (id: string, digest: string, decision: "allow" | "deny") => Promise<void>

/** In the page: whether the calls table lists `n` calls. */
const rows = (n: number) => document.querySelectorAll("#calls tbody tr[data-id]").length === n

const text = (result: unknown): string =>
  ((result as { content: Array<{ text?: string }> }).content ?? []).map((block) => block.text ?? "").join("")

describe("web console in headless Chromium", () => {
  it.live("shows calls with receipts, a chart by outcome, and approves a pending call", () =>
    Effect.gen(function*() {
      const { gateway, http } = yield* startGateway({
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

      const browser = yield* launchChromium
      const page = yield* Effect.promise(() => browser.newPage())
      const unauthorized = yield* Effect.promise(() => page.goto(http.consoleUrl))
      assert.strictEqual(unauthorized?.status(), 401)
      yield* Effect.promise(() => page.goto(`${http.consoleUrl}?token=approver-token-1`))
      yield* Effect.promise(() => page.waitForSelector("#calls tbody tr[data-outcome='denied']"))
      const outcomes = yield* Effect.promise(() =>
        page.$$eval("#calls tbody tr", (rows) =>
          rows.map((row) => (row as unknown as { dataset: Record<string, string> }).dataset.outcome))
      )
      assert.deepStrictEqual(outcomes, ["denied", "ok"])
      const policyCell = yield* Effect.promise(() =>
        page.textContent("#calls tbody tr:first-child td:nth-child(5)")
      )
      assert.strictEqual(policyCell, "deny (no-crash)")
      const bars = yield* Effect.promise(() =>
        page.$$eval("#chart-calls rect.bar", (rects) => rects.map((r) => r.getAttribute("data-outcome")))
      )
      assert.deepStrictEqual([...new Set(bars)].sort(), ["denied", "ok"])

      const pending = client.callTool({ name: "write_file", arguments: { path: "notes.txt", content: "hello" } })
      yield* Effect.promise(() => page.waitForSelector("#approvals tbody tr[data-id] button[data-decision='allow']"))
      const row = yield* Effect.promise(() => page.textContent("#approvals tbody tr[data-id]"))
      assert.include(row ?? "", "echo/write_file")
      yield* Effect.promise(() => page.click("#approvals tbody tr[data-id] button[data-decision='allow']"))
      const result = yield* Effect.promise(() => pending)
      assert.strictEqual(text(result), "wrote notes.txt")
      yield* Effect.promise(() =>
        page.waitForSelector("#calls tbody tr:first-child td:nth-child(6):has-text('allow:console:console-token')")
      )
      assert.strictEqual(
        yield* Effect.promise(() => page.textContent("#calls tbody tr:first-child td.approved-by")),
        "console-token"
      )
      assert.include(yield* Effect.promise(() => page.textContent("#viewer")), "console-token (approver")
      // The header shows the version of the config in force, its full hash on hover.
      assert.strictEqual(
        yield* Effect.promise(() => page.textContent("#config-version")),
        `config ${gateway.plan.configHash.slice(0, 12)}`
      )
      assert.strictEqual(
        yield* Effect.promise(() => page.getAttribute("#config-version", "title")),
        `config sha256 ${gateway.plan.configHash}`
      )
      yield* Effect.promise(() => page.waitForSelector("#approvals tbody td.empty"))
    }), 90_000)

  // Hostile text: a tool name the host sends, a principal's name, a policy reason.
  const EVIL_TOOL = "<img src=x onerror=window.__pwned=1></script>"
  const EVIL_PRINCIPAL = "<i>eve</i>"
  const EVIL_REASON = "writes need a person </script><img src=x onerror=window.__pwned=2>"
  const SHOT = path.join(tmpdir(), "interlock-console-test", "console.png")

  it.live(
    "charts, filters, a call's whole receipt and a countdown, as an on-call approver uses them; hostile text " +
      "stays text",
    () =>
      Effect.gen(function*() {
        const { http } = yield* startGateway({
          servers: { echo: echoServer },
          listen: {
            principals: {
              alice: { token: "env:ALICE" },
              bob: { token: "env:BOB" },
              [EVIL_PRINCIPAL]: { token: "env:EVE" }
            },
            consoleToken: "env:CONSOLE_TOKEN"
          },
          audit: { path: ":memory:", capture: "full" },
          approvals: { via: "console", timeoutSeconds: 120 },
          redact: [{ pattern: "secret-[0-9]+" }],
          hooks: { preToolCall: [{ match: "echo/*", id: "note", kind: "observe", run: () => Verdict.continue }] },
          policy: {
            default: "allow",
            rules: [
              { id: "echo-ok", match: "echo/echo", decision: "allow" },
              { id: "no-crash", match: "echo/crash", decision: "deny" },
              { id: "writes", match: "echo/write_file", decision: "ask", reason: EVIL_REASON }
            ]
          }
        }, { ALICE: "alice-token", BOB: "bob-token", EVE: "eve-token", CONSOLE_TOKEN: "approver-token" })
        const alice = yield* httpClient(http.mcpUrl, { token: "alice-token" })
        const bob = yield* httpClient(http.mcpUrl, { token: "bob-token" })
        const eve = yield* httpClient(http.mcpUrl, { token: "eve-token" })
        yield* run(() => alice.callTool({ name: "echo", arguments: { text: "the key is secret-42" } }))
        yield* run(() => alice.callTool({ name: "crash", arguments: {} }))
        yield* run(() => bob.callTool({ name: "echo", arguments: { text: "two" } }))
        const refused = yield* run(() =>
          bob.callTool({ name: EVIL_TOOL, arguments: {} }).then(() => "answered", () => "rejected")
        )
        assert.strictEqual(refused, "rejected")
        yield* run(() => eve.callTool({ name: "echo", arguments: { text: "hi" } }))

        // The API checks its query: a bad, unknown or repeated parameter is a 400 naming it.
        const api = (
          pathAndQuery: string,
          token = "approver-token",
          init: { readonly method?: string; readonly body?: string } = {}
        ) =>
          run(() =>
            fetch(new URL(pathAndQuery, http.consoleUrl), { ...init, headers: { authorization: `Bearer ${token}` } })
              .then(async (res) => ({ status: res.status, body: await res.json() as Record<string, unknown> }))
          )
        for (
          const [query, param] of [["outcome=nope", "outcome"], ["minutes=0", "minutes"], ["minutes=ten", "minutes"], [
            "colour=red",
            "colour"
          ], ["tool=a&tool=b", "tool"]]
        ) {
          const bad = yield* api(`/api/state?${query}`)
          assert.strictEqual(bad.status, 400, query)
          assert.strictEqual(bad.body.param, param, query)
          assert.include(String(bad.body.error), `query parameter ${param}`)
        }
        const answered = yield* api(`/api/approvals/${crypto.randomUUID()}`, "approver-token", {
          method: "POST",
          body: JSON.stringify({ decision: "maybe", digest: "d" })
        })
        assert.deepStrictEqual([answered.status, answered.body.param], [400, "decision"])
        // A caller sees only its own calls, also in a call's detail and in the filters' choices.
        const all = (yield* api("/api/state")).body as unknown as State
        const bobsRow = all.calls.find((call) => call.principal === "bob")!
        const alicesRow = all.calls.find((call) => call.principal === "alice" && call.tool === "echo")!
        assert.strictEqual((yield* api(`/api/calls/${bobsRow.id}`, "alice-token")).status, 404)
        assert.strictEqual((yield* api(`/api/calls/${alicesRow.id}`, "alice-token")).status, 200)
        assert.deepStrictEqual(((yield* api("/api/state", "alice-token")).body as unknown as State).options.principal, [
          "alice"
        ])

        const browser = yield* launchChromium
        const page = yield* run(() => browser.newPage())
        yield* run(() => page.setViewportSize({ width: 1280, height: 1000 }))
        yield* run(() =>
          page.addInitScript(
            "document.addEventListener('securitypolicyviolation', (event) => { window.__violations = " +
              "[...(window.__violations || []), event.violatedDirective] })"
          )
        )
        const response = yield* run(() => page.goto(`${http.consoleUrl}?token=approver-token`))
        const csp = response?.headers()["content-security-policy"] ?? ""
        assert.notInclude(csp, "unsafe-inline")
        assert.match(csp, /script-src 'sha256-[A-Za-z0-9+/=]+'/)
        yield* run(() => page.waitForFunction(rows, 5))

        // Hostile text is text: no element made of it, no script run, no CSP violation.
        const tools = yield* run(() =>
          page.$$eval("#calls tbody tr td:nth-child(4)", (cells) => cells.map((c) => c.textContent))
        )
        assert.include(tools, `echo/${EVIL_TOOL}`)
        const principals = yield* run(() =>
          page.$$eval("#calls tbody tr td:nth-child(3)", (cells) => cells.map((c) => c.textContent))
        )
        assert.include(principals, EVIL_PRINCIPAL)
        assert.include(
          yield* run(() => page.$$eval("#filter-principal option", (options) => options.map((o) => o.textContent))),
          EVIL_PRINCIPAL
        )

        // The charts: one bar per minute and outcome with calls, one legend entry per outcome, one point per minute
        // with latency.
        const state = (yield* run(() =>
          page.evaluate(() => fetch("/api/state?minutes=30").then((res) => res.json()))
        )) as State
        const cells = state.series.buckets.flatMap((b) => Object.entries(b.counts).filter(([, n]) => n > 0))
        assert.strictEqual(yield* count(page, "#chart-calls rect.bar"), cells.length)
        assert.deepStrictEqual(
          yield* run(() => page.$$eval("#chart-calls .legend-entry", (entries) => entries.map((e) => e.textContent))),
          ["denied", "failed", "ok"]
        )
        assert.deepStrictEqual(state.series.outcomes, ["denied", "failed", "ok"])
        assert.strictEqual(
          yield* count(page, "#chart-latency circle.point[data-series='p50']"),
          state.series.buckets.filter((b) => b.p50 !== null).length
        )
        assert.strictEqual(
          yield* count(page, "#chart-latency circle.point[data-series='p95']"),
          state.series.buckets.filter((b) => b.p95 !== null).length
        )
        assert.strictEqual(yield* count(page, "#chart-latency .legend-entry"), 2)
        assert.strictEqual(yield* run(() => page.textContent("#chart-calls .y-label")), "calls / minute")
        assert.strictEqual(yield* run(() => page.textContent("#chart-latency .y-label")), "latency (ms)")
        assert.strictEqual(
          yield* run(() => page.textContent("#chart-calls .x-label")),
          "time (local, 1-minute buckets)"
        )
        assert.strictEqual(yield* count(page, "#chart-calls .x-tick"), 6)
        // The calls axis counts in whole calls, up to at least the busiest minute.
        const yTicks = yield* run(() =>
          page.$$eval("#chart-calls .y-tick", (ticks) => ticks.map((t) => t.textContent ?? ""))
        )
        assert.isTrue(yTicks.every((t) => /^\d+$/.test(t)), yTicks.join(" "))
        assert.strictEqual(yTicks[0], "0")
        assert.isAtLeast(
          Number(yTicks.at(-1)),
          Math.max(...state.series.buckets.map((b) => Object.values(b.counts).reduce((a, n) => a + n, 0)))
        )

        // The filters change the table and the charts.
        yield* run(() => page.selectOption("#filter-principal", "bob"))
        yield* run(() =>
          page.waitForFunction(() =>
            Array.from(document.querySelectorAll("#calls tbody tr[data-id]")).every((tr) =>
              tr.dataset.principal === "bob"
            )
          )
        )
        assert.strictEqual(yield* count(page, "#calls tbody tr[data-id]"), 2)
        yield* run(() =>
          page.waitForFunction(() =>
            Array.from(document.querySelectorAll("#chart-calls rect.bar")).reduce(
              (sum, bar) => sum + Number(bar.dataset.value),
              0
            ) === 2
          )
        )
        yield* run(() => page.selectOption("#filter-principal", ""))
        yield* run(() => page.selectOption("#filter-outcome", "denied"))
        yield* run(() => page.waitForFunction(rows, 1))
        assert.strictEqual(yield* run(() => page.getAttribute("#calls tbody tr[data-id]", "data-outcome")), "denied")
        yield* run(() => page.click("#filter-clear"))
        yield* run(() => page.waitForFunction(rows, 5))

        // A call's detail: its hooks with status and timing, the policy's rule, what the audit captured (redacted).
        yield* run(() => page.click(`#calls tbody tr[data-id='${alicesRow.id}'] button.open`))
        yield* run(() => page.waitForSelector("#detail-hooks tbody tr[data-hook='note']"))
        const hooks = yield* run(() =>
          page.$$eval(
            "#detail-hooks tbody tr",
            (rows) => rows.map((tr) => [...tr.children].slice(0, 3).map((td) => td.textContent))
          )
        )
        assert.deepStrictEqual(hooks, [["note", "preToolCall", "continue"], ["redact[0]", "postToolCall", "replace"]])
        assert.match(
          (yield* run(() => page.textContent("#detail-hooks tbody tr td:nth-child(6)"))) ?? "",
          /^\d+\.\d\d$/
        )
        assert.strictEqual(
          yield* run(() => page.textContent("#detail-policy")),
          "allow, by rule echo-ok"
        )
        assert.strictEqual(yield* run(() => page.textContent("#detail-approval")), "not asked")
        assert.include(yield* run(() => page.textContent("#detail-args")), "[REDACTED]")
        assert.include(yield* run(() => page.textContent("#detail-result")), "[REDACTED]")
        // biome-ignore lint/performance/useDomNodeTextContent: Playwright's innerText, the text a user sees
        assert.notInclude(yield* run(() => page.innerText("body")), "secret-42")

        // A pending approval counts down to its deadline (the approvals timeout after it was queued).
        const pending = alice.callTool({ name: "write_file", arguments: { path: "notes.txt", content: "hello" } })
        // Observed now, awaited at the end: a failure before then must not be an unhandled rejection.
        pending.catch(() => undefined)
        yield* run(() => page.waitForSelector("#approvals tbody tr[data-id] td.countdown"))
        const queued = ((yield* api("/api/state")).body as unknown as State).approvals[0]!
        assert.strictEqual(queued.deadline - queued.time, 120_000)
        assert.strictEqual(yield* run(() => page.textContent("#approvals tbody tr[data-id] td.reason")), EVIL_REASON)
        const first = secondsLeft(yield* run(() => page.textContent("#approvals tbody tr[data-id] td.countdown")))
        assert.isTrue(first > 100 && first <= 120, String(first))
        yield* run(() =>
          page.waitForFunction((before) => {
            const match = /^(\d+):(\d\d) left$/.exec(
              document.querySelector("#approvals td.countdown")?.textContent ?? ""
            )
            return match !== null && Number(match[1]) * 60 + Number(match[2]) < before
          }, first)
        )

        // No markup from data anywhere on the page, no script ran, the CSP saw nothing to block.
        const probe = yield* run(() =>
          page.evaluate(() => ({
            elements: document.querySelectorAll("img, i, b").length,
            scripts: document.scripts.length,
            pwned: window.__pwned ?? null,
            violations: window.__violations ?? []
          }))
        )
        assert.deepStrictEqual(probe, { elements: 0, scripts: 1, pwned: null, violations: [] })

        // The screenshot: a PNG of the viewport, with the charts on it (560 x 240 and a 1px border).
        mkdirSync(path.dirname(SHOT), { recursive: true })
        yield* run(() => page.screenshot({ path: SHOT }))
        const png = readFileSync(SHOT)
        assert.strictEqual(png.subarray(1, 4).toString("latin1"), "PNG")
        assert.deepStrictEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [1280, 1000])
        assert.isAbove(png.length, 10_000)
        const box = yield* run(() => page.locator("#chart-calls svg").boundingBox())
        assert.isTrue(
          box !== null && box.width === 562 && box.height === 242 && box.y + box.height <= 1000,
          JSON.stringify(box)
        )

        // Approved in the console: the call's detail names who approved it, and how.
        yield* run(() => page.click("#approvals tbody tr[data-id] button[data-decision='allow']"))
        assert.strictEqual(text(yield* run(() => pending)), "wrote notes.txt")
        yield* run(() =>
          page.waitForSelector("#calls tbody tr:first-child td:nth-child(6):has-text('allow:console:console-token')")
        )
        yield* run(() => page.click("#calls tbody tr:first-child button.open"))
        yield* run(() => page.waitForSelector("#detail-approval:text-is('allow · via console · by console-token')"))
        assert.strictEqual(yield* run(() => page.textContent("#detail-policy")), "ask, by rule writes")

        // An answer the gateway refuses (here: an approval that no longer exists) says why on the page.
        assert.isTrue(yield* run(() => page.isHidden("#notice")))
        yield* run(() => page.evaluate((id) => answer(id, "digest", "allow"), crypto.randomUUID()))
        assert.strictEqual(
          yield* run(() => page.textContent("#notice")),
          "Not answered (404): no such pending approval"
        )
      }),
    90_000
  )
})
