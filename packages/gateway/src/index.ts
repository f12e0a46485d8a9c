/**
 * @interlock/gateway: an MCP gateway that fronts other MCP servers through Interlock's hooks and
 * policy, configured from a file; the `interlock` CLI; the audit store; the web console.
 */

export { type ArgsPredicate, compileArgConditions } from "./ArgConditions.ts"
export { ApprovalQueue, type ApprovalQueueShape, type PendingApproval } from "./ApprovalQueue.ts"
export { AuditRecord, type AuditBucket, type AuditQuery } from "./AuditRecord.ts"
export { AuditError, AuditStore, type AuditStoreShape } from "./AuditStore.ts"
export { GatewayConfig, jsonSchema } from "./Config.ts"
export { decodeConfig, fromObject, type LoadedConfig, loadConfig, type RulePredicate } from "./ConfigLoader.ts"
export { type ConfigInput, defineConfig, type RuleInput } from "./defineConfig.ts"
export { DETECTORS } from "./Detectors.ts"
export { Gateway, type GatewayShape } from "./Gateway.ts"
export { GatewayCalls, type GatewayCallsShape } from "./GatewayCalls.ts"
export { HostSessions } from "./HostSessions.ts"
export { type HttpAddress, HttpFront, type HttpFrontShape, ListenError } from "./HttpFront.ts"
export { makeNamespace, type Namespace } from "./Namespace.ts"
export { makePlan, type Plan } from "./Plan.ts"
export { policyLayer, policyRules } from "./PolicyConfig.ts"
export { compileRedactions, redactJson, redactText } from "./Redactor.ts"
export { replay, type ReplayChange } from "./Replay.ts"
export { readSecret } from "./Secrets.ts"
export { serveStdio } from "./StdioFront.ts"
export * as PgAuditStore from "./PgAuditStore.ts"
export * as SqliteAuditStore from "./SqliteAuditStore.ts"
