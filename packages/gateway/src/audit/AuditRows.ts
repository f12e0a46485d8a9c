/**
 * What the SQL audit stores share: the table's columns, the statements (written once, with each
 * dialect's placeholders and column types), and the mapping between an AuditRecord and a row.
 * SQLite and Postgres stores built on it give the same answers for the same rows.
 */
import { ANSWERED, CallOutcome, ClaudeDecision, JsonText } from "@interlock/core"
import { Schema } from "effect"
import { type AuditBucket, type AuditQuery, AuditRecord, ReceiptData } from "./GatewayAuditRecord.ts"

/** The SQL dialects the audit stores speak. */
export type Dialect = "sqlite" | "postgres"

const TYPES = {
  id: { sqlite: "INTEGER PRIMARY KEY AUTOINCREMENT", postgres: "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY" },
  time: { sqlite: "INTEGER NOT NULL", postgres: "BIGINT NOT NULL" },
  required: { sqlite: "TEXT NOT NULL", postgres: "TEXT NOT NULL" },
  optional: { sqlite: "TEXT", postgres: "TEXT" },
  duration: { sqlite: "REAL NOT NULL", postgres: "DOUBLE PRECISION NOT NULL" },
  flag: { sqlite: "INTEGER", postgres: "INTEGER" }
} as const

// The columns after `id`, in insert order; JSON columns (receipt, args, result) hold JSON text.
const COLUMNS: ReadonlyArray<readonly [string, keyof typeof TYPES]> = [
  ["time", "time"],
  ["call_id", "required"],
  ["principal", "optional"],
  ["server", "required"],
  ["tool", "required"],
  ["digest", "optional"],
  ["decision", "optional"],
  ["rule", "optional"],
  ["approval", "optional"],
  ["outcome", "required"],
  ["duration_ms", "duration"],
  ["receipt", "optional"],
  ["error", "optional"],
  ["args", "optional"],
  ["result", "optional"],
  // Added by the write-ahead audit; older tables get them from the migration (addColumns), so
  // these and any later column must be nullable.
  ["sent", "flag"],
  ["instance", "optional"],
  // Added for Claude Code's correlation (tool_use_id, session_id).
  ["tool_use_id", "optional"],
  ["session_id", "optional"],
  // Added when the Claude Code bridge's records joined the gateway's (one AuditRecord): see claudeDecisions.
  ["event", "optional"],
  ["claude_decision", "optional"],
  ["rewritten", "flag"],
  // Added for traceability: the hash of the config that decided (config/ConfigHash.ts).
  ["config_hash", "optional"],
  // Added for traceability: the host's client as it named itself (calls/HostClient.ts, CurrentHostClient).
  ["client", "optional"],
  // Added for downstream credentials: how the call was authenticated, and which grant (never a token).
  ["auth_form", "optional"],
  ["auth_grant", "optional"]
]

// What completing a write-ahead row rewrites: every column but the first, `time`.
const COMPLETED = COLUMNS.slice(1)

const SELECTED = ["id", ...COLUMNS.map(([name]) => name)].join(", ")

/** The statements of one store: table and index creation, insert, the two reads and the buckets. */
export interface AuditSql {
  /** The index on `time`: its name, and the CREATE INDEX IF NOT EXISTS. */
  readonly index: { readonly name: string; readonly create: string }
  /** The CREATE TABLE IF NOT EXISTS. */
  readonly createTable: string
  /** Parameters: {@link insertParams}. */
  readonly insert: string
  /** The insert, answering the new row's `id`. Parameters: {@link insertParams}. */
  readonly begin: string
  /**
   * Rewrites a row but its `time` (left alone, so the time index is not touched). Parameters: {@link completeParams}.
   */
  readonly complete: string
  /** Parameters: [limit]. */
  readonly newest: string
  /** Parameters: [afterId, limit]. */
  readonly after: string
  /** Parameters: [callId, afterId, limit]. */
  readonly byCall: string
  /** Parameters: {@link bucketParams}. */
  readonly buckets: string
}

