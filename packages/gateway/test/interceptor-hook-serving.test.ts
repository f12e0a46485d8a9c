/**
 * The config's named hooks as interceptors (`serve --interceptors`): an interlock.config.ts with hooks that deny,
 * rewrite, replace, throw, hang and answer junk, invoked by a plain SDK client over HTTP (both eras) and stdio. Each
 * answer is asserted whole; a failure is never valid or modified, and no error or message carries the payload's secret.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { writeFileSync } from "node:fs"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { cliIn } from "./cli-process.ts"
import { startGateway } from "./e2e.ts"
import { answer, interceptorEras, stdioInterceptorClient } from "./interceptor-wire.ts"

const ALICE = "interceptor-hooks-alice-token-0123456789"
/** What the payloads carry and no error message may repeat. */
const SECRET = "SECRET-HOOK-4242"

const CONTINUE = `{ _tag: "Continue" }`
// The config as a module: hooks are code, so it is an interlock.config.ts (the gateway imports its default export).
const HOOKS_CONFIG = `export default {
  servers: {},
  listen: { principals: { alice: { token: ${JSON.stringify(ALICE)} } } },
  policy: { default: "allow" },
  audit: { enabled: false },
  hooks: {
    preToolCall: [
      { match: "*", id: "no-marked", kind: "guard",
        run: (call) => call.name === "marked" ? { _tag: "Deny", reason: "marked tools are refused" } : ${CONTINUE} },
      { match: "*", id: "halts", kind: "guard",
        run: (call) => call.name === "halt-me" ? { _tag: "Halt", result: { content: [] } } : ${CONTINUE} },
      { match: "*", id: "who", kind: "guard",
        run: (call, ctx) => call.name === "whoami"
          ? { _tag: "Deny", reason: "principal " + (ctx.principal?.id ?? "none") + " on " + ctx.serverId }
          : { _tag: "Continue", note: "seen" } },
      { match: "*", id: "shout", kind: "transform",
        run: (call) => typeof call.args.text === "string"
          ? { _tag: "Rewrite", args: { ...call.args, text: call.args.text.toUpperCase() } } : ${CONTINUE} },
      { match: "*", id: "rename", kind: "transform", run: () => ({ _tag: "Rewrite", name: "other", args: {} }) },
      { match: "*", id: "throws", run: (call) => { throw new Error("RAISED " + JSON.stringify(call.args)) } },
      { match: "*", id: "hangs", kind: "guard", timeout: 200, run: () => new Promise(() => {}) },
      { match: "*", id: "junk", kind: "guard", run: () => ({ _tag: "Allow", reason: "trust me" }) },
      { match: "*", id: "any",
        run: (call) => call.name === "marked" ? { _tag: "Deny", reason: "no marks" } : ${CONTINUE} },
      { match: "fs/delete", id: "fs-delete", kind: "guard", run: () => ({ _tag: "Deny", reason: "never" }) },
      { match: "*", id: "watch", kind: "observe", run: () => ${CONTINUE} },
      { match: "*", run: () => ${CONTINUE} }
    ],
    postToolCall: [
      { match: "*", id: "replace", kind: "transform",
        run: (call, result) =>
          ({ _tag: "Replace", result: { content: [{ type: "text", text: "replaced " + result.content.length }] } }) },
      { match: "fs/*", id: "fs-post", kind: "transform", run: () => ${CONTINUE} }
    ],
    toolCallFailed: [{ match: "*", id: "failed", run: () => ${CONTINUE} }],
    toolsListed: [{ match: "*", id: "listed", run: () => ${CONTINUE} }],
    resourceRead: [{ match: "*", id: "no-private", kind: "guard",
      run: (uri) => uri.startsWith("private:") ? { _tag: "Deny", reason: "private resources " +
        "are refused" } : ${CONTINUE} }],
    promptGet: [{ match: "*", id: "prompt-args",
      run: (name, args) => name === "forbidden" ? { _tag: "Deny", reason: "not this prompt" }
        : name === "greet" ? { _tag: "Rewrite", args: { ...args, tone: "polite" } } : ${CONTINUE} }]
  }
}
`

/** The config written to a fresh directory: the directory and the file. */
const writeHooksConfig = () => {
  const { cli, dir } = cliIn("interlock-hook-serving-")
  const file = path.join(dir, "hooks.config.ts")
  writeFileSync(file, HOOKS_CONFIG)
  return { cli, dir, file }
}

/** The gateway serving the config's interceptors on /interceptors, in this process. */
const servingGateway = Effect.gen(function*() {
  const { file } = writeHooksConfig()
  const raw = yield* Effect.promise(() => import(pathToFileURL(file).href).then((m) => m.default))
  const { http } = yield* startGateway(raw, {}, { interceptors: true })
  return http.mcpUrl.replace(/\/mcp$/, "/interceptors")
})

type Client = Parameters<typeof answer>[0]

/** An answer as compared: a result without the envelope's `_meta`, an error's message without the SDK's prefix. */
const view = (got: Effect.Success<ReturnType<typeof answer>>): Record<string, unknown> => {
  if (!got.ok) return { ok: false, code: got.code, message: got.message?.replace(/^MCP error -?\d+: /, "") }
  const { _meta, ...result } = got.result
  return { ok: true, result }
}

