/**
 * A stdio server (recording-server.ts) that records the calls it receives in a fresh file, so that a test can prove a
 * call never reached it.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { NODE } from "../e2e.ts"

/** A fresh recording server: its stdio config, and what it has received so far (one JSON line per call). */
export const recorder = () => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "interlock-recorder-")), "calls.jsonl")
  writeFileSync(file, "")
  return {
    server: {
      command: NODE,
      args: [path.join(import.meta.dirname, "recording-server.ts")],
      env: { RECORD_FILE: file }
    },
    received: () => readFileSync(file, "utf8")
  }
}
