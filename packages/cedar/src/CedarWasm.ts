/**
 * The official Cedar WASM build (`@cedar-policy/cedar-wasm`, its Node.js flavour), loaded on first
 * use so that nothing pays for its 4 MB module unless a Cedar policy is configured. Every call into
 * it goes through {@link guarded}: a WASM function that throws or traps gives `undefined`, which
 * callers turn into a denial or a typed error. Nothing here throws.
 */
import type * as Wasm from "@cedar-policy/cedar-wasm/nodejs"
import { Effect } from "effect"
import { CedarWasmFailed } from "./CedarErrors.ts"

/** The Cedar WASM module's functions. */
export type CedarWasm = typeof Wasm

let loading: Promise<CedarWasm> | undefined

/** Loads (once) the Cedar WASM module. A module that cannot load is a CedarWasmFailed. */
export const loadCedarWasm: Effect.Effect<CedarWasm, CedarWasmFailed> = Effect.tryPromise({
  try: () => (loading ??= import("@cedar-policy/cedar-wasm/nodejs").catch((error: unknown) => {
    loading = undefined
    throw error
  })),
  catch: () => new CedarWasmFailed({ detail: "the Cedar WASM module could not be loaded" })
})

/** Runs one WASM function; a throw or a trap gives `undefined` (never rethrown: it may quote input). */
export const guarded = <A>(run: () => A): A | undefined => {
  try {
    return run()
  } catch {
    return undefined
  }
}
