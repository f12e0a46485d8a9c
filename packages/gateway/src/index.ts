/**
 * @interlock/gateway: an MCP gateway that fronts other MCP servers through Interlock's hooks and
 * policy, configured from a file; the `interlock` CLI; the audit store; the web console.
 */

export { type ArgsPredicate, compileArgConditions } from "./governance/ArgConditions.ts"
export { ApprovalQueue, type ApprovalQueueShape, type PendingApproval } from "./calls/ApprovalQueue.ts"
export { AuditRecord, type AuditBucket, type AuditQuery } from "./audit/AuditRecord.ts"
export { AuditError, AuditStore, type AuditStoreShape } from "./audit/AuditStore.ts"
export { GatewayConfig, jsonSchema } from "./config/Config.ts"
export { decodeConfig, fromObject, type LoadedConfig, loadConfig, type LoadOptions, type RulePredicate } from "./config/ConfigLoader.ts"
export { type ConfigInput, defineConfig, type RuleInput } from "./config/defineConfig.ts"
export { DETECTORS } from "./governance/Detectors.ts"
export { Gateway, type GatewayShape } from "./Gateway.ts"
export { GatewayCalls, type GatewayCallsShape } from "./calls/GatewayCalls.ts"
export { HostSessions } from "./front/HostSessions.ts"
export { type HttpAddress, HttpFront, type HttpFrontShape, ListenError } from "./front/http/HttpFront.ts"
export { makeNamespace, type Namespace } from "./governance/Namespace.ts"
export { makePlan, type Plan } from "./config/Plan.ts"
export { policyLayer, policyRules } from "./governance/PolicyLayer.ts"
export { compileRedactions, redactJson, redactText } from "./governance/Redactor.ts"
export { replay, type ReplayChange } from "./governance/Replay.ts"
export { readSecret } from "./config/Secrets.ts"
export { serveStdio } from "./front/stdio/StdioFront.ts"
export { StateError } from "./state/StateError.ts"
export * as PgAuditStore from "./audit/PgAuditStore.ts"
export * as SqliteAuditStore from "./audit/SqliteAuditStore.ts"
