/**
 * The built-in hooks behind the config keys: `redact` (postToolCall transform), `rateLimits`
 * (preToolCall guard per principal and tool) and `maxResultBytes` (postToolCall transform). They
 * run before any hooks written as code in interlock.config.ts.
 */
import { ConfigError, type HooksConfig, ToolResult, Verdict } from "@interlock/core"
import type { GatewayConfig } from "../config/Config.ts"
import { redactResultParts } from "./ContentRedaction.ts"
import { rateLimitHook } from "./RateLimiter.ts"
import { compileRedactions, type Redaction } from "./Redactor.ts"

/** The size of a result as sent (UTF-8 bytes of its content and structured content). */
export const resultBytes = (result: ToolResult): number =>
  Buffer.byteLength(JSON.stringify([result.content, result.structuredContent ?? null]), "utf8")

const redactHook = (redaction: Redaction) => ({
  match: redaction.match,
  id: redaction.id,
  kind: "transform" as const,
  run: (_call: unknown, result: ToolResult) => {
    const parts = { content: result.content, structuredContent: result.structuredContent, meta: result.meta }
    const redacted = redactResultParts(parts, [redaction])
    return redacted === parts ? Verdict.continue : Verdict.replace({ ...redacted, isError: result.isError })
  }
})

/** The built-in hooks for a config, plus its compiled redactions (the gateway reuses them for the audit). */
export const builtinHooks = (
  config: GatewayConfig
): { readonly hooks: HooksConfig; readonly redactions: ReadonlyArray<Redaction> } | ConfigError => {
  const redactions = compileRedactions(config.redact ?? [])
  if (redactions instanceof ConfigError) return redactions
  const limits = config.rateLimits ?? []
  const max = config.maxResultBytes
  const post = [
    ...redactions.map(redactHook),
    ...(max === undefined ? [] : [{
      match: "*",
      id: "maxResultBytes",
      kind: "transform" as const,
      run: (_call: unknown, result: ToolResult) => {
        const size = resultBytes(result)
        return size <= max
          ? Verdict.continue
          : Verdict.replace(
            ToolResult.text(`Result withheld: it is ${size} bytes, over the limit of ${max} bytes.`, { isError: true })
          )
      }
    }])
  ]
  const pre = limits.map((limit, index) => ({
    match: limit.match ?? "*",
    id: `rateLimits[${index}]`,
    kind: "guard" as const,
    run: rateLimitHook(limit)
  }))
  // Post hooks run inside-out: listing the size limit last makes it run first, before redaction.
  return { hooks: { preToolCall: pre, postToolCall: post }, redactions }
}

/** Concatenates hook configs event by event (built-ins first). */
export const mergeHooks = (...configs: ReadonlyArray<HooksConfig>): HooksConfig => {
  const out: Record<string, Array<unknown>> = {}
  for (const config of configs) {
    for (const [event, entries] of Object.entries(config)) {
      if (entries === undefined) continue
      out[event] = [...(out[event] ?? []), ...(Array.isArray(entries) ? entries : [entries])]
    }
  }
  return out as HooksConfig
}