/** The statements for a dialect and table name (a trusted identifier, never user input). */
export const auditSql = (dialect: Dialect, table: string): AuditSql => {
  const p = (n: number) => (dialect === "sqlite" ? "?" : `$${n}`)
  const columns = [["id", "id"] as const, ...COLUMNS].map(([name, type]) => `  ${name} ${TYPES[type][dialect]}`)
  const insert = `INSERT INTO ${table} (${COLUMNS.map(([name]) => name).join(", ")}) VALUES (${
    COLUMNS.map((_, i) => p(i + 1)).join(", ")
  })`
  return {
    createTable: `CREATE TABLE IF NOT EXISTS ${table} (\n${columns.join(",\n")}\n)`,
    index: { name: `${table}_time`, create: `CREATE INDEX IF NOT EXISTS ${table}_time ON ${table}(time)` },
    insert,
    begin: `${insert} RETURNING id`,
    complete: `UPDATE ${table} SET ${COMPLETED.map(([name], i) => `${name} = ${p(i + 1)}`).join(", ")} WHERE id = ${
      p(COMPLETED.length + 1)
    }`,
    newest: `SELECT ${SELECTED} FROM ${table} ORDER BY id DESC LIMIT ${p(1)}`,
    after: `SELECT ${SELECTED} FROM ${table} WHERE id > ${p(1)} ORDER BY id DESC LIMIT ${p(2)}`,
    byCall: `SELECT ${SELECTED} FROM ${table} WHERE call_id = ${p(1)} AND id > ${p(2)} ORDER BY id DESC LIMIT ${p(3)}`,
    buckets: `SELECT server, tool, (time / CAST(${p(1)} AS BIGINT)) * CAST(${
      p(2)
    } AS BIGINT) AS start, COUNT(*) AS calls,
      SUM(CASE WHEN outcome IN ('denied', 'refused') THEN 1 ELSE 0 END) AS denied
      FROM ${table} WHERE time >= ${p(3)} GROUP BY server, tool, start`
  }
}

const quoted = (values: ReadonlyArray<string>) => values.map((value) => `'${value}'`).join(", ")

// The bridge's answers that are no outcome of a gateway call; `withheld` and `recovered` are both.
const OUTCOMES: ReadonlySet<string> = new Set(CallOutcome.literals)
const BRIDGE_ONLY = ClaudeDecision.literals.filter((decision) => !OUTCOMES.has(decision))
const SHARED = ClaudeDecision.literals.filter((decision) => OUTCOMES.has(decision))

/**
 * Moves the Claude Code bridge's answers out of `outcome`, where bridges before the one record
 * wrote them, into `claude_decision` (the outcome becomes `answered`). An answer that is no gateway
 * outcome (keep_going, none, ...) moves wherever it is; `withheld` and `recovered` move only on the
 * bridge's rows: no gateway instance, no `sent`, and a Claude Code tool_use_id or no call id.
 */
const claudeDecisions = (table: string): ReadonlyArray<string> => [
  `UPDATE ${table} SET claude_decision = outcome, outcome = '${ANSWERED}' WHERE outcome IN (${quoted(BRIDGE_ONLY)})`,
  `UPDATE ${table} SET claude_decision = outcome, outcome = '${ANSWERED}' WHERE outcome IN (${quoted(SHARED)})
    AND instance IS NULL AND sent IS NULL AND (tool_use_id IS NOT NULL OR call_id = '')`
]

/**
 * The migration of an older table (`existing` are the column names it has): one ALTER TABLE ... ADD
 * COLUMN per column it lacks, so old rows keep NULL there and read back without the field; and,
 * when it lacks `claude_decision`, the statements that move the bridge's answers there.
 */
export const addColumns = (dialect: Dialect, table: string, existing: ReadonlySet<string>): ReadonlyArray<string> => [
  ...COLUMNS.filter(([name]) => !existing.has(name)).map(([name, type]) =>
    `ALTER TABLE ${table} ADD COLUMN ${name} ${TYPES[type][dialect]}`
  ),
  ...(existing.has("claude_decision") ? [] : claudeDecisions(table))
]

/** A row as a driver returns it (numbers may come back as bigint from Postgres). */
export type Row = Readonly<Record<string, unknown>>

const json = (value: unknown): string | null => (value === undefined ? null : JSON.stringify(value))

const flag = (value: boolean | undefined): number | null => (value === undefined ? null : value ? 1 : 0)

