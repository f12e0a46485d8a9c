/**
 * Approvals against an attacker, over real HTTP with real SDK clients and a real stdio server that
 * records every call it receives: approvers are not callers, each console viewer sees only what it
 * may, an approval binds the digest it was shown, and elicitation approves only on an explicit yes.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Client } from "@modelcontextprotocol/client"
import { Effect, Schema } from "effect"
import { elicitationAnswer } from "../../src/calls/Approver.ts"
import { fromObject } from "../../src/config/ConfigLoader.ts"
import { answerRefusal, sees } from "../../src/console/ConsoleAccess.ts"
import { makePlan } from "../../src/runtime/PlanBuilder.ts"
import { httpClient, startGateway } from "../e2e.ts"
import { recorder } from "./call-recorder.ts"

const ENV = {
  BOB_TOKEN: "bob-token-0001",
  ALICE_TOKEN: "alice-token-0002",
  MALLORY_TOKEN: "mallory-token-0003",
  CONSOLE_TOKEN: "console-token-0004"
}
const TOOL = "transfer_funds"
/** Redacted by the config: no viewer may ever see it. */
const ACCOUNT = "ACCT-99887766"

const principals = {
  bob: { token: "env:BOB_TOKEN" },
  alice: { token: "env:ALICE_TOKEN", roles: ["security"] },
  mallory: { token: "env:MALLORY_TOKEN" }
}

const config = (
  server: unknown,
  extra: { approvals?: Record<string, unknown>; listen?: Record<string, unknown> } = {}
) => ({
  servers: { bank: server },
  policy: { default: "allow", rules: [{ id: "money", match: `bank/${TOOL}`, decision: "ask" }] },
  redact: [{ pattern: "ACCT-[0-9]+" }],
  approvals: { timeoutSeconds: 60, ...extra.approvals },
  listen: { principals, ...extra.listen }
})

/** The console as an approver, a caller or a stranger sees it. */
const consoleConfig = (server: unknown) =>
  config(server, { approvals: { approvers: ["role:security"] }, listen: { consoleToken: "env:CONSOLE_TOKEN" } })

interface Answer {
  readonly status: number
  readonly text: string
}

