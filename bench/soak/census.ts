/**
 * A heap snapshot's objects counted by constructor (count and self size), and the difference of
 * two such counts: what the soak suite prints when it is given `--snapshots=DIR`.
 */
import { readFileSync } from "node:fs"

/** Objects of one constructor (or one kind of V8 node) in a snapshot. */
export interface CensusRow {
  readonly count: number
  readonly bytes: number
}

interface Snapshot {
  readonly snapshot: { readonly meta: { readonly node_fields: Array<string>; readonly node_types: [Array<string>] } }
  readonly nodes: Array<number>
  readonly strings: Array<string>
}

/** Counts the nodes of a `.heapsnapshot` file: objects, native objects and closures by name, the rest by V8 type. */
export const census = (file: string): Map<string, CensusRow> => {
  const snapshot = JSON.parse(readFileSync(file, "utf8")) as Snapshot
  const fields = snapshot.snapshot.meta.node_fields
  const types = snapshot.snapshot.meta.node_types[0]
  const [typeAt, nameAt, sizeAt] = ["type", "name", "self_size"].map((field) => fields.indexOf(field))
  const rows = new Map<string, { count: number; bytes: number }>()
  for (let i = 0; i < snapshot.nodes.length; i += fields.length) {
    const type = types[snapshot.nodes[i + typeAt]]
    const key = type === "object" || type === "native" || type === "closure"
      ? `${type === "object" ? "" : `(${type}) `}${snapshot.strings[snapshot.nodes[i + nameAt]]}`
      : `(${type})`
    const row = rows.get(key) ?? { count: 0, bytes: 0 }
    row.count++
    row.bytes += snapshot.nodes[i + sizeAt]
    rows.set(key, row)
  }
  return rows
}

/** One constructor's change between two censuses. */
export interface CensusChange {
  readonly name: string
  readonly count: number
  readonly bytes: number
}

/** What grew (or shrank) from `before` to `after`, the largest change in bytes first. */
export const censusChanges = (
  before: ReadonlyMap<string, CensusRow>,
  after: ReadonlyMap<string, CensusRow>
): Array<CensusChange> =>
  [...new Set([...before.keys(), ...after.keys()])]
    .map((name) => ({
      name,
      count: (after.get(name)?.count ?? 0) - (before.get(name)?.count ?? 0),
      bytes: (after.get(name)?.bytes ?? 0) - (before.get(name)?.bytes ?? 0)
    }))
    .filter((change) => change.count !== 0 || change.bytes !== 0)
    .sort((a, b) => Math.abs(b.bytes) - Math.abs(a.bytes))
