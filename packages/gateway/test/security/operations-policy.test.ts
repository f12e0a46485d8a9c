/**
 * One policy over every operation (issue 22, section 2), against server-everything from npm: a
 * policy (Cedar, and JSON rules) denying one resource, one resource template and one prompt. Over
 * HTTP and stdio, in both eras, the denied ones are never listed, their subscriptions are refused
 * (no update for them reaches the host) and their completions return nothing of the server's,
 * while the allowed ones still work. Refused subscriptions and completions are audited.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Client } from "@modelcontextprotocol/client"
import { Effect } from "effect"
import { writeFileSync } from "node:fs"
import * as path from "node:path"
import { BIN, cliIn } from "../cli-process.ts"
import { echoServer, everythingServer, httpClient, NODE, startGateway } from "../e2e.ts"
import { modernHttpClient, stdioClient } from "../modern-wire.ts"

const DENIED_URI = "demo://resource/static/document/architecture.md"
const ALLOWED_URI = "demo://resource/static/document/extension.md"
const DENIED_TEMPLATE = "demo://resource/dynamic/text/{resourceId}"
const ALLOWED_TEMPLATE = "demo://resource/dynamic/blob/{resourceId}"
const DENIED_PROMPT = "everything__completable-prompt"
const ALLOWED_PROMPT = "everything__args-prompt"

const CEDAR = `
@id("everything") permit(principal, action, resource);
@id("no-architecture")
forbid(principal, action == Interlock::Action::"readResource", resource)
when { resource.uri == "${DENIED_URI}" || resource.uri like "demo://resource/dynamic/text/*" };
@id("no-completable")
forbid(principal, action == Interlock::Action::"getPrompt",
  resource == Interlock::Prompt::"everything/completable_prompt");
`

const RULES = {
  default: "allow",
  rules: [
    { id: "no-architecture", on: "resources", match: `everything/${DENIED_URI}`, decision: "deny" },
    {
      id: "no-dynamic-text",
      on: "resources",
      match: { server: "everything", regex: "^demo://resource/dynamic/text/" },
      decision: "deny"
    },
    { id: "no-completable", on: "prompts", match: "everything/completable-prompt", decision: "deny" }
  ]
}

/** The gateway's policy section for `kind`; a Cedar file is written into `dir`. */
const policyOf = (kind: "cedar" | "rules", dir: string) => {
  if (kind === "rules") return RULES
  const file = path.join(dir, "policy.cedar")
  writeFileSync(file, CEDAR)
  return { cedar: file }
}

const configOf = (kind: "cedar" | "rules", dir: string) => ({
  servers: { everything: everythingServer, echo: echoServer },
  policy: policyOf(kind, dir),
  audit: { path: ":memory:" }
})

/** What an SDK call ended with: its value, or the error it failed with. */
const settle = <A>(promise: () => Promise<A>) =>
  Effect.promise(() =>
    promise().then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error })
    )
  )

const sleep = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

