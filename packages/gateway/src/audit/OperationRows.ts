/**
 * The audit rows of operations decided without a call of their own (a subscription, a completion):
 * their `tool` is the method's name. Replay does not re-decide them as tool calls.
 */

/** The methods whose rows record a decision alone. */
export const DECIDED_OPERATIONS = ["resources/subscribe", "completion/complete"] as const

/** One of {@link DECIDED_OPERATIONS}. */
export type DecidedOperation = typeof DECIDED_OPERATIONS[number]

const NAMES: ReadonlySet<string> = new Set(DECIDED_OPERATIONS)

/** Whether a row's `tool` names a decided operation rather than a tool. */
export const isOperationRow = (row: { readonly tool: string }): boolean => NAMES.has(row.tool)
