/**
 * The caps every host request meets at the door, on both fronts, before any name reaches a lookup
 * or a cache: tool and prompt names (128 characters, as MCP recommends), URIs, JSON-RPC ids and
 * progress tokens, and the size of one call's arguments (`maxArgBytes`). A request past a cap gets
 * a LimitExceeded that names the cap and never the value. Lengths count UTF-16 code units.
 */
import { Schema } from "effect"

/** The longest tool or prompt name a host may send (characters). */
export const MAX_NAME_LENGTH = 128

/** The longest resource URI a host may send (characters). */
export const MAX_URI_LENGTH = 8 * 1024

/** The longest string JSON-RPC id or progress token a host may send (characters). */
export const MAX_ID_LENGTH = 256

/** The most messages one JSON-RPC batch may carry (an HTTP POST serves it; stdio refuses every batch). */
export const MAX_BATCH = 100

/** The refusal of an empty batch, on both fronts. */
export const EMPTY_BATCH = "Invalid Request: the batch is empty"

/** The refusal of a batch past MAX_BATCH, on both fronts. */
export const BATCH_TOO_LARGE = `Invalid Request: Batch must not exceed ${MAX_BATCH} messages`

/** The default cap on one call's arguments, as UTF-8 JSON (bytes); the config key `maxArgBytes` overrides it. */
export const DEFAULT_MAX_ARG_BYTES = 1024 * 1024

/** The configurable caps. */
export interface DoorLimits {
  /** The largest arguments object of one tools/call, prompts/get or completion/complete (bytes of UTF-8 JSON). */
  readonly maxArgBytes: number
}

/** The caps with their defaults. */
export const defaultDoorLimits: DoorLimits = { maxArgBytes: DEFAULT_MAX_ARG_BYTES }

/** A host request past one of the caps: which value (`what`), which cap (`limit`) and its size. */
export class LimitExceeded extends Schema.TaggedError<LimitExceeded>()("LimitExceeded", {
  what: Schema.String,
  limit: Schema.String,
  max: Schema.Number,
  unit: Schema.Literals(["characters", "bytes"])
}) {
  override get message(): string {
    return `Interlock: ${this.what} over the ${this.limit} cap (${this.max} ${this.unit})`
  }
}

/** Whether a JSON-RPC id or progress token is within MAX_ID_LENGTH (numbers always are). */
export const idWithinLimit = (id: unknown): boolean => typeof id !== "string" || id.length <= MAX_ID_LENGTH

const text = (value: unknown, what: string, limit: string, max: number): LimitExceeded | undefined =>
  typeof value === "string" && value.length > max
    ? new LimitExceeded({ what, limit, max, unit: "characters" })
    : undefined

const bytes = (value: unknown, what: string, max: number): LimitExceeded | undefined => {
  if (value === undefined) return undefined
  // A UTF-16 unit takes at most three UTF-8 bytes, so only a value near the cap is encoded to count.
  let json: string
  try {
    json = JSON.stringify(value) ?? ""
  } catch {
    // Nested too deep for JSON.stringify: far past any size a call may have.
    return new LimitExceeded({ what, limit: "maxArgBytes", max, unit: "bytes" })
  }
  if (json.length * 3 <= max) return undefined
  return Buffer.byteLength(json, "utf8") > max
    ? new LimitExceeded({ what, limit: "maxArgBytes", max, unit: "bytes" })
    : undefined
}

const name = (value: unknown, what: string) => text(value, what, "MAX_NAME_LENGTH", MAX_NAME_LENGTH)
const uri = (value: unknown) => text(value, "resource URI", "MAX_URI_LENGTH", MAX_URI_LENGTH)

type Params = Readonly<Record<string, unknown>>

const record = (value: unknown): Params => (typeof value === "object" && value !== null ? value as Params : {})

/** What each method's params must keep within the caps. */
const byMethod: Readonly<Record<string, (params: Params, limits: DoorLimits) => LimitExceeded | undefined>> = {
  "tools/call": (params, limits) =>
    name(params.name, "tool name") ?? bytes(params.arguments, "tool arguments", limits.maxArgBytes),
  "prompts/get": (params, limits) =>
    name(params.name, "prompt name") ?? bytes(params.arguments, "prompt arguments", limits.maxArgBytes),
  "resources/read": (params) => uri(params.uri),
  "resources/subscribe": (params) => uri(params.uri),
  "resources/unsubscribe": (params) => uri(params.uri),
  "completion/complete": (params, limits) => {
    const ref = record(params.ref)
    return name(ref.name, "prompt name") ?? uri(ref.uri) ??
      bytes({ argument: params.argument, context: params.context }, "completion arguments", limits.maxArgBytes)
  }
}

/** The first cap a host request (its method, params and JSON-RPC id) is past, if any. */
export const overLimit = (
  request: { readonly method: string; readonly params?: unknown },
  id: unknown,
  limits: DoorLimits
): LimitExceeded | undefined => {
  if (!idWithinLimit(id)) {
    return new LimitExceeded({ what: "request id", limit: "MAX_ID_LENGTH", max: MAX_ID_LENGTH, unit: "characters" })
  }
  const params = record(request.params)
  if (!idWithinLimit(record(params._meta).progressToken)) {
    return new LimitExceeded({ what: "progress token", limit: "MAX_ID_LENGTH", max: MAX_ID_LENGTH, unit: "characters" })
  }
  return byMethod[request.method]?.(params, limits)
}
