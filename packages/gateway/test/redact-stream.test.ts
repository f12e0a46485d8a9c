/**
 * The streaming redactor (RedactStream.ts) and the `interlock redact` filter as a process: a
 * secret split across chunks anywhere is still redacted; memory stays bounded; a config that does
 * not load prints nothing of stdin, one line on stderr, and exits non-zero.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { spawnSync } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { compileRedactions, type Redaction, redactText } from "../src/governance/Redactor.ts"
import { streamRedactor } from "../src/governance/RedactStream.ts"
import { INTERLOCK } from "./claude-code/harness.ts"

const redactions = compileRedactions([{ pattern: "s3cr3t-[0-9]{6}" }, {
  detectors: ["github-token"]
}]) as ReadonlyArray<Redaction>
const SECRETS = ["s3cr3t-123456", `ghp_${"a1B2".repeat(9)}`]

/** Streams `text` in pieces cut at `cuts` (positions, any order) through a redactor with `window`. */
const streamed = (text: string, cuts: ReadonlyArray<number>, window: number) => {
  const redactor = streamRedactor(redactions, window)
  const at = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b)
  let out = ""
  let from = 0
  for (const cut of [...at, text.length]) {
    out += redactor.push(text.slice(from, cut))
    from = cut
  }
  return out + redactor.end()
}

const Filler = Schema.String.pipe(Schema.check(Schema.isMaxLength(40)))
const Parts = Schema.Array(Schema.Struct({ filler: Filler, secret: Schema.Literals([0, 1, 2]) }))
const Cuts = Schema.Array(Schema.Int.pipe(Schema.check(Schema.isBetween({ minimum: 0, maximum: 10_000 }))))

describe("the streaming redactor", () => {
  it.effect.prop(
    "any chunking gives what redacting the whole text gives, and no secret survives",
    [Parts, Cuts],
    ([parts, cuts]) =>
      Effect.sync(() => {
        const text = parts.map((part) => `${part.filler} ${part.secret === 2 ? "" : SECRETS[part.secret]} `).join("")
        const out = streamed(text, cuts, 48)
        assert.strictEqual(out, redactText(text, redactions))
        for (const secret of SECRETS) assert.notInclude(out, secret)
      }),
    { arbitrary: { runs: 200 } }
  )

  it("holds at most a few windows: a long stream is written as it comes", () => {
    const redactor = streamRedactor(redactions, 1024)
    let written = 0
    for (let i = 0; i < 1000; i++) {
      written += redactor.push(`line ${i} s3cr3t-${String(i).padStart(6, "0")}\n`.repeat(10)).length
    }
    const total = written + redactor.end().length
    assert.isAbove(written, total - 3 * 1024)
  })

  it("a match longer than four windows is cut, so memory stays bounded", () => {
    const long = compileRedactions([{ pattern: "x+" }]) as ReadonlyArray<Redaction>
    const redactor = streamRedactor(long, 16)
    let written = ""
    for (let i = 0; i < 20; i++) written += redactor.push("x".repeat(10))
    assert.isAbove(written.length, 0)
    assert.notInclude(written + redactor.end(), "x")
  })
})

describe("interlock redact (the process)", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "interlock-redact-"))
  const config = path.join(dir, "interlock.config.json")
  writeFileSync(
    config,
    JSON.stringify({
      servers: {},
      redact: [{ match: "claude/Bash", pattern: "s3cr3t-[0-9]{6}" }, { match: "claude/Read", pattern: "clean" }]
    })
  )
  const filter = (args: ReadonlyArray<string>, input: string) =>
    spawnSync(INTERLOCK[0]!, [...INTERLOCK.slice(1), "redact", ...args], { input, encoding: "utf8", timeout: 30_000 })

  it("redacts stdin to stdout with the tool's redactions only, in either flag order", () => {
    const input = `${"clean line\n".repeat(20_000)}key=s3cr3t-123456\n`
    const out = filter(["--config", config, "--tool", "claude/Bash"], input)
    assert.strictEqual(out.status, 0, out.stderr)
    assert.strictEqual(out.stdout, input.replace("s3cr3t-123456", "[REDACTED]"))
    const swapped = filter(["--tool", "claude/Bash", "-c", config], "s3cr3t-000000")
    assert.strictEqual(swapped.stdout, "[REDACTED]")
  })

  it("fails closed: a config that does not load or a bad --tool prints nothing of stdin and exits 2", () => {
    writeFileSync(path.join(dir, "bad.json"), "{ not json")
    for (
      const args of [["--config", path.join(dir, "bad.json"), "--tool", "claude/Bash"], [
        "--config",
        path.join(dir, "missing.json"),
        "--tool",
        "claude/Bash"
      ], ["--config", config, "--tool", "Bash"]]
    ) {
      const out = filter(args, "s3cr3t-123456 and more")
      assert.strictEqual(out.status, 2, args.join(" "))
      assert.strictEqual(out.stdout, "")
      assert.notInclude(out.stderr, "s3cr3t")
      assert.strictEqual(out.stderr.trim().split("\n").length, 1, out.stderr)
      assert.match(out.stderr, /^interlock redact: .*no output is shown\n$/)
    }
  })
})
