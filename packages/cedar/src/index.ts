/**
 * @interlock/cedar: Cedar policies (the official WASM build) as Interlock's Policy service, one
 * policy over tools/list, tools/call, resources/read and prompts/get. Core stays free of WASM.
 */

import { cedar } from "./CedarPolicy.ts"

/** `Policy.cedar({ policies, schema?, source? })`: core's Policy service from a Cedar policy set. */
export const Policy = { cedar } as const
export { type CedarError, CedarPolicyInvalid, CedarWasmFailed } from "./CedarErrors.ts"
export type { CedarOptions } from "./CedarPolicy.ts"
export * as CedarTools from "./CedarTools.ts"
export { cedarSchema, type CedarSchemaInput } from "./CedarValidation.ts"
export { ACTIONS, ANONYMOUS, canonicalId, type CedarAction, cedarArgs, NAMESPACE } from "./RequestModel.ts"