/** Every check of the section, on one connected host. */
const scenario = (host: Client, era: "legacy" | "modern") =>
  Effect.gen(function*() {
    const updates: Array<string> = []
    host.setNotificationHandler("notifications/resources/updated", (n) => void updates.push(n.params.uri))
    // server-everything logs each subscribe it gets; a 2025 host hears a server's messages sent outside a call.
    const logs: Array<string> = []
    host.setNotificationHandler("notifications/message", (n) => void logs.push(String(n.params.data)))

    // Listings: the denied ones are not there, the allowed ones are.
    const resources = (yield* Effect.promise(() => host.listResources())).resources.map((r) => r.uri)
    assert.notInclude(resources, DENIED_URI)
    assert.include(resources, ALLOWED_URI)
    const templates = (yield* Effect.promise(() => host.listResourceTemplates())).resourceTemplates.map((t) =>
      t.uriTemplate
    )
    assert.notInclude(templates, DENIED_TEMPLATE)
    assert.include(templates, ALLOWED_TEMPLATE)
    const prompts = (yield* Effect.promise(() => host.listPrompts())).prompts.map((p) => p.name)
    assert.notInclude(prompts, DENIED_PROMPT)
    assert.include(prompts, ALLOWED_PROMPT)
    assert.notInclude(JSON.stringify({ resources, templates, prompts }), "architecture.md")

    // Reads and gets agree with the listings.
    const read = yield* settle(() => host.readResource({ uri: DENIED_URI }))
    assert.isFalse(read.ok, "the denied resource is not read")
    assert.isTrue((yield* settle(() => host.readResource({ uri: ALLOWED_URI }))).ok)
    const got = yield* settle(() => host.getPrompt({ name: DENIED_PROMPT, arguments: { department: "Engineering" } }))
    assert.isFalse(got.ok, "the denied prompt is not got")

    // Completions: nothing of the server's for the denied prompt or template; the allowed template completes.
    for (
      const ref of [
        { type: "ref/prompt" as const, name: DENIED_PROMPT, argument: { name: "department", value: "Eng" } },
        { type: "ref/resource" as const, uri: DENIED_TEMPLATE, argument: { name: "resourceId", value: "1" } }
      ]
    ) {
      const { argument, ...reference } = ref
      const answer = yield* settle(() => host.complete({ ref: reference, argument }))
      const values = answer.ok ? answer.value.completion.values : []
      assert.deepStrictEqual(values, [], `no completion for ${JSON.stringify(reference)}`)
      assert.notInclude(JSON.stringify(answer.ok ? answer.value : String(answer.error)), "Engineering")
    }
    const allowed = yield* Effect.promise(() =>
      host.complete({
        ref: { type: "ref/resource", uri: ALLOWED_TEMPLATE },
        argument: { name: "resourceId", value: "7" }
      })
    )
    assert.deepStrictEqual(allowed.completion.values, ["7"])

    // Subscriptions: the denied one is refused, the allowed one is followed; only its updates arrive.
    let closeListen = () => Promise.resolve()
    if (era === "legacy") {
      const refused = yield* settle(() => host.subscribeResource({ uri: DENIED_URI }))
      assert.isFalse(refused.ok, "the denied subscription is refused")
      yield* Effect.promise(() => host.subscribeResource({ uri: ALLOWED_URI }))
      for (let i = 0; i < 500 && !logs.some((line) => line.includes(ALLOWED_URI)); i++) yield* sleep(20)
      assert.isTrue(logs.some((line) => line.includes(`Subscribe Resource request for URI: ${ALLOWED_URI}`)))
      assert.isFalse(
        logs.some((line) => line.includes(DENIED_URI)),
        "the server never heard of the denied subscription"
      )
    } else {
      const listen = yield* Effect.promise(() => host.listen({ resourceSubscriptions: [DENIED_URI, ALLOWED_URI] }))
      assert.notInclude(listen.honoredFilter.resourceSubscriptions ?? [], DENIED_URI)
      closeListen = () => listen.close()
    }
    yield* Effect.promise(() => host.callTool({ name: "everything__toggle-subscriber-updates", arguments: {} }))
    for (let i = 0; i < 500 && !updates.includes(ALLOWED_URI); i++) yield* sleep(20)
    assert.include(updates, ALLOWED_URI, "the allowed subscription still gets its updates")
    // server-everything sends every subscribed URI's update in the same round: wait one more round.
    const seen = updates.length
    for (let i = 0; i < 500 && updates.length === seen; i++) yield* sleep(20)
    assert.notInclude(updates, DENIED_URI, "no update for the denied resource reached the host")
    yield* Effect.promise(() => host.callTool({ name: "everything__toggle-subscriber-updates", arguments: {} }))
    yield* Effect.promise(closeListen)
  })

const KINDS = ["cedar", "rules"] as const

describe("one policy over every operation, over HTTP", () => {
  for (const kind of KINDS) {
    for (const era of ["legacy", "modern"] as const) {
      it.live(
        `${kind}, ${era} host: denied resources, templates and prompts are hidden, refused and audited`,
        () =>
          Effect.gen(function*() {
            const { dir } = cliIn("interlock-operations-http-")
            const { gateway, http } = yield* startGateway(configOf(kind, dir))
            const host = era === "legacy" ? yield* httpClient(http.mcpUrl) : yield* modernHttpClient(http.mcpUrl)
            yield* scenario(host, era)
            // The refused subscription (2025 hosts) and completions have rows, none of them sent.
            const rows = yield* gateway.store.query({ limit: 10_000 })
            const refused = rows.filter((row) => row.outcome === "refused" || row.outcome === "denied")
            const operations = refused.map((row) => row.tool)
            assert.include(operations, "completion/complete")
            if (era === "legacy") assert.include(operations, "resources/subscribe")
            for (const row of refused) assert.isFalse(row.sent)
            const completionRefusal = refused.find((row) => row.tool === "completion/complete")
            assert.strictEqual(completionRefusal?.outcome, "refused")
            assert.include(refused.map((row) => row.rule), "no-completable", "the refusal names the deciding rule")
            const completions = rows.filter((row) => row.tool === "completion/complete" && row.outcome === "ok")
            assert.isAtLeast(completions.length, 1, "the allowed completion is audited too")
          }),
        120_000
      )
    }
  }
})

describe("one policy over every operation, over stdio", () => {
  for (const kind of KINDS) {
    for (const era of ["legacy", "modern"] as const) {
      it.live(
        `${kind}, ${era} host: denied resources, templates and prompts are hidden and refused`,
        () =>
          Effect.gen(function*() {
            const { dir, writeConfig } = cliIn("interlock-operations-stdio-")
            const file = writeConfig("interlock.config.json", configOf(kind, dir))
            const host = yield* stdioClient(
              NODE,
              ["--conditions=@interlock/source", BIN, "serve", "--stdio", "--config", file],
              era,
              dir
            )
            assert.strictEqual(host.getProtocolEra(), era)
            yield* scenario(host, era)
          }),
        120_000
      )
    }
  }
})

