/**
 * The bridge in the real Claude Code, offline as claude-code.test.ts runs it, on redaction of built-in tools'
 * output, MCP servers through the gateway (their output redacted before the model sees it) and
 * `interlock init --claude`.
 */
import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { DatabaseSync } from "node:sqlite"
import { NEEDLES, SECRET_PATTERN } from "../secrets.ts"
import { NODE, resultText, runClaude, settingsFor } from "./harness.ts"
import { bash, configFolder, done, FIXTURES, hookCommand, INTERLOCK, TIMEOUT } from "./project.ts"

const { config, dir, writeJson } = configFolder()

describe("redaction and Claude Code's built-in tools", () => {
  const SECRET = "sk-live-7Hq2ZpX9wLm4"
  const redacting = writeJson("redacting.json", {
    servers: {},
    audit: { path: ":memory:" },
    redact: [{ pattern: "sk-live-[A-Za-z0-9]+" }],
    policy: {
      default: "allow",
      rules: [
        { id: "read-ok", match: "claude/Read", decision: "allow" },
        // `cat secret.env` is allowed by this rule; the other Bash commands by no rule (default allow: no opinion), so
        // the bridge answers only the rewritten input and Claude Code's --allowedTools lets them run.
        {
          id: "cat-ok",
          match: "claude/Bash",
          decision: "allow",
          when: { args: { command: { equals: "cat secret.env" } } }
        }
      ]
    }
  })

  it(
    "a Read of a file that holds redacted text is denied; Bash's output passes the redactor; a clean or failing " +
      "command shows as it is; Grep content is refused",
    async () => {
      const run = await runClaude({
        script: [
          { tool: "Read", input: { file_path: "{project}/secret.env" } },
          { tool: "Read", input: { file_path: "{project}/notes.txt" } },
          bash("cat secret.env"),
          // In the background (its output file is checked after the run; four more steps give it time to end).
          { tool: "Bash", input: { command: "cat secret.env; false", description: "run it", run_in_background: true } },
          bash("mkdir sub && cd sub && printf 'it'\\''s clean\\n' && pwd >&2"),
          bash("pwd; cat missing.txt"),
          { tool: "Grep", input: { pattern: "TOKEN", output_mode: "content" } },
          { tool: "Grep", input: { pattern: "hide", output_mode: "files_with_matches" } },
          // Claude Code checks its own deny rules on the rewritten input: the command's words are still there.
          bash("touch blocked.txt"),
          done
        ],
        files: { "secret.env": `TOKEN=${SECRET}\n`, "notes.txt": "nothing to hide\n" },
        settings: {
          ...settingsFor(hookCommand(redacting), { events: ["PreToolUse"] }),
          permissions: { deny: ["Bash(touch:*)"] }
        },
        args: ["--allowedTools", "Read Bash Grep"]
      })
      assert.strictEqual(run.toolResults.length, 9, run.stderr)
      const [secret, notes, cat, background, clean, failing, lines, files, blocked] = run.toolResults
      assert.isTrue(secret!.is_error)
      assert.include(resultText(secret!.content), "holds text that Interlock redacts")
      assert.include(resultText(notes!.content), "nothing to hide")
      // Bash's output went through `interlock redact` (the rule cat-ok saw the command as Claude wrote it).
      assert.strictEqual(resultText(cat!.content), "TOKEN=[REDACTED]")
      assert.strictEqual(resultText(clean!.content), `it's clean\n${path.join(run.project, "sub")}`)
      // The working directory carried over from the previous call (Claude Code keeps it), and the failure's status
      // shows.
      assert.isTrue(failing!.is_error)
      assert.include(resultText(failing!.content), "Exit code 1")
      assert.include(resultText(failing!.content), path.join(run.project, "sub"))
      assert.include(resultText(failing!.content), "No such file or directory")
      // Grep's content mode would print the line: refused; a search for paths runs (it finds nothing here: Claude
      // Code's Grep gave "No files found" in the test's namespace for every pattern, which is Grep's own doing, not
      // Interlock's).
      assert.isTrue(lines!.is_error)
      assert.include(resultText(lines!.content), "output_mode content is refused")
      assert.notEqual(files!.is_error, true)
      assert.notInclude(resultText(files!.content), "Interlock")
      assert.isTrue(blocked!.is_error)
      assert.include(resultText(blocked!.content), "has been denied")
      assert.isFalse(existsSync(path.join(run.project, "sub", "blocked.txt")))
      // run_in_background: Claude Code writes the (filtered) output and the exit code to a file the model may Read.
      const output = /written to: (\S+?\.output)/.exec(resultText(background!.content))?.[1]
      assert.isDefined(output, resultText(background!.content))
      try {
        assert.strictEqual(readFileSync(output!, "utf8"), "TOKEN=[REDACTED]\n\n[exited with code 1]\n")
      } finally {
        rmSync(path.dirname(path.dirname(path.dirname(output!))), { recursive: true, force: true })
      }
      // The secret reached neither the model nor anything Claude Code or the hook kept (its HOME: transcripts, caches,
      // the hook's code caches) nor its output.
      assert.notInclude(JSON.stringify(run.received), SECRET)
      assert.notInclude(run.stdout + run.stderr, SECRET)
      const kept = execFileSync("find", [run.home, "-type", "f"], { encoding: "utf8" }).split("\n").filter(Boolean)
      for (const file of kept) assert.notInclude(readFileSync(file, "latin1"), SECRET, file)
    },
    TIMEOUT
  )
})

