/**
 * The Bash rewrite (ClaudeBashGuard.ts): for any command, the rewritten command run by sh (dash)
 * or bash with `cat` as the filter does exactly what the original does (output, exit status,
 * final working directory); a failing filter shows nothing; the rewrite is skipped when no
 * redaction applies to claude/Bash; attacks on the rewrite get nothing past the filter.
 */
import { assert, describe, it } from "@effect/vitest"
import { ToolCall } from "@interlock/core"
import { Effect, Schema } from "effect"
import { spawnSync } from "node:child_process"
import { bashRewrite, REFUSAL, REWRITE_MARK, shellQuote, throughFilter } from "../src/claude/ClaudeBashGuard.ts"
import { compileRedactions, type Redaction } from "../src/governance/Redactor.ts"

/** Runs `command` as Claude Code does (eval in a fresh shell), then prints its status and where it ended. */
const run = (shell: string, command: string) => {
  const out = spawnSync(shell, ["-c", `exec 2>&1; eval "$1"; echo "[status=$? pwd=$(pwd)]"`, shell, command], {
    encoding: "utf8",
    cwd: "/"
  })
  return { stdout: out.stdout, status: out.status }
}

/**
 * The same, with the line number in bash's own messages left out: after a function definition in
 * the command (`(exit 1) && f() { ...; }; f`), bash numbers the eval's lines from another origin in
 * the rewrite ("line 3" for "line 1"). The message, the output, the status and the directory are kept.
 */
const runModuloLines = (shell: string, command: string) => {
  const out = run(shell, command)
  // Not anchored at a line's start, nor at a word's: output without a newline (printf '%s' 1 >&2) may come just before
  // ("1bash: line 2: ").
  return { ...out, stdout: out.stdout.replace(/(bash|sh): (eval: )?line \d+: /g, "$1: $2line N: ") }
}

// Text without NUL (no argv holds one), and without the heredoc's end line.
const Text = Schema.String.pipe(
  Schema.check(Schema.makeFilter((text: string) => !text.includes("\0") && !/(^|\n)END(\n|$)/.test(text)))
)
const Step = Schema.Union([
  Schema.Struct({ kind: Schema.Literals(["printf", "stderr", "heredoc", "comment", "subst"]), text: Text }),
  Schema.Struct({
    kind: Schema.Literals(["cd", "status", "exit", "raw"]),
    n: Schema.Int.pipe(Schema.check(Schema.isBetween({ minimum: 0, maximum: 4 })))
  })
])
const Join = Schema.Literals(["; ", "\n", " && ", " || "])

const RAW = [
  `echo "a'b" 'c"d' \\$HOME \`echo x\``,
  "printf '%s|' a\\ b \"c  d\"; echo",
  "for i in 1 2; do echo $i; done",
  "f() { echo in-f; return 3; }; f",
  "sleep 0 & wait"
]
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
  steps.map((step, i) =>
    `${render(step)}${
      i < steps.length - 1
        ? (step.kind === "heredoc" || step.kind === "comment" ? "" : joins[i % Math.max(joins.length, 1)] ?? "; ")
        : ""
    }`
  ).join("")

const Steps = Schema.Array(Step).pipe(Schema.check(Schema.isMaxLength(6)))
const Joins = Schema.Array(Join).pipe(Schema.check(Schema.isMinLength(1), Schema.isMaxLength(3)))

