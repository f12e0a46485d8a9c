/**
 * The framework approvals a tool set has let through: each approval (by its id) lets one call through, so that an
 * answer sent again, or a call id reused, is refused. The most recent ones are kept.
 */

/** The most approvals kept. */
const MAX_SPENT = 10_000

/** A set of spent approvals: `spend(id)` is true the first time only. */
export const makeSpentApprovals = () => {
  const spent = new Set<string>()
  return {
    spend: (id: string): boolean => {
      if (spent.has(id)) return false
      spent.add(id)
      const oldest = spent.values().next()
      if (spent.size > MAX_SPENT && oldest.done !== true) spent.delete(oldest.value)
      return true
    }
  }
}
