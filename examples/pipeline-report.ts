/**
 * A runnable tour of the pipeline: native tools behind hooks and a rules policy, a few calls,
 * and a short report of what was decided for each. Run from the repository root with `npm run example`,
 * or `node --conditions=@interlock/source examples/pipeline-report.ts` on Node >= 22.19.
 */
import {
  Approvals,
  Interlock,
  NativeTool,
  Policy,
  type Receipt,
  ToolCalls,
  type ToolResult,
  ToolTransport,
  Verdict
} from "@interlock/core"
import { Effect, Layer, Schema } from "effect"

const files = new Map([["notes.txt", "ship friday; key=sk-demo1234567890abcdefghij"]])

const tools = [
  NativeTool.make({
    name: "read_file",
    description: "Read a file from the demo store",
    parameters: Schema.Struct({ path: Schema.String }),
    run: ({ path }) => files.get(path) ?? `no such file: ${path}`
  }),
  NativeTool.make({
    name: "write_file",
    description: "Write a file in the demo store",
    parameters: Schema.Struct({ path: Schema.String, text: Schema.String }),
    run: ({ path, text }) => {
      files.set(path, text)
      return `wrote ${path}`
    }
  }),
  NativeTool.make({
    name: "delete_file",
    parameters: Schema.Struct({ path: Schema.String }),
    run: ({ path }) => (files.delete(path) ? `deleted ${path}` : `no such file: ${path}`)
  })
]

const redact = (result: ToolResult) =>
  Verdict.replace({
    ...result,
    content: result.content.map((
      b
    ) => (b.type === "text" ? { ...b, text: String(b.text).replace(/sk-[A-Za-z0-9]{20,}/g, "[REDACTED]") } : b))
  })

const ToolCallsLive = Interlock.layer({
  client: "demo",
  hooks: {
    preToolCall: [
      {
        match: "*",
        id: "normalize-path",
        run: (call) =>
          typeof call.args.path === "string"
            ? Verdict.rewrite({ args: { ...call.args, path: call.args.path.trim() } })
            : Verdict.continue
      },
      {
        match: "local/write_*",
        id: "no-dotfiles",
        kind: "guard",
        run: (call) =>
          String(call.args.path).startsWith(".") ? Verdict.deny("dotfiles are off limits") : Verdict.continue
      }
    ],
    postToolCall: [{ match: "*", id: "redact-keys", run: (_call, result) => redact(result) }]
  },
  policy: Policy.rules({
    rules: [
      { id: "reads", match: "local/read_*", decision: "allow" },
      {
        id: "writes",
        match: "local/write_file",
        decision: "allow",
        when: (args) => String(args.path).endsWith(".txt")
      },
      { id: "deletes", match: "delete_file", decision: "ask", reason: "deleting needs a human" }
    ],
    default: "deny"
  }),
  approvals: Approvals.layer({
    approver: (request) => ({
      decision: request.call.args.path === "draft.txt" ? "allow" : "deny",
      reason: "the reviewer said no"
    }),
    timeout: "10 seconds"
  })
}).pipe(Layer.provide(ToolTransport.fromTools(tools)))

const summary = (receipt: Receipt | undefined) =>
  receipt === undefined
    ? ""
    : [
      receipt.hooks.map((h) => `${h.id}:${h.failure ?? h.status}`).join(" "),
      receipt.policy ? `policy:${receipt.policy.decision}${receipt.policy.rule ? `(${receipt.policy.rule})` : ""}` : "",
      receipt.approval ? `approval:${receipt.approval.decision}(${receipt.approval.source})` : ""
    ].filter((s) => s.length > 0).join("  ")

const program = Effect.gen(function*() {
  const calls = yield* ToolCalls
  const requests: Array<[string, Record<string, string>]> = [
    ["read_file", { path: " notes.txt " }],
    ["write_file", { path: "draft.txt", text: "hello" }],
    ["write_file", { path: ".env", text: "SECRET=1" }],
    ["write_file", { path: "script.sh", text: "rm -rf /" }],
    ["delete_file", { path: "draft.txt" }],
    ["delete_file", { path: "notes.txt" }]
  ]
  console.log("Interlock pipeline report\n")
  for (const [name, args] of requests) {
    const outcome = yield* Effect.result(calls.callTool({ serverId: "local", name, args }))
    const label = `${name}(${JSON.stringify(args)})`.padEnd(52)
    if (outcome._tag === "Success") {
      console.log(`${label} -> ${outcome.success.receipt?.outcome.padEnd(8)} ${JSON.stringify(outcome.success.text)}`)
      console.log(`${"".padEnd(52)}    ${summary(outcome.success.receipt)}`)
    } else {
      console.log(`${label} -> ${outcome.failure._tag.padEnd(8)} ${outcome.failure.message}`)
      console.log(`${"".padEnd(52)}    ${summary(outcome.failure.receipt)}`)
    }
  }
})

Effect.runPromise(program.pipe(Effect.provide(ToolCallsLive))).catch((error) => {
  console.error(`pipeline-report failed: ${error instanceof Error ? error.message : String(error)}`)
  process.exitCode = 1
})
