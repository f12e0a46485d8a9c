/**
 * The config the start-up tests run claude-hook on: a rule, a redaction pattern, a rate limit and a SQLite audit store.
 */

/** The sample config (the start-up bench's, with one rule); its audit store is `audit.db` beside it. */
export const HOOK_CONFIG = {
  servers: {},
  audit: { path: "audit.db" },
  redact: [{ match: "*", pattern: "sk-[A-Za-z0-9]{20,}", replacement: "[REDACTED]" }],
  rateLimits: [{ match: "*", perMinute: 600 }],
  policy: {
    default: "allow",
    rules: [{ id: "no-fetch", match: "claude/WebFetch", decision: "deny", reason: "no network" }]
  }
}
