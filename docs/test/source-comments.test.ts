/**
 * Comments and lines the codebase keeps short (issue 22): every source file's header, in src/ and bin/, is at most 6
 * lines; no comment in them holds a benchmark figure or a dependency's version (figures live in bench/results and the
 * READMEs); no line is over the formatter's 120 columns but in the files listed with why. Comments are parsed.
 */
import { assert, describe, it } from "@effect/vitest"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import * as path from "node:path"
import { parseSync } from "rolldown/utils"
import { ROOT } from "./Workspace.ts"

/** The longest header a source file may have, in lines. */
const MAX_HEADER_LINES = 6

/**
 * The longest line a comment may be on, in characters: the formatter's line width, which it does not wrap comments to.
 */
const MAX_COMMENT_LINE = 120

/** Every TypeScript file of every package's src/ and every script of its bin/, relative to the root. */
const sources = (): ReadonlyArray<string> =>
  readdirSync(path.join(ROOT, "packages")).flatMap((name) =>
    ["src", "bin"].flatMap((folder) => {
      const dir = path.join(ROOT, "packages", name, folder)
      const entries = existsSync(dir) ? readdirSync(dir, { recursive: folder === "src", encoding: "utf8" }) : []
      return entries.filter((file) => /\.(?:ts|js)$/.test(file)).map((file) =>
        path.posix.join("packages", name, folder, file.split(path.sep).join("/"))
      )
    })
  )

/**
 * The files that may hold lines over {@link MAX_COMMENT_LINE} characters, and why: what is in them is another
 * language's text whose lines are its own, which the formatter does not break.
 */
const WIDE = new Map([
  ["packages/gateway/src/console/PageScript.ts", "the console's browser script, as the page gets it"],
  ["packages/gateway/src/console/ChartScript.ts", "the console's chart script, as the page gets it"],
  ["packages/gateway/src/console/ConsolePage.ts", "the console's HTML"],
  ["packages/gateway/src/console/PageStyles.ts", "the console's CSS"],
  ["packages/gateway/src/claude/ClaudeBashGuard.ts", "the shell wrapper a rewritten Bash command runs in"],
  ["packages/claude/test/bridge-process.test.ts", "command hooks' shell scripts, each answering one JSON line"],
  ["packages/claude/test/command-hook.test.ts", "a command hook's shell script answering one JSON line"],
  ["packages/claude/test/settings.test.ts", "a command hook's shell script answering one JSON line"],
  ["packages/gateway/test/claude-hook.test.ts", "a command hook's shell script answering one JSON line"]
])

/** Every TypeScript file of the tests, benches and scripts besides, relative to the root. */
const others = (): ReadonlyArray<string> => {
  const under = (dir: string): ReadonlyArray<string> =>
    existsSync(path.join(ROOT, dir))
      ? readdirSync(path.join(ROOT, dir), { recursive: true, encoding: "utf8" })
        .filter((file) => file.endsWith(".ts") && !file.split(path.sep).includes("node_modules"))
        .map((file) => path.posix.join(dir, file.split(path.sep).join("/")))
      : []
  const tests = readdirSync(path.join(ROOT, "packages")).flatMap((name) => under(`packages/${name}/test`))
  return [...tests, ...under("bench"), ...under("scripts"), ...under("docs/test"), ...under("examples")]
}

/** One comment: its text between the markers, and where it starts and ends in the file. */
interface Comment {
  readonly type: "Line" | "Block"
  readonly value: string
  readonly start: number
  readonly end: number
}

/** A file's text and its comments, the shebang aside. */
const read = (file: string): { readonly text: string; readonly comments: ReadonlyArray<Comment> } => {
  const text = readFileSync(path.join(ROOT, file), "utf8")
  const parsed = parseSync(file, text)
  assert.deepStrictEqual(parsed.errors.map((error) => error.message), [], `${file} parses`)
  return { text, comments: parsed.comments.filter((comment) => !text.startsWith("#!", comment.start)) }
}

