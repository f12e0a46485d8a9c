/**
 * @interlock/core/testing: what an app needs to test its own hooks and policies with
 * `@effect/vitest`: a recording transport, a scripted approver, and Effect Arbitraries of tool
 * calls, loose-name variants and JSON arguments for `it.effect.prop`.
 */

export * as Arbitraries from "./Arbitraries.ts"
export { type Recording, type RecordingShape, RecordingTransport } from "./RecordingTransport.ts"
export {
  SCRIPT_EXHAUSTED,
  type ScriptedApproval,
  ScriptedApprover,
  type ScriptedApproverShape,
  type ScriptStep
} from "./ScriptedApprover.ts"
