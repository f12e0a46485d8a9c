/**
 * The protocol era a front server serves: `legacy` (2025-11-25, 2025-06-18, with a session) or `modern` (2026-07-28,
 * per request).
 */
export type Era = "legacy" | "modern"
