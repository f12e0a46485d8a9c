/**
 * The console's API as an HttpApi, over real HTTP: its Schemas check the query, the path's id and
 * the approval answer, and each refusal is the declared error, `{ error, param }` JSON naming what
 * was wrong; an answer is taken as JSON or as JSON text; an oversized body is refused, not buffered.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { versionOf } from "../src/config/ConfigHash.ts"
import { ConsoleInputError, parseAnswer } from "../src/console/ConsoleInput.ts"
import { startGateway } from "./e2e.ts"

const ENV = { ALICE: "alice-token-0001", CONSOLE: "console-token-0002" }
const CONFIG = { servers: {}, listen: { principals: { alice: { token: "env:ALICE" } }, consoleToken: "env:CONSOLE" } }

interface Answer {
  readonly status: number
  readonly type: string | null
  readonly cache: string | null
  readonly body: { readonly error?: string; readonly param?: string; readonly [key: string]: unknown }
}

/** One request to the console's API with the console token. */
const api = (base: string, path: string, init: RequestInit = {}) =>
  Effect.promise(async (): Promise<Answer> => {
    const res = await fetch(`${base.replace(/\/$/, "")}${path}`, {
      ...init,
      headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${ENV.CONSOLE}` }
    })
    return {
      status: res.status,
      type: res.headers.get("content-type"),
      cache: res.headers.get("cache-control"),
      body: await res.json() as Answer["body"]
    }
  })

/** Posts an approval answer for an id no approval has, as the given content type. */
const answer = (base: string, body: string, contentType?: string) =>
  api(base, `/api/approvals/${crypto.randomUUID()}`, {
    method: "POST",
    body,
    ...(contentType === undefined ? {} : { headers: { "content-type": contentType } })
  })

describe("the console's HttpApi", () => {
  it.live("the state answers the config in force: its version and full hash, as its audit rows record it", () =>
    Effect.gen(function*() {
      const { gateway, http } = yield* startGateway(CONFIG, ENV)
      const state = yield* api(http.consoleUrl, "/api/state")
      assert.deepStrictEqual(state.body.config, versionOf(gateway.plan.configHash))
      assert.match(String((state.body.config as { version: string }).version), /^[0-9a-f]{12}$/)
    }))

  it.live(
    "a bad, unknown or repeated query parameter is a 400 naming it; a good query is answered",
    () =>
      Effect.gen(function*() {
        const { http } = yield* startGateway(CONFIG, ENV)
        const base = http.consoleUrl
        const ok = yield* api(base, "/api/state?minutes=60&outcome=denied")
        assert.deepStrictEqual([ok.status, ok.type, ok.cache, ok.body.minutes], [
          200,
          "application/json",
          "no-store",
          60
        ])
        for (
          const [query, param, detail] of [
            ["minutes=abc", "minutes", undefined],
            ["minutes=2000", "minutes", undefined],
            ["outcome=nope", "outcome", undefined],
            ["colour=red", "colour", "is not a known key"],
            ["tool=a&tool=b", "tool", "is given more than once"]
          ] as const
        ) {
          const bad = yield* api(base, `/api/state?${query}`)
          assert.deepStrictEqual([bad.status, bad.type, bad.body.param], [400, "application/json", param], query)
          assert.match(bad.body.error ?? "", new RegExp(`^query parameter ${param} `), query)
          if (detail !== undefined) assert.include(bad.body.error, detail, query)
          // The value is never quoted back.
          assert.notInclude(bad.body.error, "abc")
        }
      }),
    60_000
  )

  it.live(
    "an approval answer is taken as JSON and as JSON text; a bad field is a 400 naming it",
    () =>
      Effect.gen(function*() {
        const { http } = yield* startGateway(CONFIG, ENV)
        const base = http.consoleUrl
        const good = JSON.stringify({ decision: "allow", digest: "d" })
        // Decoded, the answer reaches the handler, which finds no such pending approval.
        for (const type of ["application/json", "text/plain", "text/plain;charset=UTF-8", undefined]) {
          const taken = yield* answer(base, good, type)
          assert.deepStrictEqual([taken.status, taken.body], [404, { error: "no such pending approval" }], type)
        }
        for (const type of ["application/json", "text/plain"]) {
          assert.deepStrictEqual(
            (yield* answer(base, JSON.stringify({ decision: "maybe", digest: "d" }), type)).body.param,
            "decision",
            type
          )
          const missing = yield* answer(base, JSON.stringify({ decision: "deny" }), type)
          assert.deepStrictEqual([missing.status, missing.body], [400, {
            error: "body field digest is required",
            param: "digest"
          }], type)
          for (const junk of ["not json", "", "[1]", "\"allow\""]) {
            const bad = yield* answer(base, junk, type)
            assert.deepStrictEqual([bad.status, bad.body.param], [400, "(root)"], `${type}: ${junk}`)
            assert.match(bad.body.error ?? "", /^body field \(root\) must be a JSON object/)
          }
        }
        const form = yield* answer(base, good, "application/x-www-form-urlencoded")
        assert.deepStrictEqual([form.status, form.body], [400, {
          error: "body field (root) must be sent as application/json or text/plain",
          param: "(root)"
        }])
      }),
    60_000
  )

  it.live.prop(
    "any answer gets the same reply as JSON and as JSON text: refused naming the field parseAnswer names, or taken",
    [Schema.Struct({
      decision: Schema.optionalKey(Schema.Union([Schema.Literals(["allow", "deny"]), Schema.String, Schema.Number])),
      digest: Schema.optionalKey(Schema.Union([Schema.String, Schema.Boolean]))
    })],
    ([body]) =>
      Effect.gen(function*() {
        const { http } = yield* startGateway(CONFIG, ENV)
        const text = JSON.stringify(body)
        const asJson = yield* answer(http.consoleUrl, text, "application/json")
        assert.deepStrictEqual(yield* answer(http.consoleUrl, text, "text/plain"), asJson)
        const parsed = parseAnswer(body)
        if (parsed instanceof ConsoleInputError) {
          assert.deepStrictEqual([asJson.status, asJson.body], [400, { error: parsed.message, param: parsed.param }])
        } else assert.deepStrictEqual([asJson.status, asJson.body], [404, { error: "no such pending approval" }])
      }),
    { timeout: 60_000, arbitrary: { runs: 20 } }
  )

  it.live(
    "an answer over the size cap is refused with 400, and the gateway keeps serving",
    () =>
      Effect.gen(function*() {
        const { http } = yield* startGateway(CONFIG, ENV)
        const base = http.consoleUrl
        // A well-formed answer, padded past 4096 bytes: refused for its size alone.
        const padded = JSON.stringify({ decision: "allow", digest: "d" }) + " ".repeat(4096)
        for (const type of ["application/json", "text/plain"]) {
          const big = yield* answer(base, padded, type)
          assert.deepStrictEqual([big.status, big.body], [400, {
            error: "body field (root) is larger than 4096 bytes",
            param: "(root)"
          }], type)
        }
        // One far larger: answered all the same, the rest of it drained unkept.
        const large = yield* answer(base, " ".repeat(200 * 1024), "application/json")
        assert.deepStrictEqual([large.status, large.body.param], [400, "(root)"])
        assert.strictEqual((yield* api(base, "/api/state")).status, 200)
      }),
    60_000
  )

  it.live(
    "a path's id is checked: not an id is 404 as an unrouted path, an unknown call 404 of its own",
    () =>
      Effect.gen(function*() {
        const { http } = yield* startGateway(CONFIG, ENV)
        const base = http.consoleUrl
        for (const path of ["/api/calls/abc", "/api/calls/0", "/api/calls/12345678901234567"]) {
          assert.deepStrictEqual((yield* api(base, path)).body, { error: "Not found" }, path)
        }
        assert.deepStrictEqual((yield* api(base, "/api/approvals/not-an-id", { method: "POST", body: "{}" })).body, {
          error: "Not found"
        })
        const unknown = yield* api(base, "/api/calls/42")
        assert.deepStrictEqual([unknown.status, unknown.cache, unknown.body], [404, "no-store", {
          error: "no such call among the newest audit rows you may see"
        }])
      }),
    60_000
  )
})
