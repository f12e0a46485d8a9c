/**
 * What tools (the gateway's `check` and `schema --cedar`) need from a Cedar policy set, without touching the WASM
 * module themselves.
 */
import type { Tool } from "@interlock/core"
import { Effect } from "effect"
import { CedarPolicyInvalid, type CedarWasmFailed } from "./CedarErrors.ts"
import { parsePolicySet } from "./CedarPolicySet.ts"
import { cedarSchema, cedarSchemaText, validateAgainstListing } from "./CedarValidation.ts"
import { loadCedarWasm } from "./CedarWasm.ts"

/**
 * Every problem of a policy set against a listing: the parse error, or each validation error
 * against the schema generated from `tools` (see CedarValidation.ts); without `tools`, only the
 * parse. Empty when it is valid.
 */
export const check = (
  policies: string,
  source: string | undefined,
  tools: ReadonlyArray<Tool> | undefined
): Effect.Effect<ReadonlyArray<CedarPolicyInvalid>, CedarWasmFailed> =>
  Effect.gen(function*() {
    const wasm = yield* loadCedarWasm
    const set = yield* Effect.result(parsePolicySet(wasm, policies, source))
    if (set._tag === "Failure") {
      if (set.failure instanceof CedarPolicyInvalid) return [set.failure]
      return yield* Effect.fail(set.failure)
    }
    return tools === undefined ? [] : yield* validateAgainstListing(wasm, set.success, tools)
  })

/** The Cedar schema (Cedar's text format) generated from a listing. */
export const schemaText = (tools: ReadonlyArray<Tool>): Effect.Effect<string, CedarWasmFailed> =>
  Effect.flatMap(loadCedarWasm, (wasm) => cedarSchemaText(wasm, cedarSchema(tools)))