const invokeOn = (client: Client) => (name: string, event: string, phase: string, payload: unknown) =>
  Effect.map(answer(client, "interceptor/invoke", { name, event, phase, payload }), view)

const validation = (name: string, rest: Record<string, unknown>) => ({
  ok: true,
  result: { interceptor: `hook:${name}`, type: "validation", phase: "request", ...rest }
})
const refused = (name: string, message: string) =>
  validation(name, { valid: false, severity: "error", messages: [{ path: "params", message, severity: "error" }] })
const mutation = (name: string, phase: string, rest: Record<string, unknown>) => ({
  ok: true,
  result: { interceptor: `hook:${name}`, type: "mutation", phase, ...rest }
})
const failure = (name: string, why: string) => ({
  ok: false,
  code: -32603,
  message: `hook:${name} failed: ${why}, so the request is not let through`
})

/** The secret never comes back in an error or a validation message. */
const assertNoSecret = (got: unknown) => {
  const text = JSON.stringify(got)
  const messages = got as { ok: boolean; message?: string; result?: { messages?: unknown } }
  assert.notInclude(JSON.stringify([messages.message, messages.result?.messages]), SECRET, text)
  assert.notInclude(text, "RAISED", text)
}

const marked = { name: "marked", arguments: { secret: SECRET } }

/** Every served hook's answers on the wire, whichever transport `client` uses; `principal` is who its token is. */
const assertAnswers = (client: Client, principal: string) =>
  Effect.gen(function*() {
    const call = invokeOn(client)
    const pre = (name: string, payload: unknown) => call(`hook:${name}`, "tools/call", "request", payload)
    assert.deepStrictEqual(
      yield* pre("no-marked", marked),
      refused("no-marked", "denied by hook no-marked: marked tools are refused")
    )
    assert.deepStrictEqual(yield* pre("no-marked", { name: "fine" }), validation("no-marked", { valid: true }))
    assert.deepStrictEqual(
      yield* pre("halts", { name: "halt-me", arguments: { secret: SECRET } }),
      refused(
        "halts",
        "hook halts answered the call itself (Halt), which an interceptor cannot do, so the call is refused"
      )
    )
    assert.deepStrictEqual(
      yield* pre("who", { name: "whoami" }),
      refused("who", `denied by hook who: principal ${principal} on *`)
    )
    assert.deepStrictEqual(
      yield* pre("who", { name: "fine" }),
      validation("who", { valid: true, info: { note: "seen" } })
    )
    // A hook whose match does not select the call is not run, as the gateway would not run it.
    assert.deepStrictEqual(yield* pre("fs-delete", { name: "delete" }), validation("fs-delete", { valid: true }))
    assert.deepStrictEqual(
      yield* pre("shout", { name: "say", arguments: { text: "hi", secret: SECRET } }),
      mutation("shout", "request", {
        modified: true,
        payload: { name: "say", arguments: { text: "HI", secret: SECRET } }
      })
    )
    assert.deepStrictEqual(yield* pre("shout", { name: "say" }), mutation("shout", "request", { modified: false }))
    // A hook of no declared kind is a mutator; its Deny fails the invocation (a mutator cannot refuse).
    const anyDenied = yield* pre("any", marked)
    assert.deepStrictEqual(anyDenied, {
      ok: false,
      code: -32603,
      message: "denied by hook any: no marks"
    })
    assert.deepStrictEqual(yield* pre("any", { name: "fine" }), mutation("any", "request", { modified: false }))
    // Failures: a rename refused by core's rules, a throw, junk, a hang past the hook's own timeout.
    const failures = [
      [yield* pre("rename", marked), failure("rename", "it answered no verdict of its event and kind")],
      [yield* pre("throws", marked), failure("throws", "it raised an error")],
      [yield* pre("junk", marked), failure("junk", "it answered no verdict of its event and kind")]
    ] as const
    for (const [got, expected] of failures) {
      assert.deepStrictEqual(got, expected)
      assertNoSecret(got)
    }
    const started = Date.now()
    const hung = yield* pre("hangs", marked)
    assert.deepStrictEqual(hung, failure("hangs", "it did not answer within its timeout"))
    assert.isAtLeast(Date.now() - started, 190)
    for (const got of [anyDenied, hung]) assertNoSecret(got)
    assert.deepStrictEqual(
      yield* call("hook:replace", "tools/call", "response", { content: [{ type: "text", text: SECRET }] }),
      mutation("replace", "response", { modified: true, payload: { content: [{ type: "text", text: "replaced 1" }] } })
    )
    const read = (uri: string) => call("hook:no-private", "resources/read", "request", { uri })
    assert.deepStrictEqual(
      yield* read("private:notes"),
      refused("no-private", "denied by hook no-private: private resources are refused")
    )
    assert.deepStrictEqual(yield* read("public:notes"), validation("no-private", { valid: true }))
    const get = (payload: unknown) => call("hook:prompt-args", "prompts/get", "request", payload)
    assert.deepStrictEqual(
      yield* get({ name: "greet", arguments: { who: "bob" } }),
      mutation("prompt-args", "request", {
        modified: true,
        payload: { name: "greet", arguments: { who: "bob", tone: "polite" } }
      })
    )
    assert.deepStrictEqual(yield* get({ name: "forbidden" }), {
      ok: false,
      code: -32603,
      message: "denied by hook prompt-args: not this prompt"
    })
    // What cannot be run is InvalidParams, as for the other interceptors, and never names the payload.
    const cannot = [
      yield* pre("no-marked", "junk"),
      yield* pre("no-marked", { name: 7, arguments: { secret: SECRET } }),
      yield* call("hook:no-marked", "resources/read", "request", { uri: "x" }),
      yield* call("hook:replace", "tools/call", "response", { content: SECRET }),
      yield* pre("watch", marked),
      yield* pre("failed", marked),
      yield* pre("preToolCall[11]", marked),
      yield* pre("nope", marked)
    ]
    for (const got of cannot) {
      assert.deepStrictEqual([got.ok, got.code], [false, -32602])
      assertNoSecret(got)
    }
  })

