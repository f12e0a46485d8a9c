/** The policy's answers: Allow, Deny or Ask, each naming the deciding rule when a rule decided. */

/** The policy's answer. `rule` names the deciding rule, if a rule decided. */
export type PolicyDecision =
  | { readonly _tag: "Allow"; readonly rule?: string | undefined }
  | { readonly _tag: "Deny"; readonly reason: string; readonly rule?: string | undefined }
  | { readonly _tag: "Ask"; readonly reason: string; readonly rule?: string | undefined }

/** Allow, optionally naming the rule. */
export const allow = (rule?: string): PolicyDecision => ({ _tag: "Allow", rule })
/** Deny with a reason. */
export const deny = (reason: string, rule?: string): PolicyDecision => ({ _tag: "Deny", reason, rule })
/** Ask a human (the Approvals service). */
export const ask = (reason: string, rule?: string): PolicyDecision => ({ _tag: "Ask", reason, rule })