/**
 * The length in lines of a file's header: its first comment when only white space precedes it, with the `//` lines that
 * run on from it.
 */
const headerLines = (text: string, comments: ReadonlyArray<Comment>): number => {
  const first = comments[0]
  const shebang = text.startsWith("#!") ? text.indexOf("\n") + 1 : 0
  if (first === undefined || text.slice(shebang, first.start).trim() !== "") return 0
  if (first.type === "Block") return first.value.split("\n").length
  let lines = 1
  for (let i = 1; i < comments.length; i++) {
    const next = comments[i]
    const gap = text.slice(comments[i - 1]?.end, next?.start)
    if (next?.type !== "Line" || !/^[ \t]*\n[ \t]*$/.test(gap)) break
    lines++
  }
  return lines
}

/**
 * What a comment may not hold. Each pattern starts at a boundary and has no nested or overlapping
 * quantifiers, so it runs in linear time.
 * Protocol and standard numbers are not versions: RFC 8693, 2025-11-25, HTTP/1.1, JSON-RPC 2.0,
 * OAuth 2.1, SHA-256, RFC 6749 section 2.3.1 all pass; so does a configured default ("default 5 s").
 */
const FORBIDDEN: ReadonlyArray<readonly [string, RegExp]> = [
  [
    "an approximate figure",
    /(?:~|≈|\babout |\baround |\broughly )\d[\d,.]*\s?(?:ns|µs|us|ms|s|B|KB|kB|MB|GB|bytes|x|×|%)(?!\w)/
  ],
  ["a fractional timing", /\b\d+\.\d+\s?(?:ns|µs|us|ms)(?!\w)/],
  ["a timing in µs or ns", /\d\s?(?:µs|ns)(?!\w)/],
  ["a speed-up", /\b\d+(?:\.\d+)?\s?[x×](?!\w)/],
  [
    "a throughput",
    /\b\d[\d,.]*k?\s?(?:ops|calls|requests|req|rows|events|messages)\s?(?:\/\s?s\b|per second|a second)/
  ],
  ["a relative figure", /\b\d+(?:\.\d+)?\s?% (?:faster|slower|less|more|fewer|lower|higher)\b/],
  ["a version", /(?<![\d.])(?<!section )(?<!§)\d+\.\d+\.\d+(?!\.?\d)/],
  ["a version range", /\b\d+\.x\b/],
  ["a package version", /\w@[~^]?\d/],
  [
    "a product's version",
    new RegExp(
      String.raw`\b(?:SDK|Node|Node\.js|TypeScript|Effect|Claude Code|Vitest|Biome|Postgres|SQLite|Chromium)` +
        String.raw`\s(?:[<>]=?\s)?v?\d+\.\d+`
    )
  ],
  ["a v-version", /\bv\d+\.\d+\b/]
]

const files = sources()
const parsed = new Map(files.map((file) => [file, read(file)]))

/** A file's header length in lines (0 for a file not read). */
const headerOf = (file: string): number => {
  const found = parsed.get(file)
  return found === undefined ? 0 : headerLines(found.text, found.comments)
}

/** What a file's comments hold that they may not, as `what: "match"`. */
const figuresOf = (file: string): ReadonlyArray<string> =>
  (parsed.get(file)?.comments ?? []).flatMap((comment) =>
    FORBIDDEN.flatMap(([what, pattern]) => {
      const match = pattern.exec(comment.value)
      return match === null ? [] : [`${what}: "${match[0]}"`]
    })
  )

/** The lines a file's comments are on that are longer than {@link MAX_COMMENT_LINE}, as `file:line`. */
const overlongOf = (file: string, found: { readonly text: string; readonly comments: ReadonlyArray<Comment> }) => {
  const { comments, text } = found
  const lineOf = (offset: number) => text.slice(0, offset).split("\n").length
  const lines = text.split("\n")
  return comments.flatMap((comment) => {
    const first = lineOf(comment.start)
    return lines.slice(first - 1, lineOf(comment.end))
      .flatMap((line, i) => ([...line].length > MAX_COMMENT_LINE ? [`${file}:${first + i}`] : []))
  })
}

