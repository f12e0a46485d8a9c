/**
 * `npm run bench -- json`: reading a host's tools/call body, JSON.parse (the baseline) against
 * JsonText.parse, which every front and the Claude Code bridge read JSON with. A body whose text
 * has a backslash (here an escaped newline in a value) costs JsonText a walk over its keys; one
 * with a key that holds a backslash is read again by the strict parser, priced last.
 */
import { JsonText } from "@interlock/core"
import { parseStrict } from "../packages/core/src/internal/StrictJsonParser.ts"
import { measure, report } from "./harness.ts"

/** A tools/call body of about 1.5 KB: a file write with nested options. */
const body = (content: string, extraKey: string) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: 42,
    method: "tools/call",
    params: {
      name: "files__write_file",
      arguments: {
        path: "/repo/src/index.ts",
        content,
        options: { mode: "0644", encoding: "utf8", backup: false, [extraKey]: true },
        tags: ["a", "b", "c"]
      },
      _meta: { progressToken: "p-42" }
    }
  })

const LINES = Array.from({ length: 30 }, (_, i) => `export const value${i} = ${i} // line ${i}`)
const PLAIN = body(LINES.join(" "), "atomic")
const ESCAPED = body(LINES.join("\n"), "atomic")
const BACKSLASH_KEY = body(LINES.join("\n"), "dir\\name")

const sync = (name: string, run: () => unknown) => ({ name, op: () => Promise.resolve(run()), iterations: 20_000 })

export default async function run(): Promise<void> {
  report(
    await measure("json", sync("JSON.parse (escaped body)", () => JSON.parse(ESCAPED)), [
      sync("JsonText.parse (no backslash)", () => JsonText.parse(PLAIN)),
      sync("JsonText.parse (escaped body)", () => JsonText.parse(ESCAPED)),
      sync("JsonText.parse (a key with a backslash)", () => JsonText.parse(BACKSLASH_KEY)),
      sync("strict parser alone (escaped body)", () => parseStrict(ESCAPED))
    ])
  )
}