describe("one policy over every operation, per principal", () => {
  const ENV = { ALICE_TOKEN: "alice-token-0001", BOB_TOKEN: "bob-token-0002" }
  for (const era of ["legacy", "modern"] as const) {
    it.live(
      `${era} hosts: a rule for one principal's role hides and refuses for it alone`,
      () =>
        Effect.gen(function*() {
          const { http } = yield* startGateway({
            servers: { everything: everythingServer, echo: echoServer },
            listen: {
              principals: {
                alice: { token: "env:ALICE_TOKEN", roles: ["staff"] },
                bob: { token: "env:BOB_TOKEN", roles: ["guest"] }
              }
            },
            policy: {
              default: "allow",
              rules: [
                { on: "prompts", match: "everything/completable-prompt", decision: "deny", principals: ["role:guest"] },
                { on: "resources", match: `everything/${ALLOWED_URI}`, decision: "deny", principals: ["role:guest"] }
              ]
            }
          }, ENV)
          const connect = (token: string) =>
            era === "legacy" ? httpClient(http.mcpUrl, { token }) : modernHttpClient(http.mcpUrl, { token })
          const alice = yield* connect(ENV.ALICE_TOKEN)
          const bob = yield* connect(ENV.BOB_TOKEN)
          const promptsOf = (host: Client) =>
            Effect.map(Effect.promise(() => host.listPrompts()), (listed) => listed.prompts.map((p) => p.name))
          assert.include(yield* promptsOf(alice), DENIED_PROMPT)
          assert.notInclude(yield* promptsOf(bob), DENIED_PROMPT)
          const complete = (host: Client) =>
            settle(() =>
              host.complete({
                ref: { type: "ref/prompt", name: DENIED_PROMPT },
                argument: { name: "department", value: "Eng" }
              })
            )
          const forAlice = yield* complete(alice)
          assert.deepStrictEqual(forAlice.ok ? forAlice.value.completion.values : "failed", ["Engineering"])
          const forBob = yield* complete(bob)
          assert.isFalse(forBob.ok, "bob's completion is refused")
          assert.notInclude(String(forBob.ok ? "" : forBob.error), "Engineering")
          const resourcesOf = (host: Client) =>
            Effect.map(Effect.promise(() => host.listResources()), (listed) => listed.resources.map((r) => r.uri))
          assert.include(yield* resourcesOf(alice), ALLOWED_URI)
          assert.notInclude(yield* resourcesOf(bob), ALLOWED_URI)
          if (era === "legacy") {
            yield* Effect.promise(() => alice.subscribeResource({ uri: ALLOWED_URI }))
            // Alice follows it already: bob's subscription is still decided for bob.
            assert.isFalse((yield* settle(() => bob.subscribeResource({ uri: ALLOWED_URI }))).ok)
          } else {
            const listen = (host: Client) => host.listen({ resourceSubscriptions: [ALLOWED_URI] })
            const aliceListen = yield* Effect.promise(() => listen(alice))
            assert.deepStrictEqual(aliceListen.honoredFilter.resourceSubscriptions, [ALLOWED_URI])
            const bobListen = yield* Effect.promise(() => listen(bob))
            assert.notInclude(bobListen.honoredFilter.resourceSubscriptions ?? [], ALLOWED_URI)
            yield* Effect.promise(() => Promise.all([aliceListen.close(), bobListen.close()]))
          }
        }),
      120_000
    )
  }
})

describe("rules on resources and prompts in a config", () => {
  it.live(
    "`interlock check` shows what a rule governs, and refuses a condition on tool arguments for one",
    () =>
      Effect.gen(function*() {
        const { cli, writeConfig } = cliIn("interlock-operations-check-")
        writeConfig("ok.json", { servers: {}, policy: RULES })
        const ok = yield* cli(["check", "--config", "ok.json", "--no-connect"])
        assert.strictEqual(ok.code, 0, ok.stderr)
        assert.match(ok.stdout, /no-completable\s+deny\s+everything\/completable-prompt\s+on prompts/)
        writeConfig("bad.json", {
          servers: {},
          policy: { rules: [{ on: "resources", match: "*", decision: "deny", when: { args: { a: { equals: "b" } } } }] }
        })
        const bad = yield* cli(["check", "--config", "bad.json", "--no-connect"])
        assert.strictEqual(bad.code, 1)
        assert.include(bad.stderr, "policy.rules[0].when: a rule on resources takes no when")
        writeConfig("unknown.json", { servers: {}, policy: { rules: [{ on: "files", match: "*", decision: "deny" }] } })
        const unknown = yield* cli(["check", "--config", "unknown.json", "--no-connect"])
        assert.strictEqual(unknown.code, 1)
        assert.include(unknown.stderr, "policy.rules[0].on")
      }),
    60_000
  )
})
