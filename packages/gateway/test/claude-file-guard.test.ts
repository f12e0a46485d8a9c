/** The bridge's Read guard (a file that holds redacted text is denied before Claude Code reads it) and Grep guard. */
import { assert, describe, it } from "@effect/vitest"
import { HookContext, ToolCall } from "@interlock/core"
import { mkdtempSync, truncateSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { fileGuardHooks, grepGuard, MAX_CHECKED_BYTES, readGuard } from "../src/claude/ClaudeFileGuard.ts"
import { compileRedactions, type Redaction } from "../src/governance/Redactor.ts"

const dir = mkdtempSync(path.join(tmpdir(), "interlock-file-guard-"))
writeFileSync(path.join(dir, "secret.env"), "TOKEN=sk-live-abc123\n")
writeFileSync(path.join(dir, "clean.txt"), "nothing here\n")
writeFileSync(path.join(dir, "huge.bin"), "")
truncateSync(path.join(dir, "huge.bin"), MAX_CHECKED_BYTES + 1)

const redactions = compileRedactions([{ pattern: "sk-live-[a-z0-9]+" }]) as ReadonlyArray<Redaction>
const guard = (file_path: unknown) => {
  const call = new ToolCall({
    serverId: "claude",
    name: "Read",
    args: { file_path } as never,
    callId: "c",
    meta: undefined
  })
  const ctx = new HookContext({ client: "claude-code", serverId: "claude", assigns: { claude: { cwd: dir } } })
  return readGuard(redactions)(call, ctx) as Promise<{ readonly _tag: string; readonly reason?: string }>
}

describe("fileGuardHooks", () => {
  it("denies a Read whose file a redaction would change, relative paths against Claude Code's cwd", async () => {
    assert.strictEqual((await guard(path.join(dir, "secret.env")))._tag, "Deny")
    assert.strictEqual((await guard("secret.env"))._tag, "Deny")
  })

  it(
    "lets a clean file, a missing file, a directory and a bad argument through (Claude Code's " +
      "Read decides)",
    async () => {
      for (const target of ["clean.txt", "missing.txt", dir, 42]) {
        assert.strictEqual((await guard(target))._tag, "Continue", String(target))
      }
    }
  )

  it("denies a file too large to check", async () => {
    assert.include((await guard("huge.bin")).reason, "too large")
  })

  it("adds no hook when no redaction applies to claude/Read", () => {
    assert.deepStrictEqual(
      fileGuardHooks(compileRedactions([{ match: "fs/*", pattern: "x" }]) as ReadonlyArray<Redaction>),
      {}
    )
    assert.deepStrictEqual(fileGuardHooks([]), {})
    assert.lengthOf(fileGuardHooks(redactions).preToolCall ?? [], 2)
    assert.deepStrictEqual(
      (fileGuardHooks(compileRedactions([{ match: "claude/Grep", pattern: "x" }]) as ReadonlyArray<Redaction>)
        .preToolCall ?? []).map((hook) => (hook as { id?: string }).id),
      ["redact-grep"]
    )
  })

  it("denies a Grep that prints matching lines; paths and counts pass", () => {
    const grep = (args: { readonly output_mode?: string }) =>
      grepGuard(
        new ToolCall({
          serverId: "claude",
          name: "Grep",
          args: { pattern: "TOKEN", ...args },
          callId: "c",
          meta: undefined
        })
      )
    assert.strictEqual(grep({ output_mode: "content" })._tag, "Deny")
    for (const mode of [{}, { output_mode: "files_with_matches" }, { output_mode: "count" }]) {
      assert.strictEqual(grep(mode)._tag, "Continue")
    }
  })
})
