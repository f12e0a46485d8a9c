/** What one Interlock client holds while it runs: its hooks, services and settings. Internal. */
import type { ApprovalsShape } from "./Approvals.ts"
import type { HookEvent } from "./HookEvent.ts"
import type { ResolvedHook } from "./Hooks.ts"
import type { RunnerEnv } from "./HookRunner.ts"
import type { PolicyShape } from "./Policy.ts"
import type { ToolTransportShape } from "./ToolTransport.ts"

/** One client: the services and settings that every operation uses. */
export interface Client {
  readonly name: string
  readonly env: RunnerEnv
  /** The hooks of an event that select (serverId, name), in run order. */
  readonly select: (event: HookEvent, serverId: string, name: string) => ReadonlyArray<ResolvedHook>
  readonly byEvent: { readonly [E in HookEvent]: ReadonlyArray<ResolvedHook> }
  readonly policy: PolicyShape
  readonly approvals: ApprovalsShape
  readonly transport: ToolTransportShape
  /** Default deadline of a transport call, in ms. */
  readonly callTimeoutMs: number
  /** Deadline of a policy decision that does not answer at once, in ms. */
  readonly policyTimeoutMs: number
  /** Drop from listings the tools the policy would deny outright. */
  readonly hideDenied: boolean
  /** Deny calls to tools whose definition changed since it was pinned. */
  readonly pinTools: boolean
  /** The client's tools filter: false hides the tool (calls are Denied, listings drop it). */
  readonly exposed: (serverId: string, name: string) => boolean
}