describe("MCP through the gateway", () => {
  const gateway = writeJson("gateway.json", {
    servers: { echo: { command: NODE, args: [path.join(FIXTURES, "echo-server.ts")] } },
    audit: { path: path.join(dir, "gateway-audit.db") },
    policy: { default: "allow" }
  })
  const mcp = writeJson("mcp.json", {
    mcpServers: {
      interlock: { command: INTERLOCK[0], args: [...INTERLOCK.slice(1), "serve", "--stdio", "--config", gateway] }
    }
  })

  it(
    "under default deny, ToolSearch still finds the MCP tools; an allowed one runs, the others are still denied; " +
      "the bridge's and the gateway's rows share the tool_use_id",
    async () => {
      const run = await runClaude({
        script: [
          {
            tool: "ToolSearch",
            input: { query: "select:mcp__interlock__echo,mcp__interlock__write_file", max_results: 5 }
          },
          { tool: "mcp__interlock__echo", input: { text: "hello through the gateway" } },
          { tool: "mcp__interlock__write_file", input: { path: "x.txt", content: "x" } },
          done
        ],
        settings: settingsFor(hookCommand(config), { events: ["PreToolUse", "PostToolUse"] }),
        args: [
          "--mcp-config",
          mcp,
          "--strict-mcp-config",
          "--allowedTools",
          "mcp__interlock__echo mcp__interlock__write_file"
        ]
      })
      assert.strictEqual(run.toolResults.length, 3, run.stderr)
      const [search, echo, write] = run.toolResults
      assert.notEqual(search!.is_error, true)
      assert.include(resultText(search!.content), "ref:mcp__interlock__echo")
      assert.include(resultText(search!.content), "ref:mcp__interlock__write_file")
      assert.strictEqual(resultText(echo!.content), "hello through the gateway")
      assert.isTrue(write!.is_error)
      assert.include(resultText(write!.content), "no policy rule allows this call")
      // Correlation: the bridge's rows (PreToolUse, PostToolUse) and the gateway's row of the echo call carry Claude's
      // tool_use_id.
      const rowsOf = (file: string) => {
        const db = new DatabaseSync(file, { readOnly: true })
        try {
          return db.prepare("SELECT server, tool, principal, tool_use_id, session_id FROM calls WHERE tool_use_id = ?")
            .all(echo!.tool_use_id) as Array<Record<string, unknown>>
        } finally {
          db.close()
        }
      }
      const bridge = rowsOf(path.join(dir, "audit.db"))
      assert.deepStrictEqual(bridge.map((row) => [row.server, row.tool, row.principal]), [[
        "interlock",
        "echo",
        "claude-code"
      ], ["interlock", "echo", "claude-code"]])
      assert.match(String(bridge[0]!.session_id), /^[0-9a-f-]{36}$/)
      const gateway = rowsOf(path.join(dir, "gateway-audit.db"))
      assert.deepStrictEqual(gateway.map((row) => [row.server, row.tool, row.session_id]), [["echo", "echo", null]])
    },
    TIMEOUT
  )
})

