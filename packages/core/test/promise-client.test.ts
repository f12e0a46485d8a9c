/** Interlock.client: the Promise API over native tools, with the same hooks, policy, receipts and errors. */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, Schema } from "effect"
import { inspect } from "node:util"
import {
  ClientClosed,
  ConfigError,
  Defect,
  Denied,
  HookFailed,
  Interlock,
  InterlockError,
  Interrupted,
  NativeTool,
  Policy,
  ToolCalls,
  ToolTransport,
  TransportError,
  Verdict
} from "../src/index.ts"
import * as PromiseClient from "../src/program/PromiseClient.ts"
import { RecordingTransport, ScriptedApprover } from "../src/testing/index.ts"
import { recordingTransport, SECRET } from "./fixtures.ts"

const echo = NativeTool.make({
  name: "echo",
  parameters: Schema.Struct({ text: Schema.String }),
  run: ({ text }) => `echo: ${text}`
})

const policy = Policy.rules({
  rules: [{ id: "echo-ok", match: "local/echo", decision: "allow" }, {
    id: "ask-wait",
    match: "local/wait",
    decision: "ask"
  }],
  default: "deny"
})

/** A rejection, or a failed assertion when the Promise resolved. */
const rejected = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then((value) => assert.fail(`expected a rejection, got ${inspect(value)}`), (error: unknown) => error)

/** Every way an app might print an error. */
const printed = (error: unknown): string =>
  `${String(error)} ${inspect(error, { depth: 10 })} ${JSON.stringify(error)} ${(error as Error).stack}`

/** A tool that never answers, and records that it was interrupted. */
const hanging = (interrupted: Array<string>) =>
  NativeTool.make({
    name: "wait",
    parameters: Schema.Struct({}),
    run: () => Effect.never.pipe(Effect.onInterrupt(() => Effect.sync(() => interrupted.push("wait"))))
  })

