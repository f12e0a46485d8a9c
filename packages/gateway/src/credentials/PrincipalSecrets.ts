/**
 * Which `auth.perPrincipal` entry is a principal's: the entry naming it, else the first entry
 * naming a role it holds, in config order; none for a principal named by neither (refused).
 */
import type { Principal } from "@interlock/core"
import type { PrincipalSecretsPlan } from "../config/Plan.ts"

/** The entry of `principal` among `entries`, if one is its. */
export const secretsFor = (
  entries: ReadonlyArray<PrincipalSecretsPlan>,
  principal: Principal
): PrincipalSecretsPlan | undefined => {
  const own = entries.find((entry) => entry.principal === principal.id)
  if (own !== undefined) return own
  const roles = principal.roles ?? []
  return entries.find((entry) => entry.role !== undefined && roles.includes(entry.role))
}