describe("MCP output, redacted before the model sees it", () => {
  const leaky = { command: NODE, args: [path.join(FIXTURES, "secret-server.ts")] }
  const redact = [{ match: "*", pattern: SECRET_PATTERN, replacement: "[REDACTED]" }, { detectors: "all" }]
  const bridgeConfig = writeJson("mcp-redacting.json", {
    servers: {},
    audit: { path: path.join(dir, "mcp-redacting-audit.db") },
    policy: { default: "allow" },
    redact
  })
  const gatewayConfig = writeJson("leaky-gateway.json", {
    servers: { leaky },
    audit: { path: path.join(dir, "leaky-gateway-audit.db") },
    policy: { default: "allow" },
    redact
  })
  const cases = [
    // A server Claude Code runs itself: the bridge's PostToolUse replaces the output (updatedMCPToolOutput).
    {
      name: "by the bridge, for a server Claude Code runs",
      server: "leaky",
      whole: false,
      mcp: writeJson("mcp-leaky.json", { mcpServers: { leaky } })
    },
    // The same server behind the gateway: the gateway redacts before anything reaches Claude Code.
    {
      name: "by the gateway in front of the server",
      server: "interlock",
      whole: true,
      mcp: writeJson("mcp-leaky-gateway.json", {
        mcpServers: {
          interlock: {
            command: INTERLOCK[0],
            args: [...INTERLOCK.slice(1), "serve", "--stdio", "--config", gatewayConfig]
          }
        }
      })
    }
  ]
  for (const c of cases) {
    it(c.name, async () => {
      const tool = `mcp__${c.server}__leak_text`
      const run = await runClaude({
        script: [{ tool: "ToolSearch", input: { query: `select:${tool}`, max_results: 5 } }, { tool, input: {} }, done],
        settings: settingsFor(hookCommand(bridgeConfig), { events: ["PreToolUse", "PostToolUse"] }),
        args: ["--mcp-config", c.mcp, "--strict-mcp-config", "--allowedTools", tool]
      })
      assert.strictEqual(run.toolResults.length, 2, run.stderr)
      assert.include(resultText(run.toolResults[1]!.content), "[REDACTED]")
      // Behind the gateway: nothing of either secret in anything the model was sent, nor in what Claude
      // Code printed. A server Claude Code runs itself lists its tools to Claude Code directly (a tool
      // of this fixture is named after the secret), which no hook sees: there, the tool's results.
      const seen = JSON.stringify(run.received) + run.stdout + run.stderr
      const results = JSON.stringify(run.toolResults)
      for (const needle of NEEDLES) assert.notInclude(c.whole ? seen : results, needle)
    }, TIMEOUT)
  }
})

describe("interlock init --claude", () => {
  it(
    "writes a config and merged settings that work together: a denied Bash does not run, an allowed one does, check " +
      "--claude passes",
    async () => {
      const project = mkdtempSync(path.join(tmpdir(), "interlock-init-claude-"))
      try {
        mkdirSync(path.join(project, ".claude"))
        const mine = {
          model: "sonnet",
          permissions: { allow: ["Read"] },
          hooks: { Notification: [{ hooks: [{ type: "command", command: "true" }] }] }
        }
        writeFileSync(path.join(project, ".claude", "settings.json"), JSON.stringify(mine))
        const init = execFileSync(INTERLOCK[0]!, [...INTERLOCK.slice(1), "init", "--claude"], {
          cwd: project,
          encoding: "utf8"
        })
        assert.include(init, "check --claude .claude/settings.json")
        const settings = JSON.parse(readFileSync(path.join(project, ".claude", "settings.json"), "utf8"))
        // The user's keys and hooks stay; the bridge's hooks join them.
        assert.strictEqual(settings.model, "sonnet")
        assert.deepStrictEqual(settings.permissions, mine.permissions)
        assert.deepStrictEqual(settings.hooks.Notification, mine.hooks.Notification)
        assert.include(
          settings.hooks.PreToolUse[0].hooks[0].command,
          `claude-hook --config "$CLAUDE_PROJECT_DIR"/'interlock.config.jsonc' --timeout 30`
        )
        const checked = execFileSync(INTERLOCK[0]!, [
          ...INTERLOCK.slice(1),
          "check",
          "--claude",
          ".claude/settings.json"
        ], { cwd: project, encoding: "utf8" })
        assert.include(checked, "Claude Code settings OK")
        // A settings file that is not JSON is refused and left as it was.
        writeFileSync(path.join(project, ".claude", "settings.json"), "{ not json")
        assert.throws(
          () =>
            execFileSync(INTERLOCK[0]!, [...INTERLOCK.slice(1), "init", "--claude", "--force"], {
              cwd: project,
              encoding: "utf8",
              stdio: "pipe"
            }),
          /is not a JSON object/
        )
        assert.strictEqual(readFileSync(path.join(project, ".claude", "settings.json"), "utf8"), "{ not json")

        const run = await runClaude({
          script: [bash("touch marker.txt"), bash("ls"), done],
          settings,
          files: {
            "interlock.config.jsonc": readFileSync(path.join(project, "interlock.config.jsonc"), "utf8"),
            "token.txt": "token=abc123\n"
          },
          args: ["--allowedTools", "Bash"]
        })
        assert.strictEqual(run.toolResults.length, 2, run.stderr)
        const [denied, listed] = run.toolResults
        assert.isFalse(existsSync(path.join(run.project, "marker.txt")), "the denied command ran")
        assert.include(resultText(denied!.content), "no policy rule allows this call")
        assert.include(resultText(listed!.content), "token.txt")
      } finally {
        rmSync(project, { recursive: true, force: true })
      }
    },
    TIMEOUT
  )
})
