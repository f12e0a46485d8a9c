/**
 * The Bash rewrite (ClaudeBashGuard.ts): for any command, the rewritten command run by sh (dash)
 * or bash with `cat` as the filter does exactly what the original does (output, exit status,
 * final working directory); a failing filter shows nothing; the rewrite is skipped when no
 * redaction applies to claude/Bash and is not applied twice.
 */
import { assert, describe, it } from "@effect/vitest"
import { ToolCall } from "@interlock/core"
import { Effect, Schema } from "effect"
import { spawnSync } from "node:child_process"
import { bashRewrite, REWRITE_MARK, shellQuote, throughFilter } from "../src/ClaudeBashGuard.ts"
import { compileRedactions, type Redaction } from "../src/Redactor.ts"

/** Runs `command` as Claude Code does (eval in a fresh shell), then prints its status and where it ended. */
const run = (shell: string, command: string) => {
  const out = spawnSync(shell, ["-c", `exec 2>&1; eval "$1"; echo "[status=$? pwd=$(pwd)]"`, shell, command], { encoding: "utf8", cwd: "/" })
  return { stdout: out.stdout, status: out.status }
}

// Text without NUL (no argv holds one), and without the heredoc's end line.
const Text = Schema.String.pipe(Schema.check(Schema.makeFilter((text: string) => !text.includes("\0") && !/(^|\n)END(\n|$)/.test(text))))
const Step = Schema.Union([
  Schema.Struct({ kind: Schema.Literals(["printf", "stderr", "heredoc", "comment", "subst"]), text: Text }),
  Schema.Struct({ kind: Schema.Literals(["cd", "status", "exit", "raw"]), n: Schema.Int.pipe(Schema.check(Schema.isBetween({ minimum: 0, maximum: 4 }))) })
])
const Join = Schema.Literals(["; ", "\n", " && ", " || "])

const RAW = [`echo "a'b" 'c"d' \\$HOME \`echo x\``, "printf '%s|' a\\ b \"c  d\"; echo", "for i in 1 2; do echo $i; done", "f() { echo in-f; return 3; }; f", "sleep 0 & wait"]
const DIRS = ["/tmp", "/", "/usr", "..", "/etc"]

const render = (step: typeof Step.Type): string => {
  switch (step.kind) {
    case "printf":
      return `printf '%s\\n' ${shellQuote(step.text)}`
    case "stderr":
      return `printf '%s' ${shellQuote(step.text)} >&2`
    case "heredoc":
      return `cat <<'END'\n${step.text}\nEND\n`
    case "comment":
      return `true # ${step.text.replaceAll("\n", " ")}\n`
    case "subst":
      return `x=$(printf '%s' ${shellQuote(step.text)}); echo "\${#x}"`
    case "cd":
      return `cd ${DIRS[step.n]}`
    case "status":
      return `(exit ${step.n})`
    case "exit":
      return `exit ${step.n}`
    case "raw":
      return RAW[step.n]!
  }
}

const commandOf = (steps: ReadonlyArray<typeof Step.Type>, joins: ReadonlyArray<typeof Join.Type>): string =>
  steps.map((step, i) => `${render(step)}${i < steps.length - 1 ? (step.kind === "heredoc" || step.kind === "comment" ? "" : joins[i % Math.max(joins.length, 1)] ?? "; ") : ""}`).join("")

const Steps = Schema.Array(Step).pipe(Schema.check(Schema.isMaxLength(6)))
const Joins = Schema.Array(Join).pipe(Schema.check(Schema.isMinLength(1), Schema.isMaxLength(3)))

describe("the Bash rewrite", () => {
  for (const shell of ["sh", "bash"]) {
    it.effect.prop(`${shell}: the rewritten command does exactly what the original does`, [Steps, Joins], ([steps, joins]) =>
      Effect.sync(() => {
        const command = commandOf(steps, joins)
        assert.deepStrictEqual(run(shell, throughFilter(command, "cat")), run(shell, command), command)
      }), { timeout: 60_000, arbitrary: { runs: 40 } })
  }

  it("keeps the status of a failing command, exit and cd, on fixed cases", () => {
    for (const command of ["false", "exit 7", "cd /tmp; false", "echo 'it''s'; (exit 5)", "set -e; false; echo not-here", "", "exec 3>&1; echo via-fd-3 >&3", "cat <<'X'\nno newline at the end\nX"]) {
      assert.deepStrictEqual(run("sh", throughFilter(command, "cat")), run("sh", command), command)
    }
    assert.strictEqual(run("bash", throughFilter("cd /tmp && ls /nonexistent-dir", "cat")).stdout.split("\n").at(-2), "[status=2 pwd=/tmp]")
  })

  it("a filter that fails shows none of the output, and its status stands", () => {
    const out = run("sh", throughFilter("echo the-secret; exit 0", "sh -c 'cat >/dev/null; exit 2'"))
    assert.notInclude(out.stdout, "the-secret")
    assert.strictEqual(out.status, 2)
    const missing = run("sh", throughFilter("echo the-secret", "/nonexistent/interlock redact"))
    assert.notInclude(missing.stdout, "the-secret")
    assert.strictEqual(missing.status, 127)
  })

  it("rewrites Bash only when a redaction applies to claude/Bash, and only once", () => {
    const redactions = compileRedactions([{ match: "claude/Bash", pattern: "s3cr3t" }]) as ReadonlyArray<Redaction>
    const call = (serverId: string, name: string, command: string) => new ToolCall({ serverId, name, args: { command, description: "d" }, callId: "c" })
    assert.isUndefined(bashRewrite(compileRedactions([{ match: "claude/Read", pattern: "x" }]) as ReadonlyArray<Redaction>, "cat"))
    const rewrite = bashRewrite(redactions, "cat")!
    const args = rewrite(call("claude", "Bash", "cat secret.env"))!
    assert.strictEqual(args.description, "d")
    assert.isTrue((args.command as string).startsWith(REWRITE_MARK))
    assert.isUndefined(rewrite(call("claude", "Bash", args.command as string)))
    assert.isUndefined(rewrite(call("interlock", "Bash", "cat x")))
  })
})
