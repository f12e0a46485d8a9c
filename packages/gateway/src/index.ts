/**
 * @interlock/gateway: an MCP gateway that fronts other MCP servers through Interlock's hooks and
 * policy, configured from a file; the `interlock` CLI; the audit store; the web console.
 */

export { AuditError, AuditStore, type AuditStoreShape } from "./audit/AuditStore.ts"
export { type AuditBucket, type AuditQuery, AuditRecord } from "./audit/GatewayAuditRecord.ts"
export * as PgAuditStore from "./audit/PgAuditStore.ts"
export * as SqliteAuditStore from "./audit/SqliteAuditStore.ts"
export { GatewayCalls, type GatewayCallsShape } from "./calls/GatewayCalls.ts"
export { HostSessions } from "./calls/HostSessions.ts"
export { GatewayConfig, jsonSchema } from "./config/Config.ts"
export {
  decodeConfig,
  fromObject,
  loadConfig,
  type LoadedConfig,
  type LoadOptions,
  type RulePredicate
} from "./config/ConfigLoader.ts"
export { type ConfigInput, defineConfig, type RuleInput } from "./config/defineConfig.ts"
export type { Plan } from "./config/Plan.ts"
export { readSecret } from "./config/Secrets.ts"
export { type ArgsPredicate, compileArgConditions } from "./governance/ArgConditions.ts"
export { DETECTORS } from "./governance/Detectors.ts"
export { makeNamespace, type Namespace } from "./governance/Namespace.ts"
export { policyLayer, policyRules } from "./governance/PolicyLayer.ts"
export { compileRedactions, redactJson, redactText } from "./governance/Redactor.ts"
export { replay, type ReplayChange } from "./governance/Replay.ts"
export { Gateway, type GatewayShape } from "./runtime/Gateway.ts"
export { makePlan } from "./runtime/PlanBuilder.ts"
export { type HttpAddress, HttpFront, type HttpFrontShape, ListenError } from "./serve/HttpFront.ts"
export { serveStdio } from "./serve/StdioFront.ts"
export { ApprovalQueue, type ApprovalQueueShape, type PendingApproval } from "./state/ApprovalQueue.ts"
export { StateError } from "./state/StateError.ts"
