/** What the adapters' tests share: the marked secret, a policy that allows only `ai/read`, a redactor, cleanup. */
import { afterEach } from "@effect/vitest"
import { Policy, type ToolResult, Verdict } from "@interlock/core"

/** The marked secret a tool returns; it must reach neither the model nor the framework's results. */
export const SECRET = "sk-live-4f9a2b7c1d"

/** Allows `ai/read` (rule "reads") and nothing else. */
export const reads = Policy.rules({ rules: [{ id: "reads", match: "ai/read", decision: "allow" }], default: "deny" })

/** A postToolCall hook that replaces {@link SECRET} in any result, an error's too, keeping its error flag. */
export const redact = {
  match: "*",
  id: "redact",
  run: (_call: unknown, output: ToolResult) =>
    Verdict.replace({
      content: [{ type: "text", text: output.text.replaceAll(SECRET, "[REDACTED]") }],
      isError: output.isError === true
    })
}

/** A list of things to close after each test of the file (fake servers, governed tools). */
export const closedAfterEach = (): Array<{ readonly close: () => Promise<void> }> => {
  const open: Array<{ readonly close: () => Promise<void> }> = []
  afterEach(async () => {
    await Promise.all(open.splice(0).map((resource) => resource.close()))
  })
  return open
}

/** A preToolCall hook that drops a leading `./` from `ai/read`'s path. */
export const normalize = {
  match: "ai/read",
  id: "normalize",
  run: (call: { readonly args: { readonly [key: string]: unknown } }) =>
    Verdict.rewrite({ args: { path: String(call.args.path).replace(/^\.\//, "") } })
}

/** Options that rewrite with {@link normalize}, redact with {@link redact} and allow only reads. */
export const rewriteAndRedact = { hooks: { preToolCall: [normalize], postToolCall: [redact] }, policy: reads }
