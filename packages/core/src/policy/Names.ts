/**
 * Loose names: the one normalization through which rules, hooks, tools filters, redactions and Cedar compare server,
 * tool, prompt and resource names (NFKC, case folding, ignorables removed, `-._` equivalent). Restrictions also
 * compare confusable skeletons (Confusables.ts); grants do not.
 */
import { makeBoundedCache } from "../internal/BoundedCache.ts"
import { skeleton } from "../internal/Confusables.ts"

const SEPARATORS = /[-._]/g
// Linear: one code point class, no nesting.
const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu

/** The cache's bound: 4 MiB (estimated; keys, values and a per-entry overhead). */
export const NAME_CACHE_BYTES = 4 * 1024 * 1024

/** Names longer than this (UTF-16 code units) are folded every time, never cached. */
export const NAME_CACHE_MAX_LENGTH = 256

/** A name's forms; each is the same string as the one before it when nothing changes. */
export interface NameForms {
  /** Loose comparison form: NFKC, case-folded, ignorables removed, trimmed, separators as `_`. */
  readonly canonical: string
  /** The canonical form of the name's skeleton, taken before case folding (so `МKDIR` -> `mkdir`). */
  readonly skeleton: string
  /** NFKC, ignorables removed, trimmed; case and separators kept. Deny regexes also see it. */
  readonly loose: string
  /** The loose form's skeleton (case and separators kept). Deny regexes also see it. */
  readonly looseSkeleton: string
}

const cache = makeBoundedCache<NameForms>({
  maxBytes: NAME_CACHE_BYTES,
  maxKeyLength: NAME_CACHE_MAX_LENGTH,
  costOf: (forms) =>
    48 + 2 * forms.canonical.length + (forms.skeleton === forms.canonical ? 0 : 2 * forms.skeleton.length) +
    (forms.loose === forms.canonical ? 0 : 2 * forms.loose.length) +
    (forms.looseSkeleton === forms.loose ? 0 : 2 * forms.looseSkeleton.length)
})

const foldOnce = (name: string): string =>
  name.normalize("NFKC").toUpperCase().toLowerCase().normalize("NFKC").replace(IGNORABLE, "").trim()
    .replace(SEPARATORS, "_")

/**
 * NFKC, case folding (`toUpperCase` then `toLowerCase`, which agrees with full folding where lowercasing does not:
 * `ß` -> `ss`, `ς` -> `σ`), NFKC again, ignorables and outer white space removed, `-._` as `_`; until nothing changes.
 */
const fold = (name: string): string => {
  let current = name
  // A few characters need a second pass to reach a fixed point; four is far more than any needs.
  for (let i = 0; i < 4; i++) {
    const next = foldOnce(current)
    if (next === current) return next
    current = next
  }
  return current
}

const looseOf = (name: string): string => name.normalize("NFKC").replace(IGNORABLE, "").normalize("NFKC").trim()

const formsOf = (name: string): NameForms => {
  const canonical = fold(name)
  const loose = looseOf(name)
  const looseSkeleton = skeleton(loose)
  // Skeleton before folding (uppercase lookalikes), then after it (what folding turned into one).
  const folded = skeleton(fold(looseSkeleton))
  return {
    canonical,
    skeleton: folded === canonical ? canonical : folded,
    loose: loose === canonical ? canonical : loose,
    looseSkeleton: looseSkeleton === loose ? loose : looseSkeleton
  }
}

/** A name's canonical form and confusable skeleton, cached. */
export const nameForms = (name: string): NameForms => cache.get(name) ?? cache.set(name, formsOf(name))

/** The canonical (loose) form of a name. Idempotent: `canonicalName(canonicalName(x)) === canonicalName(x)`. */
export const canonicalName = (name: string): string => nameForms(name).canonical

/**
 * The canonical form of a name's confusable skeleton: what restrictions also compare the name as.
 * It is `canonicalName(name)` when the name has no lookalike letters.
 */
export const skeletonName = (name: string): string => nameForms(name).skeleton

/** Whether two names are the same under loose comparison. */
export const sameName = (a: string, b: string): boolean => a === b || canonicalName(a) === canonicalName(b)

/** The name cache's estimated size in bytes (internal, for tests). */
export const nameCacheBytes = (): number => cache.bytes()