describe("Interlock.client", () => {
  it("calls a tool through a rewriting hook and the policy; the result carries its receipt", async () => {
    const recording = RecordingTransport.make([echo])
    const client = Interlock.client({
      hooks: {
        preToolCall: [{
          match: "*",
          id: "shout",
          run: (call) => Verdict.rewrite({ args: { text: String(call.args.text).toUpperCase() } })
        }]
      },
      policy,
      transport: recording.layer
    })
    const result = await client.callTool({ serverId: "local", name: "echo", args: { text: "hi" } })
    assert.strictEqual(result.text, "echo: HI")
    assert.strictEqual(result.receipt?.outcome, "ok")
    assert.deepStrictEqual(result.receipt?.policy, { decision: "allow", rule: "echo-ok" })
    assert.deepStrictEqual(result.receipt?.hooks.map((run) => [run.id, run.status]), [["shout", "rewrite"]])
    assert.isTrue(result.receipt?.sent)
    assert.deepStrictEqual(recording.calls.map((call) => call.args), [{ text: "HI" }])
    assert.strictEqual(result.receipt?.digest, recording.calls[0]?.digest)
    const tools = await client.listTools()
    assert.deepStrictEqual(tools.map((tool) => `${tool.serverId}/${tool.name}`), ["local/echo"])
    await client.close()
  })

  it("a policy deny rejects with Denied and its receipt, and the tool never ran", async () => {
    const recording = RecordingTransport.make([echo])
    const client = Interlock.client({ policy, transport: recording.layer })
    const error = await rejected(client.callTool({ serverId: "local", name: "rm", args: { path: "/" } }))
    assert.instanceOf(error, Error)
    assert.instanceOf(error, Denied)
    assert.isTrue(error instanceof InterlockError)
    assert.isTrue(InterlockError.is(error))
    if (!(error instanceof Denied)) return assert.fail("not Denied")
    assert.strictEqual(error._tag, "Denied")
    assert.strictEqual(error.message, "denied by policy: no policy rule allows this call")
    assert.deepStrictEqual(error.reason, {
      _tag: "PolicyDenied",
      rule: undefined,
      message: "no policy rule allows this call"
    })
    assert.strictEqual(error.receipt?.outcome, "denied")
    assert.isFalse(error.receipt?.sent)
    assert.strictEqual(error.receipt?.policy?.decision, "deny")
    assert.deepStrictEqual(recording.calls, [])
    await client.close()
  })

  it("a rejection holds neither the call's arguments nor what a hook raised", async () => {
    const recording = RecordingTransport.make([echo])
    const client = Interlock.client({
      hooks: {
        preToolCall: [{
          match: "local/echo",
          id: "boom",
          run: (call) => Promise.reject(new Error(`leaked ${SECRET} ${JSON.stringify(call.args)}`))
        }]
      },
      policy,
      transport: recording.layer
    })
    const failed = await rejected(client.callTool({ serverId: "local", name: "echo", args: { text: SECRET } }))
    assert.instanceOf(failed, HookFailed)
    assert.strictEqual((failed as HookFailed).kind, "raise")
    assert.strictEqual((failed as HookFailed).receipt?.outcome, "failed")
    const denied = await rejected(client.callTool({ serverId: "local", name: "other", args: { token: SECRET } }))
    assert.instanceOf(denied, Denied)
    for (const error of [failed, denied]) assert.notInclude(printed(error), SECRET)
    assert.deepStrictEqual(recording.calls, [])
    await client.close()
  })

  it(
    "a transport defect rejects with a TransportError, and an operation's own defect with Defect: neither keeps " +
      "what was thrown",
    async () => {
      const dying = Layer.succeed(ToolTransport, {
        ...recordingTransportShape(),
        callTool: (call) => Effect.die(new Error(`crashed on ${JSON.stringify(call.args)}`))
      })
      const client = Interlock.client({ policy: Policy.allowAll, transport: dying })
      const transportError = await rejected(client.callTool({ serverId: "srv", name: "echo", args: { text: SECRET } }))
      assert.instanceOf(transportError, TransportError)
      assert.notInclude(printed(transportError), SECRET)
      await client.close()
      const defective = PromiseClient.make(Layer.succeed(ToolCalls, {
        callTool: (input) => Effect.die(new Error(`bug with ${JSON.stringify(input.args)}`)),
        listTools: () => Effect.die(SECRET),
        readResource: () => Effect.die(SECRET),
        getPrompt: () => Effect.die(SECRET),
        decideRead: () => Effect.die(SECRET),
        decidePrompt: () => Effect.die(SECRET),
        visibleOperations: () => Effect.die(SECRET)
      }))
      for (
        const operation of [
          defective.callTool({ serverId: "srv", name: "echo", args: { text: SECRET } }),
          defective.listTools()
        ]
      ) {
        const error = await rejected(operation)
        assert.instanceOf(error, Defect)
        assert.strictEqual((error as Defect)._tag, "Defect")
        assert.isTrue(error instanceof InterlockError)
        assert.notInclude(printed(error), SECRET)
      }
      await defective.close()
    }
  )

  it("reads resources and gets prompts through their gates", async () => {
    const transport = recordingTransport()
    const client = Interlock.client({
      hooks: {
        resourceRead: [{
          match: "*",
          id: "no-secrets",
          run: (uri) => (uri.includes("secret") ? Verdict.deny("not that one") : Verdict.continue)
        }],
        promptGet: [{ match: "*", id: "city", run: () => Verdict.rewrite({ args: { city: "Lyon" } }) }]
      },
      policy: Policy.allowAll,
      transport: transport.layer
    })
    const read = await client.readResource("srv", "file:///notes.txt")
    assert.strictEqual(read.contents[0]?.text, "contents")
    const denied = await rejected(client.readResource("srv", "file:///secret.txt"))
    assert.instanceOf(denied, Denied)
    assert.deepStrictEqual((denied as Denied).reason, {
      _tag: "HookDenied",
      hookId: "no-secrets",
      message: "not that one"
    })
    const prompt = await client.getPrompt("srv", "weather", { city: "Paris" })
    assert.deepStrictEqual(prompt.messages[0]?.content, { type: "text", text: JSON.stringify({ city: "Lyon" }) })
    assert.deepStrictEqual(transport.log.reads, ["file:///notes.txt"])
    await client.close()
  })

  it("runs many calls concurrently on one build of the Layers", async () => {
    let builds = 0
    const counted = Layer.effect(
      ToolTransport,
      Effect.sync(() => builds++).pipe(Effect.andThen(Effect.service(ToolTransport)))
    ).pipe(
      Layer.provide(ToolTransport.fromTools([echo]))
    )
    const client = Interlock.client({ policy, transport: counted })
    const texts = await Promise.all(
      Array.from({ length: 50 }, (_, i) => client.callTool({ serverId: "local", name: "echo", args: { text: `${i}` } }))
    )
    assert.deepStrictEqual(texts.map((result) => result.text), Array.from({ length: 50 }, (_, i) => `echo: ${i}`))
    assert.strictEqual(builds, 1)
    await client.close()
  })

  it("close interrupts calls in flight (ClientClosed), releases the Layers, and refuses later calls", async () => {
    const interrupted: Array<string> = []
    const events: Array<string> = []
    const released = Layer.effectDiscard(
      Effect.addFinalizer(() => Effect.sync(() => events.push("transport released")))
    )
    const recording = RecordingTransport.make([echo, hanging(interrupted)])
    const client = Interlock.client({
      policy: Policy.allowAll,
      transport: recording.layer.pipe(Layer.provideMerge(released)) as Layer.Layer<ToolTransport>
    })
    const inFlight = rejected(client.callTool({ serverId: "local", name: "wait" }))
    while (recording.calls.length === 0) await new Promise((resolve) => setImmediate(resolve))
    const closing = client.close()
    assert.strictEqual(client.close(), closing)
    await closing
    const error = await inFlight
    assert.instanceOf(error, ClientClosed)
    assert.strictEqual((error as ClientClosed).message, "the Interlock client is closed")
    assert.deepStrictEqual(interrupted, ["wait"])
    assert.deepStrictEqual(events, ["transport released"])
    for (
      const later of [
        client.callTool({ serverId: "local", name: "echo", args: { text: "x" } }),
        client.listTools(),
        client.readResource("local", "file:///x"),
        client.getPrompt("local", "p")
      ]
    ) {
      const refused = await rejected(later)
      assert.instanceOf(refused, ClientClosed)
      assert.strictEqual((refused as ClientClosed)._tag, "ClientClosed")
    }
    assert.strictEqual(recording.calls.length, 1)
  })

  it("closing a client that never ran builds nothing", async () => {
    let builds = 0
    const transport = Layer.effect(
      ToolTransport,
      Effect.sync(() => builds++).pipe(Effect.andThen(Effect.service(ToolTransport)))
    ).pipe(
      Layer.provide(ToolTransport.fromTools([echo]))
    )
    const client = Interlock.client({ policy, transport })
    await client.close()
    assert.instanceOf(await rejected(client.callTool({ serverId: "local", name: "echo" })), ClientClosed)
    assert.strictEqual(builds, 0)
  })

  it(
    "an aborted signal interrupts the call (Interrupted); one aborted already never reaches " +
      "the transport",
    async () => {
      const interrupted: Array<string> = []
      const recording = RecordingTransport.make([echo, hanging(interrupted)])
      const client = Interlock.client({ policy: Policy.allowAll, transport: recording.layer })
      const controller = new AbortController()
      const call = rejected(client.callTool({ serverId: "local", name: "wait" }, { signal: controller.signal }))
      while (recording.calls.length === 0) await new Promise((resolve) => setImmediate(resolve))
      controller.abort()
      assert.instanceOf(await call, Interrupted)
      assert.deepStrictEqual(interrupted, ["wait"])
      assert.instanceOf(
        await rejected(
          client.callTool({ serverId: "local", name: "echo", args: { text: "x" } }, { signal: controller.signal })
        ),
        Interrupted
      )
      assert.strictEqual(recording.calls.length, 1)
      const ok = await client.callTool({ serverId: "local", name: "echo", args: { text: "after" } })
      assert.strictEqual(ok.text, "echo: after")
      await client.close()
    }
  )

  it("a bad option rejects every operation with the same ConfigError, naming the path", async () => {
    const client = Interlock.client({ policy, hookTimeout: 0, transport: ToolTransport.fromTools([echo]) })
    const first = await rejected(client.callTool({ serverId: "local", name: "echo", args: { text: "x" } }))
    assert.instanceOf(first, ConfigError)
    assert.strictEqual((first as ConfigError).path, "hookTimeout")
    assert.strictEqual(await rejected(client.listTools()), first)
    assert.isTrue(first instanceof InterlockError)
    await client.close()
  })

  it("an option that is not a Layer (an app without a type checker) rejects with a ConfigError naming it", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ policy }, "transport"],
      [{ policy: "allow", transport: ToolTransport.fromTools([echo]) }, "policy"],
      [{ policy, approvals: () => ({ decision: "allow" }), transport: ToolTransport.fromTools([echo]) }, "approvals"]
    ]
    for (const [options, path] of cases) {
      const client = Interlock.client(options as never)
      const error = await rejected(client.callTool({ serverId: "local", name: "echo", args: { text: "x" } }))
      assert.instanceOf(error, ConfigError)
      assert.strictEqual((error as ConfigError).message, `invalid config at ${path}: must be a Layer`)
      await client.close()
    }
  })

  it(
    "an Ask goes to the approvals Layer: a scripted allow lets the call through, and its " +
      "receipt says so",
    async () => {
      const approver = ScriptedApprover.make([{ decision: "allow", by: "alice" }, {
        decision: "deny",
        reason: "not twice"
      }])
      const ask = Policy.rules({
        rules: [{ id: "ask-echo", match: "local/echo", decision: "ask", reason: "echo needs a person" }]
      })
      const client = Interlock.client({
        policy: ask,
        approvals: approver.layer,
        transport: ToolTransport.fromTools([echo])
      })
      const allowed = await client.callTool({ serverId: "local", name: "echo", args: { text: "a" } })
      assert.deepStrictEqual(allowed.receipt?.approval, { decision: "allow", source: "approver", by: "alice" })
      const refused = await rejected(client.callTool({ serverId: "local", name: "echo", args: { text: "b" } }))
      assert.deepStrictEqual((refused as Denied).reason, { _tag: "ApprovalDenied", message: "not twice" })
      assert.deepStrictEqual(approver.asked.map((request) => [request.reason, request.rule, request.call.args]), [
        ["echo needs a person", "ask-echo", { text: "a" }],
        ["echo needs a person", "ask-echo", { text: "b" }]
      ])
      await client.close()
    }
  )

  it("refuses, at compile time, hooks that require services", () => {
    class Secrets extends Context.Service<Secrets, { readonly key: string }>()("test/Secrets") {}
    const needsSecrets = () => Effect.map(Effect.service(Secrets), () => Verdict.continue)
    const build = () =>
      Interlock.client({
        // @ts-expect-error: a Promise client cannot provide Secrets to its hooks
        hooks: { preToolCall: [{ match: "*", run: needsSecrets }] },
        policy,
        transport: ToolTransport.fromTools([echo])
      })
    assert.isFunction(build)
  })
})

/** The fixture transport's shape, for a test that replaces one of its operations. */
const recordingTransportShape = () =>
  Effect.runSync(Effect.service(ToolTransport).pipe(Effect.provide(recordingTransport().layer)))
