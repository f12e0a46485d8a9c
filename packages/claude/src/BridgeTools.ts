/**
 * The bridge's tool events, each running Interlock's own program (core's `Interlock.make`) for one stage of a call
 * Claude Code makes itself: PreToolUse and PermissionRequest run the pre-hooks and the policy (a meta-tool's is
 * MetaTools.ts's listing policy) over a transport that only captures the final call; PostToolUse the post-hooks
 * over Claude Code's response; PostToolUseFailure the failure hooks.
 */
import {
  Approvals,
  type ApprovalsShape,
  type CallError,
  type ConfigError,
  type HookEvent,
  Hooks,
  Interlock,
  type JsonObject,
  Policy,
  type PolicyShape,
  Principal,
  type Receipt,
  ToolCall,
  type ToolResult,
  ToolTransport,
  type ToolTransportShape,
  TransportError,
  unsupported
} from "@interlock/core"
import { Cause, Effect, Exit } from "effect"
import type { ClaudeToolInput } from "./ClaudeEvent.ts"
import { isMetaTool, listingPolicy } from "./MetaTools.ts"
import { fromClaudeName, type ToolRef } from "./ToolNames.ts"

/**
 * Who the bridge's calls come from, for hooks and the policy: `claude-code`, the principal its audit rows record (so
 * replay decides alike).
 */
export const CLAUDE_PRINCIPAL = new Principal({ id: "claude-code" })

/** What one governed stage produced. */
export interface Governed {
  readonly tool: ToolRef
  readonly exit: Exit.Exit<ToolResult, CallError>
  /** The call's error, when it failed. */
  readonly error: CallError | undefined
  /** The receipt of the call, from its result or its error. */
  readonly receipt: Receipt | undefined
  /** The final call, as the transport saw it (pre stage), when the call got that far. */
  readonly sent: ToolCall | undefined
  /** The policy's Ask, when it asked. */
  readonly asked: { readonly reason: string; readonly rule?: string | undefined } | undefined
  /** The call as Claude Code gave it, before any hook. */
  readonly original: ToolCall
  /** The final call before the bridge's last rewrite (BridgeOptions.rewriteInput), when that rewrite changed it. */
  readonly beforeLastRewrite?: ToolCall | undefined
}

/** Runs only `keep`'s hooks of the configured Hooks. */
const only = (hooks: Hooks["Service"], keep: HookEvent): Hooks["Service"] => ({
  context: hooks.context,
  byEvent: Object.fromEntries(
    Object.entries(hooks.byEvent).map(([event, list]) => [event, event === keep ? list : []])
  ) as Hooks["Service"]["byEvent"]
})

const ALLOW_ALL: PolicyShape = { decide: () => Effect.succeed(Policy.allow()) }

const errorOf = (exit: Exit.Exit<ToolResult, CallError>): CallError | undefined => {
  if (Exit.isSuccess(exit)) return undefined
  const error = Cause.findErrorOption(exit.cause)
  return error._tag === "Some" ? error.value : undefined
}

/**
 * Runs one stage: the Hooks of one event, a policy (the configured one, or allow-all after the
 * call), and a transport that answers with `answer`. The Claude event goes to hooks as
 * `ctx.assigns.claude`.
 */
export const governed = (
  input: ClaudeToolInput,
  keep: HookEvent,
  answer: (call: ToolCall) => Effect.Effect<ToolResult, TransportError>,
  settings: Interlock.Settings | undefined
): Effect.Effect<Governed, ConfigError, Hooks | Policy> =>
  Effect.scoped(
    Effect.gen(function*() {
      const tool = fromClaudeName(input.tool_name)
      const hooks = yield* Hooks
      // A meta-tool (ToolSearch) is a listing: the policy's default does not apply to it, its rules do.
      const policy = keep !== "preToolCall"
        ? ALLOW_ALL
        : isMetaTool(input.tool_name)
        ? listingPolicy(yield* Policy)
        : yield* Policy
      let sent: ToolCall | undefined
      let asked: Governed["asked"]
      const transport: ToolTransportShape = {
        callTool: (call) => {
          sent = call
          return answer(call)
        },
        listTools: () => Effect.succeed([]),
        readResource: (serverId) => unsupported(serverId, "resources/read"),
        getPrompt: (serverId) => unsupported(serverId, "prompts/get"),
        era: () => "claude-code"
      }
      const approvals: ApprovalsShape = {
        request: (request) =>
          Effect.sync(() => {
            asked = { reason: request.reason, rule: request.rule }
            return { decision: "deny", source: "none", reason: request.reason } as const
          }),
        grant: () => Effect.void
      }
      const calls = yield* Interlock.make(settings).pipe(
        Effect.provideService(Hooks, only(hooks, keep)),
        Effect.provideService(Policy, policy),
        Effect.provideService(Approvals, approvals),
        Effect.provideService(ToolTransport, transport)
      )
      const callId = typeof input.tool_use_id === "string" && input.tool_use_id.length > 0
        ? input.tool_use_id
        : crypto.randomUUID()
      const args = input.tool_input as JsonObject
      const exit = yield* Effect.exit(
        calls.callTool({ serverId: tool.serverId, name: tool.name, args, callId }, {
          assigns: { claude: input },
          principal: CLAUDE_PRINCIPAL
        })
      )
      const original = new ToolCall({ serverId: tool.serverId, name: tool.name, args, callId, meta: undefined })
      const error = errorOf(exit)
      const receipt = Exit.isSuccess(exit) ? exit.value.receipt : error?.receipt
      return { tool, exit, error, receipt, sent, asked, original }
    })
  )

/** The transport's answer after the call: the response Claude Code got. */
export const respondWith = (result: ToolResult) => (_call: ToolCall): Effect.Effect<ToolResult, TransportError> =>
  Effect.succeed(result)

/**
 * The transport's answer for a failed call: a fixed TransportError (Claude's error text goes to hooks in the event).
 */
export const failWith = (serverId: string) => (_call: ToolCall): Effect.Effect<ToolResult, TransportError> =>
  Effect.fail(new TransportError({ serverId, detail: "the tool failed in Claude Code" }))

/**
 * `g` with its final call's input rewritten by `rewrite`, when the call got through (no error, no halt) and `rewrite`
 * changes it.
 */
export const lastRewrite = (
  g: Governed,
  rewrite: ((call: ToolCall) => JsonObject | undefined) | undefined
): Governed => {
  if (rewrite === undefined || g.sent === undefined || g.error !== undefined || g.receipt?.outcome === "halted") {
    return g
  }
  const args = rewrite(g.sent)
  return args === undefined ? g : { ...g, sent: g.sent.with({ args }), beforeLastRewrite: g.sent }
}