describe("the Bash rewrite", () => {
  for (const shell of ["sh", "bash"]) {
    it.effect.prop(
      `${shell}: the rewritten command does exactly what the original does`,
      [Steps, Joins],
      ([steps, joins]) =>
        Effect.sync(() => {
          const command = commandOf(steps, joins)
          assert.deepStrictEqual(
            runModuloLines(shell, throughFilter(command, "cat")),
            runModuloLines(shell, command),
            command
          )
        }),
      { timeout: 60_000, arbitrary: { runs: 40 } }
    )
  }

  it("keeps the status of a failing command, exit and cd, on fixed cases", () => {
    for (
      const command of [
        "false",
        "exit 7",
        "cd /tmp; false",
        "echo 'it''s'; (exit 5)",
        "set -e; false; echo not-here",
        "",
        "exec 3>&1; echo via-fd-3 >&3",
        "cat <<'X'\nno newline at the end\nX"
      ]
    ) {
      assert.deepStrictEqual(run("sh", throughFilter(command, "cat")), run("sh", command), command)
    }
    assert.strictEqual(
      run("bash", throughFilter("cd /tmp && ls /nonexistent-dir", "cat")).stdout.split("\n").at(-2),
      "[status=2 pwd=/tmp]"
    )
  })

  it("a filter that fails shows none of the output, and its status stands", () => {
    const out = run("sh", throughFilter("echo the-secret; exit 0", "sh -c 'cat >/dev/null; exit 2'"))
    assert.notInclude(out.stdout, "the-secret")
    assert.strictEqual(out.status, 2)
    const missing = run("sh", throughFilter("echo the-secret", "/nonexistent/interlock redact"))
    assert.notInclude(missing.stdout, "the-secret")
    assert.strictEqual(missing.status, 127)
  })

  it("rewrites Bash only when a redaction applies to claude/Bash, and every time", () => {
    const redactions = compileRedactions([{ match: "claude/Bash", pattern: "s3cr3t" }]) as ReadonlyArray<Redaction>
    const call = (serverId: string, name: string, command: string) =>
      new ToolCall({ serverId, name, args: { command, description: "d" }, callId: "c" })
    assert.isUndefined(
      bashRewrite(compileRedactions([{ match: "claude/Read", pattern: "x" }]) as ReadonlyArray<Redaction>, "cat")
    )
    const rewrite = bashRewrite(redactions, "cat")!
    const args = rewrite(call("claude", "Bash", "cat secret.env"))!
    assert.strictEqual(args.description, "d")
    assert.isTrue((args.command as string).startsWith(REWRITE_MARK))
    // A command that looks rewritten is rewritten again (the model may write the mark itself).
    assert.isTrue((rewrite(call("claude", "Bash", args.command as string))!.command as string).startsWith(REWRITE_MARK))
    assert.isUndefined(rewrite(call("interlock", "Bash", "cat x")))
  })
})

describe("the Bash rewrite, attacked (the command is the model's, so an attacker's)", () => {
  const redactions = compileRedactions([{ match: "claude/Bash", pattern: "s3cr3t" }]) as ReadonlyArray<Redaction>
  const rewrite = bashRewrite(redactions, "sed s/s3cr3t/REDACTED/g")!
  // What Claude Code runs: the rewrite, or the command as it is when the bridge leaves it.
  const rewritten = (command: string) =>
    (rewrite(new ToolCall({ serverId: "claude", name: "Bash", args: { command }, callId: "c" }))?.command as
      | string
      | undefined) ?? command
  const ATTACKS = [
    // Looks rewritten already: it must be filtered all the same.
    `${REWRITE_MARK}echo s3cr3t`,
    // Closes the never-run copy of itself, to run outside the filter.
    "true\nfi\necho s3cr3t\nif false; then :",
    "true\nfi\n) ; echo s3cr3t >&9; ( if false; then :",
    "echo ok\nfi\necho s3cr3t >&2\nif false; then :\n",
    // Ends the here-document that holds the copy, with and without leading tabs.
    "true\n__INTERLOCK_END__\necho s3cr3t\n: <<'X'",
    "true\n\t__INTERLOCK_END__\n__INTERLOCK_END_0__\necho s3cr3t\n: <<'X'"
  ]
  it("a command that does not parse as a whole program is replaced by a refusal, not copied", () => {
    assert.strictEqual(rewritten("echo s3cr3t\nfi"), REFUSAL)
    assert.strictEqual(rewritten("cat <<EOF\ns3cr3t"), REFUSAL)
    assert.notStrictEqual(rewritten("cat <<EOF\ns3cr3t\nEOF"), REFUSAL)
  })

  for (const shell of ["sh", "bash"]) {
    it(`${shell}: no command gets its output past the filter`, () => {
      for (const attack of ATTACKS) {
        const out = spawnSync(shell, ["-c", `exec 2>&1; eval "$1"`, shell, rewritten(attack)], {
          encoding: "utf8",
          cwd: "/"
        })
        assert.notInclude(out.stdout + out.stderr, "s3cr3t", attack)
      }
    })
  }
})