/** The insert's parameters for a record, in column order. `time` is stored as whole milliseconds. */
export const insertParams = (row: AuditRecord): Array<string | number | null> => [
  Math.round(row.time),
  row.callId,
  row.principal ?? null,
  row.server,
  row.tool,
  row.digest ?? null,
  row.decision ?? null,
  row.rule ?? null,
  row.approval ?? null,
  row.outcome,
  row.durationMs,
  json(row.receipt),
  row.error ?? null,
  json(row.args),
  json(row.result),
  flag(row.sent),
  row.instance ?? null,
  row.toolUseId ?? null,
  row.sessionId ?? null,
  row.event ?? null,
  row.claudeDecision ?? null,
  flag(row.rewritten),
  row.configHash ?? null,
  row.client ?? null,
  row.authForm ?? null,
  row.authGrant ?? null
]

/** The parameters of `complete`: the row's values but its time, then the id of the row to complete. */
export const completeParams = (
  row: AuditRecord,
  id: number
): Array<string | number | null> => [...insertParams(row).slice(1), id]

/** Which read a query runs, and its parameters (at most 10,000 rows, default 100). */
export const readOf = (
  query: AuditQuery = {}
): { readonly statement: "newest" | "after" | "byCall"; readonly params: ReadonlyArray<number | string> } => {
  const limit = Math.max(1, Math.min(10_000, Math.floor(query.limit ?? 100)))
  if (query.callId !== undefined) return { statement: "byCall", params: [query.callId, query.afterId ?? 0, limit] }
  return query.afterId === undefined
    ? { statement: "newest", params: [limit] }
    : { statement: "after", params: [query.afterId, limit] }
}

/** The bucket query's parameters: the bucket size (at least 1 ms, whole) twice, then `since`. */
export const bucketParams = (since: number, bucketMs: number): ReadonlyArray<number> => {
  const size = Math.max(1, Math.floor(bucketMs))
  return [size, size, since]
}

const decodeReceipt = Schema.decodeUnknownSync(ReceiptData)

/** A stored row back as an AuditRecord. */
export const toRecord = (row: Row): AuditRecord => {
  const text = (key: string) => (typeof row[key] === "string" ? (row[key] as string) : undefined)
  const parsed = (key: string) => (typeof row[key] === "string" ? JsonText.parse(row[key] as string) : undefined)
  const fields: Record<string, unknown> = {
    id: Number(row.id),
    time: Number(row.time),
    callId: String(row.call_id),
    server: String(row.server),
    tool: String(row.tool),
    outcome: String(row.outcome),
    durationMs: Number(row.duration_ms)
  }
  for (const [key, column] of [["sent", "sent"], ["rewritten", "rewritten"]] as const) {
    if (row[column] !== null && row[column] !== undefined) fields[key] = Number(row[column]) === 1
  }
  const optional = {
    principal: text("principal"),
    digest: text("digest"),
    decision: text("decision"),
    rule: text("rule"),
    approval: text("approval"),
    error: text("error"),
    instance: text("instance"),
    toolUseId: text("tool_use_id"),
    sessionId: text("session_id"),
    event: text("event"),
    claudeDecision: text("claude_decision"),
    configHash: text("config_hash"),
    client: text("client"),
    authForm: text("auth_form"),
    authGrant: text("auth_grant"),
    receipt: typeof row.receipt === "string" ? decodeReceipt(parsed("receipt")) : undefined,
    args: parsed("args"),
    result: parsed("result")
  }
  for (const [key, value] of Object.entries(optional)) if (value !== undefined) fields[key] = value
  return new AuditRecord(fields as ConstructorParameters<typeof AuditRecord>[0])
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** Grouped rows as buckets, ordered by start, server, tool (in code, so no collation differs). */
export const toBuckets = (rows: ReadonlyArray<Row>): ReadonlyArray<AuditBucket> =>
  rows
    .map((row): AuditBucket => ({
      server: String(row.server),
      tool: String(row.tool),
      start: Number(row.start),
      calls: Number(row.calls),
      denied: Number(row.denied)
    }))
    .sort((a, b) => a.start - b.start || compare(a.server, b.server) || compare(a.tool, b.tool))