describe("source comments", () => {
  it("reads the sources and scripts of every package", () => {
    assert.isAbove(files.length, 300)
    assert.include(files, "packages/gateway/bin/interlock.js")
    assert.include(files, "packages/core/src/internal/Trusted.ts")
    assert.isAbove(headerOf("packages/core/src/internal/Trusted.ts"), 1)
  })

  it(`every header is at most ${MAX_HEADER_LINES} lines`, () => {
    const long = files.filter((file) => headerOf(file) > MAX_HEADER_LINES)
      .map((file) => `${file}: ${headerOf(file)}`)
    assert.deepStrictEqual(long, [], `headers over ${MAX_HEADER_LINES} lines:\n${long.join("\n")}`)
  })

  it(`no comment is on a line over ${MAX_COMMENT_LINE} characters, in the sources, tests, benches or scripts`, () => {
    const checked = [...files, ...others()]
    assert.isAbove(checked.length, files.length + 300)
    const long = checked.flatMap((file) => overlongOf(file, parsed.get(file) ?? read(file)))
    assert.deepStrictEqual(long, [], `comment lines over ${MAX_COMMENT_LINE} characters:\n${long.join("\n")}`)
  })

  it(`no line is over ${MAX_COMMENT_LINE} characters, but in the files that say why; each of those has one`, () => {
    const checked = [...files, ...others()]
    const wide = (file: string) =>
      readFileSync(path.join(ROOT, file), "utf8").split("\n").flatMap((line, i) =>
        [...line].length > MAX_COMMENT_LINE ? [`${file}:${i + 1}`] : []
      )
    const long = checked.filter((file) => !WIDE.has(file)).flatMap(wide)
    assert.deepStrictEqual(long, [], `lines over ${MAX_COMMENT_LINE} characters:\n${long.join("\n")}`)
    const stale = [...WIDE.keys()].filter((file) => !checked.includes(file) || wide(file).length === 0)
    assert.deepStrictEqual(stale, [], "listed in WIDE with no line over the width")
  })

  it("no comment holds a benchmark figure or a version", () => {
    const found = files.flatMap((file) => figuresOf(file).map((figure) => `${file}: ${figure}`))
    assert.deepStrictEqual(found, [], `figures live in bench/results and the READMEs:\n${found.join("\n")}`)
  })

  it("the patterns catch figures and versions, and pass protocol and standard numbers", () => {
    const caught = (line: string) => FORBIDDEN.some(([, pattern]) => pattern.test(line))
    for (
      const bad of [
        "costs 0.3 ms a call",
        "about 11 µs a row",
        "57 µs",
        "(~5 ms)",
        "1.5x faster",
        "3× the calls",
        "50k calls/s",
        "10,000 requests per second",
        "20% faster",
        "SDK 2.0.1",
        "in SDK 1.x",
        "@modelcontextprotocol/sdk@2.6.0",
        "Node >= 22.3",
        "Claude Code 2.1.295 and later",
        "v1.2"
      ]
    ) assert.isTrue(caught(bad), bad)
    for (
      const fine of [
        "RFC 8693",
        "RFC 6749 section 2.3.1",
        "SEP-1763 §4.2.1",
        "the 2025-11-25 revision",
        "2026-07-28",
        "HTTP/1.1",
        "JSON-RPC 2.0",
        "OAuth 2.1",
        "SHA-256",
        "HMAC-SHA256",
        "default 5 s",
        "at most 100 ms",
        "http://127.0.0.1:4318",
        "-32021",
        "0x7f",
        "the official MCP SDK 2"
      ]
    ) assert.isFalse(caught(fine), fine)
  })
})
