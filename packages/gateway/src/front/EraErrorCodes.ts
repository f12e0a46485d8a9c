/**
 * JSON-RPC error codes by the host's protocol era. The 2026-07-28 revision renumbered its own codes into -32020..-32099
 * and retired two 2025 codes it forbids emitting; a server's code passes unchanged where the host's era knows it, and
 * otherwise becomes the nearest code it does know (`hostErrorCode`). The gateway's own resource-not-found is -32602
 * with the URI as data to both eras (SDK 2's ResourceNotFoundError).
 */
import type { Era } from "./Era.ts"

/** Resource not found, as 2025-11-25 and earlier number it (the SDK's 2025 codec never emits it either). */
export const LEGACY_RESOURCE_NOT_FOUND = -32002

const INVALID_PARAMS = -32602
const INTERNAL_ERROR = -32603
const URL_ELICITATION_REQUIRED = -32042
/**
 * The codes the 2026-07-28 revision defines, which no 2025 host knows: HeaderMismatch -32020,
 * MissingRequiredClientCapability -32021, UnsupportedProtocolVersion -32022.
 */
const MODERN_ONLY_CODES: ReadonlySet<number> = new Set([-32020, -32021, -32022])

/**
 * A server's error code as a host of `era` gets it. To a 2026-07-28 host, resource not found -32002 becomes -32602
 * (Invalid params) and URL elicitation required -32042 (now input_required) an internal error; to a 2025 host, a
 * 2026-07-28 code is an internal error.
 */
export const hostErrorCode = (code: number, era: Era): number => {
  if (era === "modern") {
    return code === LEGACY_RESOURCE_NOT_FOUND
      ? INVALID_PARAMS
      : code === URL_ELICITATION_REQUIRED
      ? INTERNAL_ERROR
      : code
  }
  return MODERN_ONLY_CODES.has(code) ? INTERNAL_ERROR : code
}
