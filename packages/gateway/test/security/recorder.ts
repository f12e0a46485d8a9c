/** The recording-server fixture in a fresh file: a stdio server config, and what it has received (one JSON line a call). */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { NODE } from "../e2e.ts"

/** A stdio server that records the calls it receives in a fresh file. */
export const recorder = () => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "interlock-recorder-")), "calls.jsonl")
  writeFileSync(file, "")
  return {
    server: { command: NODE, args: [path.join(import.meta.dirname, "recording-server.ts")], env: { RECORD_FILE: file } },
    received: () => readFileSync(file, "utf8")
  }
}