/** One console API request with a bearer token. */
const api = (base: string, token: string | undefined, pathname: string, body?: unknown) =>
  Effect.promise(async (): Promise<Answer> => {
    const res = await fetch(new URL(pathname, base), {
      method: body === undefined ? "GET" : "POST",
      headers: {
        "content-type": "application/json",
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` })
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    return { status: res.status, text: await res.text() }
  })

interface Pending {
  readonly id: string
  readonly principal: string | null
  readonly digest: string
  readonly args: Record<string, unknown>
}

interface State {
  readonly viewer: { readonly role: string; readonly id: string }
  readonly approvals: ReadonlyArray<Pending>
  readonly calls: ReadonlyArray<
    {
      readonly principal: string | null
      readonly tool: string
      readonly approval: string | null
      readonly approvedBy: string | null
    }
  >
  readonly series: { readonly outcomes: ReadonlyArray<string> }
}

const state = (base: string, token: string | undefined) =>
  Effect.map(api(base, token, "/api/state"), (answer) => {
    assert.strictEqual(answer.status, 200, answer.text)
    return JSON.parse(answer.text) as State
  })

/** Waits until the approver sees `count` pending approvals; returns them, oldest first. */
const pendingSeen = (base: string, count: number) =>
  Effect.gen(function*() {
    for (let i = 0; i < 400; i++) {
      const { approvals } = yield* state(base, ENV.CONSOLE_TOKEN)
      if (approvals.length >= count) return approvals
      yield* Effect.sleep("25 millis")
    }
    return assert.fail(`fewer than ${count} pending approvals appeared`)
  })

const answer = (
  base: string,
  token: string | undefined,
  pending: Pending,
  decision: "allow" | "deny",
  digest: string = pending.digest
) => api(base, token, `/api/approvals/${pending.id}`, { decision, digest })

const transfer = (client: Client, memo: string) =>
  client.callTool({ name: TOOL, arguments: { to: ACCOUNT, memo } }).then((result) => ({
    isError: result.isError === true,
    text: (result.content as Array<{ text?: string }>).map((block) => block.text ?? "").join("")
  }))

describe("approvals: approvers are not callers", () => {
  it.live(
    "mallory sees none of bob's pending approvals or audit rows; bob sees his own; alice sees and approves",
    () =>
      Effect.gen(function*() {
        const bank = recorder()
        const { gateway, http } = yield* startGateway(consoleConfig(bank.server), ENV)
        const base = http.consoleUrl
        const bob = yield* httpClient(http.mcpUrl, { token: ENV.BOB_TOKEN })
        const call = transfer(bob, "BOB-MEMO-MARKER")
        const [pending] = yield* pendingSeen(base, 1)
        assert.strictEqual(pending.principal, "bob")
        assert.notInclude(JSON.stringify(pending), ACCOUNT)

        const mallorySaw: Array<Answer> = []
        const mallory = (pathname: string, body?: unknown) =>
          Effect.tap(api(base, ENV.MALLORY_TOKEN, pathname, body), (a) => Effect.sync(() => mallorySaw.push(a)))
        const before = yield* mallory("/api/state")
        assert.strictEqual(before.status, 200)
        assert.deepStrictEqual(JSON.parse(before.text).approvals, [])
        assert.deepStrictEqual(JSON.parse(before.text).viewer, { role: "caller", id: "mallory" })
        // Even with the id and digest, bob's pending approval does not exist for her.
        assert.strictEqual(
          (yield* mallory(`/api/approvals/${pending.id}`, { decision: "allow", digest: pending.digest })).status,
          404
        )
        assert.strictEqual(
          (yield* mallory(`/api/approvals/${pending.id}`, { decision: "deny", digest: pending.digest })).status,
          404
        )
        yield* mallory("/")

        const bobView = yield* state(base, ENV.BOB_TOKEN)
        assert.deepStrictEqual(bobView.approvals.map((entry) => entry.id), [pending.id])
        assert.strictEqual(bobView.approvals[0].args.memo, "BOB-MEMO-MARKER")

        assert.strictEqual((yield* answer(base, ENV.ALICE_TOKEN, pending, "allow")).status, 200)
        const result = yield* Effect.promise(() => call)
        assert.deepStrictEqual(result, { isError: false, text: "sent to [REDACTED]" })

        const after = yield* mallory("/api/state")
        assert.deepStrictEqual(JSON.parse(after.text).calls, [])
        // The charts' series (which replaced the per-tool buckets) count none of bob's calls for her.
        assert.deepStrictEqual(JSON.parse(after.text).series.outcomes, [])
        for (const seen of mallorySaw) {
          for (const secret of ["BOB-MEMO-MARKER", TOOL, ACCOUNT, pending.digest]) assert.notInclude(seen.text, secret)
        }

        const aliceView = yield* state(base, ENV.ALICE_TOKEN)
        assert.deepStrictEqual(aliceView.viewer, { role: "approver", id: "alice" })
        assert.deepStrictEqual(aliceView.calls.map((row) => [row.principal, row.tool, row.approval, row.approvedBy]), [[
          "bob",
          TOOL,
          "allow:console:alice",
          "alice"
        ]])
        const bobRows = (yield* state(base, ENV.BOB_TOKEN)).calls
        assert.deepStrictEqual(bobRows.map((row) => row.approval), ["allow:console:alice"])
        const [row] = yield* gateway.store.query()
        assert.deepStrictEqual(row.receipt?.approval, { decision: "allow", source: "console", by: "alice" })
        assert.strictEqual(bank.received().trim().split("\n").length, 1)
        assert.include(bank.received(), "BOB-MEMO-MARKER")
      }),
    60_000
  )

  it.live(
    "bob cannot approve his own call, not in the console and not by elicitation; it is never run",
    () =>
      Effect.gen(function*() {
        const bank = recorder()
        const { gateway, http } = yield* startGateway(consoleConfig(bank.server), ENV)
        const base = http.consoleUrl
        const bob = yield* httpClient(http.mcpUrl, {
          token: ENV.BOB_TOKEN,
          capabilities: { elicitation: { form: {} } }
        })
        let elicited = 0
        bob.setRequestHandler("elicitation/create", async () => {
          elicited++
          return { action: "accept", content: { approve: true } }
        })
        const call = transfer(bob, "BOB-SELF-APPROVED")
        const [pending] = yield* pendingSeen(base, 1)
        const own = yield* answer(base, ENV.BOB_TOKEN, pending, "allow")
        assert.strictEqual(own.status, 403)
        assert.include(own.text, "only an approver")
        assert.strictEqual((yield* answer(base, undefined, pending, "allow")).status, 401)
        assert.strictEqual((yield* answer(base, "not-a-token", pending, "allow")).status, 401)

        // An approver cannot approve its own call either; the console token's holder can.
        const alice = yield* httpClient(http.mcpUrl, { token: ENV.ALICE_TOKEN })
        const aliceCall = transfer(alice, "ALICE-MEMO")
        const both = yield* pendingSeen(base, 2)
        const alicePending = both.find((entry) => entry.principal === "alice")!
        const selfApproval = yield* answer(base, ENV.ALICE_TOKEN, alicePending, "allow")
        assert.strictEqual(selfApproval.status, 403)
        assert.include(selfApproval.text, "cannot approve its own call")
        assert.strictEqual((yield* answer(base, ENV.CONSOLE_TOKEN, alicePending, "allow")).status, 200)
        assert.isFalse((yield* Effect.promise(() => aliceCall)).isError)

        assert.strictEqual((yield* answer(base, ENV.ALICE_TOKEN, pending, "deny")).status, 200)
        const denied = yield* Effect.promise(() => call)
        assert.isTrue(denied.isError)
        assert.strictEqual(elicited, 0)
        assert.notInclude(bank.received(), "BOB-SELF-APPROVED")
        assert.include(bank.received(), "ALICE-MEMO")
        const rows = yield* gateway.store.query()
        assert.deepStrictEqual(rows.map((row) => [row.principal, row.approval]), [["bob", "deny:console:alice"], [
          "alice",
          "allow:console:console-token"
        ]])
        // The console token is for the console only: it cannot call tools.
        const tokenOnMcp = yield* Effect.promise(() =>
          fetch(http.mcpUrl, {
            method: "POST",
            headers: { authorization: `Bearer ${ENV.CONSOLE_TOKEN}`, "content-type": "application/json" },
            body: "{}"
          })
        )
        assert.strictEqual(tokenOnMcp.status, 401)
      }),
    60_000
  )

  it.live(
    "an approval binds the digest it was shown: approving another call's id with it approves nothing",
    () =>
      Effect.gen(function*() {
        const bank = recorder()
        const { http } = yield* startGateway(consoleConfig(bank.server), ENV)
        const base = http.consoleUrl
        const bob = yield* httpClient(http.mcpUrl, { token: ENV.BOB_TOKEN })
        const first = transfer(bob, "FIRST-CALL")
        yield* pendingSeen(base, 1)
        const second = transfer(bob, "CHANGED-CALL")
        const [shown, changed] = yield* pendingSeen(base, 2)
        assert.strictEqual(shown.args.memo, "FIRST-CALL")
        assert.notStrictEqual(shown.digest, changed.digest)
        const mismatch = yield* answer(base, ENV.ALICE_TOKEN, changed, "allow", shown.digest)
        assert.strictEqual(mismatch.status, 409)
        const noDigest = yield* api(base, ENV.ALICE_TOKEN, `/api/approvals/${changed.id}`, { decision: "allow" })
        assert.strictEqual(noDigest.status, 400)
        assert.deepStrictEqual((yield* pendingSeen(base, 2)).map((entry) => entry.id), [shown.id, changed.id])
        assert.strictEqual((yield* answer(base, ENV.ALICE_TOKEN, shown, "allow")).status, 200)
        assert.isFalse((yield* Effect.promise(() => first)).isError)
        assert.strictEqual((yield* answer(base, ENV.ALICE_TOKEN, changed, "deny")).status, 200)
        assert.isTrue((yield* Effect.promise(() => second)).isError)
        assert.include(bank.received(), "FIRST-CALL")
        assert.notInclude(bank.received(), "CHANGED-CALL")
        // An answered id is gone: answering it again approves nothing.
        assert.strictEqual((yield* answer(base, ENV.ALICE_TOKEN, shown, "allow")).status, 404)
      }),
    60_000
  )
})

describe("approvals: elicitation approves only on an explicit yes", () => {
  it.live(
    "accept with {}, approve \"true\", approve 1, no content, and decline all deny; approve: true allows",
    () =>
      Effect.gen(function*() {
        const bank = recorder()
        const { gateway, http } = yield* startGateway(config(bank.server), ENV)
        const bob = yield* httpClient(http.mcpUrl, {
          token: ENV.BOB_TOKEN,
          capabilities: { elicitation: { form: {} } }
        })
        const answers: Array<Record<string, unknown>> = [
          { action: "accept", content: {} },
          { action: "accept", content: { approve: "true" } },
          { action: "accept", content: { approve: 1 } },
          { action: "accept" },
          { action: "decline" },
          { action: "accept", content: { approve: true } }
        ]
        const schemas: Array<unknown> = []
        let next = 0
        bob.setRequestHandler("elicitation/create", async (request) => {
          schemas.push((request.params as { requestedSchema?: unknown }).requestedSchema)
          return answers[next++] as never
        })
        for (let i = 0; i < answers.length - 1; i++) {
          const result = yield* Effect.promise(() => transfer(bob, `DENIED-${i}`))
          assert.isTrue(result.isError, `answer ${i} must deny`)
        }
        const approved = yield* Effect.promise(() => transfer(bob, "APPROVED-BY-ELICITATION"))
        assert.isFalse(approved.isError)
        assert.strictEqual(next, answers.length)
        for (const schema of schemas) {
          assert.deepStrictEqual(schema, {
            type: "object",
            properties: { approve: { type: "boolean", title: "Approve this call" } },
            required: ["approve"]
          })
        }
        for (let i = 0; i < answers.length - 1; i++) assert.notInclude(bank.received(), `DENIED-${i}`)
        assert.strictEqual(bank.received().trim().split("\n").length, 1)
        const rows = yield* gateway.store.query()
        assert.strictEqual(rows[0].approval, "allow:elicitation:bob")
        assert.deepStrictEqual(rows[0].receipt?.approval, { decision: "allow", source: "elicitation", by: "bob" })
        for (const row of rows.slice(1)) assert.match(row.approval ?? "", /^deny:/)
        assert.strictEqual(rows.length, answers.length)
      }),
    60_000
  )

  it.effect.prop(
    "no answer but accept with approve exactly true allows",
    [Schema.Struct({
      action: Schema.Union([Schema.Literals(["accept", "decline", "cancel"]), Schema.String]),
      content: Schema.optional(Schema.Record(Schema.String, Schema.Json))
    })],
    ([answer]) =>
      Effect.sync(() => {
        const decided = elicitationAnswer(answer, "bob")
        assert.strictEqual(decided.decision === "allow", answer.action === "accept" && answer.content?.approve === true)
        assert.strictEqual(decided.via, "elicitation")
        assert.strictEqual(decided.by, "bob")
      })
  )

  it.effect.prop("junk content never approves", [Schema.Unknown], ([content]) =>
    Effect.sync(() => {
      const decided = elicitationAnswer({ action: "accept", content }, "bob")
      const explicit = typeof content === "object" && content !== null &&
        (content as { approve?: unknown }).approve === true
      assert.strictEqual(decided.decision, explicit ? "allow" : "deny")
    }))
})

describe("approvals: console access rules", () => {
  it.effect.prop(
    "a caller sees only its own; no approver approves its own call",
    [Schema.String, Schema.String],
    ([viewer, caller]) =>
      Effect.sync(() => {
        assert.strictEqual(sees({ role: "caller", id: viewer }, caller), viewer === caller)
        assert.isTrue(sees({ role: "approver", id: viewer }, caller))
        assert.isDefined(answerRefusal({ role: "caller", id: viewer }, caller, "allow"))
        assert.isDefined(answerRefusal({ role: "caller", id: viewer }, caller, "deny"))
        assert.strictEqual(
          answerRefusal({ role: "approver", id: viewer }, caller, "allow") === undefined,
          viewer !== caller
        )
        assert.isUndefined(answerRefusal({ role: "approver", id: viewer }, caller, "deny"))
      })
  )

  const planError = (raw: Record<string, unknown>) =>
    Effect.gen(function*() {
      const loaded = yield* fromObject({ servers: {}, ...raw }, process.cwd())
      const plan = makePlan(loaded, { env: ENV })
      return "servers" in plan ? undefined : plan
    })

  it.effect("approvers must be known principals or roles, not elicitation, and the console token its own", () =>
    Effect.gen(function*() {
      const unknown = yield* planError({ listen: { principals }, approvals: { approvers: ["alcie"] } })
      assert.strictEqual(unknown?.path, "approvals.approvers[0]")
      const emptyRole = yield* planError({ listen: { principals }, approvals: { approvers: ["role:"] } })
      assert.strictEqual(emptyRole?.path, "approvals.approvers[0]")
      const elicit = yield* planError({
        listen: { principals },
        approvals: { approvers: ["alice"], via: "elicitation" }
      })
      assert.strictEqual(elicit?.path, "approvals.via")
      const shared = yield* planError({ listen: { principals, consoleToken: "env:BOB_TOKEN" } })
      assert.strictEqual(shared?.path, "listen.consoleToken")
      assert.notInclude(shared?.message ?? "", ENV.BOB_TOKEN)
      const reserved = yield* planError({
        listen: { principals: { "console-token": { token: "env:BOB_TOKEN" } }, consoleToken: "env:CONSOLE_TOKEN" }
      })
      assert.strictEqual(reserved?.path, "listen.principals.console-token")
      const ok = yield* planError({ listen: { principals }, approvals: { approvers: ["alice", "role:security"] } })
      assert.isUndefined(ok)
    }))
})
