#!/usr/bin/env node
/**
 * Regenerates the conformance table in packages/gateway/README.md: runs the installed suite's
 * server requirement sets against each server of the matrix, directly and through a gateway on
 * each route (test/conformance-matrix.ts), and writes one row per cell between the README's
 * markers. conformance-requirements.ts checks that the README's rows are the ones it measures.
 *
 *   node --conditions=@interlock/source packages/gateway/scripts/conformance-table.ts
 */
import { Effect } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { runServer, SERVERS, TABLE_HEAD, TABLE_MARKERS, tableRow } from "../test/conformance-matrix.ts"

const README = path.join(import.meta.dirname, "..", "README.md")

const rows = await Effect.runPromise(Effect.scoped(Effect.forEach(SERVERS, runServer)))
const table = [...TABLE_HEAD, ...rows.flat().map(tableRow)].join("\n")
const text = readFileSync(README, "utf8")
const start = text.indexOf(TABLE_MARKERS.start)
const end = text.indexOf(TABLE_MARKERS.end)
if (start < 0 || end < start) {
  throw new Error(`README.md has no ${TABLE_MARKERS.start} ... ${TABLE_MARKERS.end} section`)
}
writeFileSync(README, `${text.slice(0, start + TABLE_MARKERS.start.length)}\n${table}\n${text.slice(end)}`)
process.stdout.write(`${table}\n`)
