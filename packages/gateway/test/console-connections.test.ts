/**
 * The console's auth.oauth connections: `/api/state` lists a viewer's own grants (an approver's: everyone's), a
 * principal cannot revoke another's, and in headless Chromium alice sees her connection and revokes it with its
 * button, after which her next call asks her to connect again.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { launchChromium } from "./chromium.ts"
import { callTool } from "./credential-harness.ts"
import { connect, linkIn, setup, TOKENS } from "./oauth-connect.ts"

/** The console API's answer to `path` with `token`: status and JSON. */
const api = (consoleUrl: string, token: string, path: string, body?: unknown) =>
  Effect.promise(async () => {
    const response = await fetch(new URL(path, consoleUrl), {
      method: body === undefined ? "GET" : "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    return { status: response.status, json: await response.json() as Record<string, unknown> }
  })

// The page's globals that functions run in the page use (the test's tsconfig has no DOM lib).
declare const document: { querySelectorAll(selector: string): ArrayLike<unknown> }

describe("the console's connections", () => {
  it.live(
    "each viewer sees its own; bob cannot revoke alice's; alice revokes hers in the browser",
    () =>
      Effect.gen(function*() {
        const world = yield* setup
        const refusal = yield* callTool(world.alice, "whoami", { tag: "a0" })
        yield* connect(linkIn(refusal.text), world.auth, "alice@idp")
        assert.strictEqual((yield* callTool(world.alice, "whoami", { tag: "a1" })).text, "alice@idp:a1")
        const consoleUrl = world.http.consoleUrl

        const hers = yield* api(consoleUrl, TOKENS.alice, "/api/state")
        const listed = hers.json.connections as Array<Record<string, unknown>>
        assert.deepStrictEqual(listed.map((c) => [c.principal, c.server]), [["alice", "remote"]])
        assert.match(String(listed[0]!.grant), /^[0-9a-f]{16}$/)
        assert.notInclude(JSON.stringify(hers.json), "Bearer")
        const his = yield* api(consoleUrl, TOKENS.bob, "/api/state")
        assert.deepStrictEqual(his.json.connections, [])
        const refused = yield* api(consoleUrl, TOKENS.bob, "/api/connections/revoke", {
          principal: "alice",
          server: "remote"
        })
        assert.strictEqual(refused.status, 404)
        assert.strictEqual((yield* callTool(world.alice, "whoami", { tag: "a2" })).text, "alice@idp:a2")

        const browser = yield* launchChromium
        const page = yield* Effect.promise(() => browser.newPage())
        yield* Effect.promise(() => page.goto(`${consoleUrl}?token=${TOKENS.alice}`))
        const row = "#connections-table tbody tr[data-principal=\"alice\"][data-server=\"remote\"]"
        yield* Effect.promise(() => page.waitForSelector(row))
        yield* Effect.promise(() => page.click(`${row} button`))
        yield* Effect.promise(() =>
          page.waitForFunction(() =>
            document.querySelectorAll("#connections-table tbody tr[data-principal]").length === 0
          )
        )
        const after = yield* callTool(world.alice, "whoami", { tag: "a3" })
        assert.isTrue(after.isError)
        assert.include(after.text, "has not connected this server")
        assert.deepStrictEqual(world.downstream.calls.map((c) => c.tag), ["a1", "a2"])
      }),
    60_000
  )
})
