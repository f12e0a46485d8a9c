/**
 * Who may see and answer what in the web console. An approver (named in `approvals.approvers`, by
 * name or `role:NAME`, or the holder of `listen.consoleToken`) sees every call and pending
 * approval and may answer any pending call but its own; any other principal is a caller and sees
 * only its own. A loopback gateway with no token at all has one local user, who is an approver.
 */
import { Principal } from "@interlock/core"
import { Redacted } from "effect"
import { timingSafeEqual } from "node:crypto"
import type { Plan } from "../config/Plan.ts"
import { CONSOLE_TOKEN_HOLDER, LOCAL_USER } from "../config/PrincipalNames.ts"
import type { GuardOptions } from "../front/http/HttpGuard.ts"

// The console token's principal. Recognised by identity, so no configured principal can pose as it.
const CONSOLE_PRINCIPAL = new Principal({ id: CONSOLE_TOKEN_HOLDER })

/** Who is looking at the console: an approver sees and answers everything, a caller its own calls only. */
export interface ConsoleViewer {
  readonly role: "approver" | "caller"
  readonly id: string
}

/** Whether a principal is one of the configured approvers (by name, or by `role:NAME`). */
export const isApprover = (approvers: ReadonlyArray<string>, principal: Principal): boolean =>
  approvers.some((approver) =>
    approver.startsWith("role:") ? (principal.roles ?? []).includes(approver.slice(5)) : approver === principal.id
  )

/** Whether the gateway has no token at all (loopback only): then its one local user runs the console. */
export const isSingleUser = (plan: Plan): boolean =>
  plan.listen.principals.size === 0 && plan.listen.consoleToken === undefined && plan.listen.oauth === undefined

/** The viewer for a console request's principal; undefined when it may not see the console at all. */
export const viewerFor = (plan: Plan, principal: Principal | undefined): ConsoleViewer | undefined => {
  if (principal === undefined) return isSingleUser(plan) ? { role: "approver", id: LOCAL_USER } : undefined
  if (principal === CONSOLE_PRINCIPAL || isApprover(plan.approvals.approvers, principal)) {
    return { role: "approver", id: principal.id }
  }
  return { role: "caller", id: principal.id }
}

/** Whether a viewer may see a call or a pending approval made by `principal`. */
export const sees = (viewer: ConsoleViewer, principal: string | undefined): boolean =>
  viewer.role === "approver" || principal === viewer.id

/** Why a viewer may not give this answer to a call made by `principal`; undefined when it may. */
export const answerRefusal = (
  viewer: ConsoleViewer,
  principal: string | undefined,
  decision: "allow" | "deny"
): string | undefined =>
  viewer.role !== "approver"
    ? "only an approver may answer a pending approval"
    : decision === "allow" && principal === viewer.id
    ? "a principal cannot approve its own call"
    : undefined

const sameToken = (given: string, expected: Buffer): boolean => {
  const bytes = Buffer.from(given, "utf8")
  return bytes.length === expected.length && timingSafeEqual(bytes, expected)
}

/** The guard's settings for console routes: the `/mcp` settings, plus the console token when one is set. */
export const consoleGuardOptions = (plan: Plan, mcp: GuardOptions): GuardOptions => {
  const secret = plan.listen.consoleToken
  if (secret === undefined) return mcp
  const expected = Buffer.from(Redacted.value(secret), "utf8")
  return {
    ...mcp,
    requireToken: true,
    principalFor: (token) => (sameToken(token, expected) ? CONSOLE_PRINCIPAL : mcp.principalFor(token))
  }
}
