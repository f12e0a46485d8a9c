/**
 * An index over ordered policy rules, so a decision costs a few bucket look-ups instead of a scan while the first
 * rule in declaration order still wins. Rules are bucketed by what their matcher pins down (server and tool; tool
 * only; server with a glob or regex on the tool; the rest); a decision takes the first applicable rule of each
 * candidate bucket, stopping once past the best index found, and keeps the smallest.
 */
import type { Matcher } from "../policy/Matcher.ts"
import { nameForms } from "../policy/Names.ts"

/** What the index needs of a rule. */
export interface IndexedRule {
  readonly index: number
  readonly matcher: Matcher
}

/** The compiled index. */
export interface RuleIndex<Rule extends IndexedRule> {
  readonly exact: ReadonlyMap<string, ReadonlyArray<Rule>>
  readonly anyServer: ReadonlyMap<string, ReadonlyArray<Rule>>
  readonly byServer: ReadonlyMap<string, ReadonlyArray<Rule>>
  readonly rest: ReadonlyArray<Rule>
}

const push = <Rule>(map: Map<string, Array<Rule>>, key: string, rule: Rule) => {
  const bucket = map.get(key)
  if (bucket === undefined) map.set(key, [rule])
  else bucket.push(rule)
}

/** Buckets rules (given in declaration order) by what their matchers pin down. */
export const buildIndex = <Rule extends IndexedRule>(rules: ReadonlyArray<Rule>): RuleIndex<Rule> => {
  const exact = new Map<string, Array<Rule>>()
  const anyServer = new Map<string, Array<Rule>>()
  const byServer = new Map<string, Array<Rule>>()
  const rest: Array<Rule> = []
  for (const rule of rules) {
    const { level, nameKey, serverKey } = rule.matcher
    if (level === "global") rest.push(rule)
    else if (serverKey !== undefined && nameKey !== undefined) push(exact, `${serverKey}\u0000${nameKey}`, rule)
    else if (serverKey !== undefined) push(byServer, serverKey, rule)
    else if (nameKey !== undefined && rule.matcher.anyServer) push(anyServer, nameKey, rule)
    else rest.push(rule)
  }
  return { exact, anyServer, byServer, rest }
}

const EMPTY: ReadonlyArray<never> = []

/**
 * The first rule, in declaration order, whose matcher selects the call and for which `applies`
 * holds. `applies` runs only on rules whose matcher matched, in index order within a bucket.
 * When the names have confusable skeletons (Confusables.ts) or a loose form other than the name
 * (Names.ts), rules for which `bySkeleton` holds (deny and ask rules) are also matched against
 * those (`Matcher.restrictTest`); allow rules never are.
 */
export const firstMatch = <Rule extends IndexedRule>(
  index: RuleIndex<Rule>,
  serverId: string,
  name: string,
  applies: (rule: Rule) => boolean,
  bySkeleton?: (rule: Rule) => boolean
): Rule | undefined => {
  const server = nameForms(serverId)
  const tool = nameForms(name)
  const best = scanIndex(
    index,
    server.canonical,
    tool.canonical,
    (rule) => rule.matcher.test(serverId, name),
    applies,
    undefined
  )
  const plain = server.skeleton === server.canonical && tool.skeleton === tool.canonical && tool.loose === name &&
    tool.looseSkeleton === name
  if (bySkeleton === undefined || plain) return best
  // Deny/ask rules also match on skeletons and (regexes) loose forms: the skeleton buckets, then
  // the canonical server's bucket when it differs (a regex rule there sees the loose forms).
  const restricted = (rule: Rule) => bySkeleton(rule) && applies(rule)
  const restrictTest = (rule: Rule) => rule.matcher.restrictTest(serverId, name)
  const bySkeletons = scanIndex(index, server.skeleton, tool.skeleton, restrictTest, restricted, best)
  if (server.skeleton === server.canonical) return bySkeletons
  let found = bySkeletons
  for (const rule of index.byServer.get(server.canonical) ?? EMPTY) {
    if (found !== undefined && rule.index >= found.index) break
    if (restrictTest(rule) && restricted(rule)) {
      found = rule
      break
    }
  }
  return found
}

/** Scans the candidate buckets of (server, tool); `found` is the best rule so far, if any. */
const scanIndex = <Rule extends IndexedRule>(
  index: RuleIndex<Rule>,
  server: string,
  tool: string,
  test: (rule: Rule) => boolean,
  applies: (rule: Rule) => boolean,
  found: Rule | undefined
): Rule | undefined => {
  let best = found
  const scan = (bucket: ReadonlyArray<Rule>, needsTest: boolean) => {
    for (const rule of bucket) {
      if (best !== undefined && rule.index >= best.index) return
      if ((!needsTest || test(rule)) && applies(rule)) {
        best = rule
        return
      }
    }
  }
  scan(index.exact.get(`${server}\u0000${tool}`) ?? EMPTY, false)
  scan(index.anyServer.get(tool) ?? EMPTY, false)
  scan(index.byServer.get(server) ?? EMPTY, true)
  scan(index.rest, true)
  return best
}
