/**
 * The two chains both adapters run the same way around a model call, over their framework's own request: beforeModel
 * (a Deny or a failing hook refuses the call) and afterModel (observe only). The framework says, through a
 * {@link RequestView}, where its messages and tools are and what a message is.
 */
import { hookFailed, ModelDenied } from "./ModelErrors.ts"
import { type Facts, type ModelHooks, runChain, STOP } from "./ModelHooks.ts"

/** How beforeModel reads and rewrites one framework's model request `S`. */
export interface RequestView<S> {
  readonly messages: (request: S) => unknown
  readonly tools: (request: S) => ReadonlyArray<string>
  readonly isMessage: (value: unknown) => boolean
  /** The request with new messages (when given) and only the tools named in `keep` (when given). */
  readonly rewrite: (
    request: S,
    messages: ReadonlyArray<unknown> | undefined,
    keep: ReadonlyArray<string> | undefined
  ) => S
}

/** The request as beforeModel leaves it; rejects with ModelDenied on a Deny and ModelHookFailed on a failing hook. */
export const beforeModel = async <S>(
  hooks: ModelHooks,
  request: S,
  model: string,
  view: RequestView<S>
): Promise<S> => {
  if (hooks.beforeModel.length === 0) return request
  const end = await runChain(hooks, "beforeModel", {
    input: (state) => ({ messages: view.messages(state), tools: view.tools(state), model }),
    facts: (state): Facts => ({ tools: view.tools(state), final: false, isMessage: view.isMessage }),
    apply: (state, verdict) => {
      if (verdict._tag === "Rewrite") return view.rewrite(state, verdict.messages, verdict.tools)
      return verdict._tag === "Continue" ? state : STOP
    }
  }, request)
  if (end._tag === "Failed") throw hookFailed("beforeModel", end)
  if (end._tag === "Stopped") {
    throw new ModelDenied({ hookId: end.hookId, reason: end.verdict._tag === "Deny" ? end.verdict.reason : "" })
  }
  return end.state
}

const OBSERVED: Facts = { tools: [], final: true, isMessage: () => false }

/** Runs the afterModel hooks on `input`; they only observe, and their failures are ignored. */
export const afterModel = async (hooks: ModelHooks, input: unknown): Promise<void> => {
  if (hooks.afterModel.length === 0) return
  await runChain(hooks, "afterModel", { input: () => input, facts: () => OBSERVED, apply: (state) => state }, input)
}