const LISTED = [
  ["interlock.policy", "validation", ["tools/call", "resources/read", "prompts/get"], "request"],
  ["interlock.redact", "mutation", ["tools/call"], "response"],
  ["hook:no-marked", "validation", ["tools/call"], "request"],
  ["hook:halts", "validation", ["tools/call"], "request"],
  ["hook:who", "validation", ["tools/call"], "request"],
  ["hook:shout", "mutation", ["tools/call"], "request"],
  ["hook:rename", "mutation", ["tools/call"], "request"],
  ["hook:throws", "mutation", ["tools/call"], "request"],
  ["hook:hangs", "validation", ["tools/call"], "request"],
  ["hook:junk", "validation", ["tools/call"], "request"],
  ["hook:any", "mutation", ["tools/call"], "request"],
  ["hook:fs-delete", "validation", ["tools/call"], "request"],
  ["hook:replace", "mutation", ["tools/call"], "response"],
  ["hook:no-private", "validation", ["resources/read"], "request"],
  ["hook:prompt-args", "mutation", ["prompts/get"], "request"]
]

const listed = (client: Client, params: Record<string, unknown> = {}) =>
  Effect.map(
    answer(client, "interceptors/list", params),
    (got) => got.ok ? got.result.interceptors.map((i: any) => [i.name, i.type, i.hook.events, i.hook.phase]) : got
  )

describe("the config's named hooks as interceptors", () => {
  const ERAS = interceptorEras(ALICE)
  for (const [era, connect] of ERAS) {
    it.live(
      `a plain SDK client (${era}) lists and invokes them on /interceptors, for its token's principal`,
      () =>
        Effect.gen(function*() {
          const client = yield* connect(yield* servingGateway)
          assert.deepStrictEqual(yield* listed(client), LISTED)
          assert.deepStrictEqual(yield* listed(client, { event: "resources/read" }), [LISTED[0], LISTED[13]])
          yield* assertAnswers(client, "alice")
        }),
      60_000
    )
  }

  it.live(
    "serve --stdio --interceptors serves them over stdio, and its log says which hooks are not served",
    () =>
      Effect.gen(function*() {
        const { dir, file } = writeHooksConfig()
        const { client, stderr } = yield* stdioInterceptorClient(dir, file)
        assert.deepStrictEqual(yield* listed(client), LISTED)
        yield* assertAnswers(client, "none")
        const log = stderr()
        assert.match(log, /hook:no-marked\s+preToolCall\s+validation on tools\/call request/)
        assert.match(log, /watch\s+preToolCall\s+not served: an observer only answers Continue/)
        assert.match(log, /preToolCall\[11\]\s+preToolCall\s+not served: it has no id/)
      }),
    60_000
  )

  it.live("interlock check says how each hook is served, or why it is not", () =>
    Effect.gen(function*() {
      const { cli, file } = writeHooksConfig()
      const { code, stdout } = yield* cli(["check", "--no-connect", "--config", file])
      assert.strictEqual(code, 0, stdout)
      const rows = [
        /hook:shout\s+preToolCall\s+mutation on tools\/call request/,
        /hook:replace\s+postToolCall\s+mutation on tools\/call response/,
        /hook:no-private\s+resourceRead\s+validation on resources\/read request/,
        /hook:prompt-args\s+promptGet\s+mutation on prompts\/get request/,
        new RegExp(
          String.raw`fs-post\s+postToolCall\s+not served: ` +
            "its match names tools, and a tools/call response does not say which tool answered"
        ),
        /failed\s+toolCallFailed\s+not served: the SEP has no event for a failed call/,
        /listed\s+toolsListed\s+not served: a toolsListed hook shapes this gateway's listing by server/,
        /watch\s+preToolCall\s+not served: an observer only answers Continue/
      ]
      assert.include(stdout, "Hooks as interceptors (serve --interceptors):")
      for (const row of rows) assert.match(stdout, row)
    }), 60_000)
})
