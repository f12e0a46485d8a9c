/**
 * What a verified access token says about its holder, read from its claims: the principal (the
 * configured claim, a non-empty string), its roles (an array of strings or a space-separated
 * string; `a.b` reads a nested claim) and its scopes (`scope`, RFC 9068, or `scp`). Pure rules: a
 * claim of the wrong shape is undefined, and the caller refuses the token.
 */

/** A token's claims, as decoded JSON. */
export type Claims = Readonly<Record<string, unknown>>

/** The value of claim `name`: the top-level key of that name, else the dotted path (`realm_access.roles`). */
export const claimAt = (claims: Claims, name: string): unknown => {
  if (Object.hasOwn(claims, name)) return claims[name]
  let node: unknown = claims
  for (const part of name.split(".")) {
    if (typeof node !== "object" || node === null || Array.isArray(node) || !Object.hasOwn(node, part)) return undefined
    node = (node as Record<string, unknown>)[part]
  }
  return node
}

const words = (text: string): ReadonlyArray<string> => text.split(" ").filter((word) => word !== "")

/** A list claim: an array of non-empty strings, or a space-separated string; undefined when it is neither. */
export const listClaim = (value: unknown): ReadonlyArray<string> | undefined => {
  if (typeof value === "string") return words(value)
  if (Array.isArray(value) && value.every((item) => typeof item === "string" && item !== "")) {
    return value as ReadonlyArray<string>
  }
  return undefined
}

/** The principal a token names: the claim's value, a non-empty string; undefined otherwise. */
export const principalOf = (claims: Claims, claim: string): string | undefined => {
  const value = claimAt(claims, claim)
  return typeof value === "string" && value.trim() !== "" ? value : undefined
}

/**
 * The roles a token gives: none when the claim is absent (or no roles claim is configured); undefined when it has the
 * wrong shape.
 */
export const rolesOf = (claims: Claims, claim: string | undefined): ReadonlyArray<string> | undefined => {
  if (claim === undefined) return []
  const value = claimAt(claims, claim)
  return value === undefined ? [] : listClaim(value)
}

/** The scopes a token grants (`scope`, else `scp`): none when absent; undefined when the claim has the wrong shape. */
export const scopesOf = (claims: Claims): ReadonlyArray<string> | undefined => {
  const value = claims.scope ?? claims.scp
  return value === undefined ? [] : listClaim(value)
}

/** The required scopes a token lacks. */
export const missingScopes = (granted: ReadonlyArray<string>, required: ReadonlyArray<string>): ReadonlyArray<string> =>
  required.filter((scope) => !granted.includes(scope))
