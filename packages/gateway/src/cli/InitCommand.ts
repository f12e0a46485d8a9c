/**
 * `interlock init [--config F] [--server "NAME=COMMAND ARGS..."]... [--name NAME] [--force] [--claude] [-- COMMAND
 * ARGS...]`: writes a commented starter config (`interlock.config.jsonc` by default) and prints the next commands.
 * Servers come from `--server` and the words after `--`. The policy fails closed: a call to a configured server
 * asks a person, anything else is denied. A file is kept unless `--force`; `--claude`: ClaudeInit.ts.
 */
import { ConfigError, JsonText } from "@interlock/core"
import { Console, Effect, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { fromObject } from "../config/ConfigLoader.ts"
import { blankComments } from "../config/JsonComments.ts"
import { DEFAULT_AUDIT_PATH, DEFAULT_LISTEN } from "../config/Plan.ts"
import {
  CLAUDE_REDACT,
  CLAUDE_RULES,
  CLAUDE_SETTINGS,
  claudeConfigPath,
  claudeNextSteps,
  hookBin,
  mergeClaudeSettings
} from "./ClaudeInit.ts"
import { userFacing } from "./UserFacing.ts"

/** The file `init` writes when --config is not given. */
export const DEFAULT_INIT_FILE = "interlock.config.jsonc"

/** Where the config's JSON Schema is when the package is installed in the project. */
export const SCHEMA_PATH = "./node_modules/@interlock/gateway/interlock.config.schema.json"

/** One stdio server of the starter config. */
export interface StarterServer {
  readonly name: string
  readonly command: string
  readonly args: ReadonlyArray<string>
}

/** Parses `NAME=COMMAND ARGS...` (words split at whitespace); a ConfigError naming the flag when it is not one. */
export const parseServer = (text: string): StarterServer | ConfigError => {
  const equals = text.indexOf("=")
  const name = equals < 0 ? "" : text.slice(0, equals).trim()
  const [command, ...args] = text.slice(equals + 1).trim().split(/\s+/).filter((word) => word.length > 0)
  if (!/^[A-Za-z][\w-]*$/.test(name) || name.includes("__") || command === undefined) {
    return new ConfigError({
      path: "--server",
      detail: "must be NAME=COMMAND ARGS..., a name of letters, digits, - and _ (no __), for example fs=npx -y " +
        "@modelcontextprotocol/server-filesystem ./sandbox"
    })
  }
  return { name, command, args }
}

const json = (value: unknown): string => JSON.stringify(value)

const serverEntry = (server: StarterServer, last: boolean): string =>
  `    ${json(server.name)}: { "command": ${json(server.command)}, "args": [${server.args.map(json).join(", ")}] }${
    last ? "" : ","
  }`

const askRule = (server: StarterServer, last: boolean): string =>
  `      { "id": ${json(`${server.name}-ask`)}, "match": ${
    json(`${server.name}/*`)
  }, "decision": "ask", "reason": "every call asks until you allow its tools" }${last ? "" : ","}`

/** The starter config's text: JSON with `//` comments, which `interlock check` and `serve` read. */
export const starterConfig = (servers: ReadonlyArray<StarterServer>, claude = false): string => {
  const example = servers[0]?.name ?? "fs"
  return [
    "// Interlock gateway config, written by `interlock init`. JSON with // comments.",
    "// Every key: `interlock schema`, or the gateway README's Configuration section.",
    "{",
    "  // Editors check this file against the published schema (installed with the package).",
    `  "$schema": ${json(SCHEMA_PATH)},`,
    "  // The MCP servers the gateway fronts, each spawned over stdio (or { \"url\": ... } for Streamable HTTP).",
    "  // Relative paths (cwd, args the server reads) start in this file's folder.",
    "  \"servers\": {",
    ...(servers.length === 0
      ? [
        "    // \"fs\": { \"command\": \"npx\", \"args\": [\"-y\", " +
        "\"@modelcontextprotocol/server-filesystem\", \".\"] }"
      ]
      : servers.map((server, i) => serverEntry(server, i === servers.length - 1))),
    "  },",
    "  // The policy fails closed: the first rule that matches decides, and a call no rule matches is denied.",
    "  // Each server's calls ask a person (the host's approval prompt, or the web console of `serve`),",
    "  // since a tool's name does not prove it only reads. `interlock check` lists the tools: put allow rules",
    `  // for the ones you trust above the ask rules, for example { "match": "${example}/read_*", "decision": ` +
    `"allow" }.`,
    "  \"policy\": {",
    "    \"default\": \"deny\",",
    "    \"rules\": [",
    ...(claude
      ? CLAUDE_RULES.map((
        line,
        i
      ) => (i === CLAUDE_RULES.length - 1 && servers.length === 0 ? line.replace(/,$/, "") : line))
      : []),
    ...servers.map((server, i) => askRule(server, i === servers.length - 1)),
    "    ]",
    "  },",
    ...(claude ? CLAUDE_REDACT : []),
    "  // An ask that nobody answers is denied after this many seconds.",
    "  \"approvals\": { \"timeoutSeconds\": 120 },",
    `  // One row per call (who, which tool, the decision, the outcome), in SQLite next to this file; "full" also ` +
    `keeps redacted arguments and results.`,
    `  "audit": { "path": ${json(DEFAULT_AUDIT_PATH)}, "capture": "metadata" },`,
    "  // Where `interlock serve` listens (loopback only; set listen.token before binding anything else).",
    `  "listen": { "http": ${json(DEFAULT_LISTEN)} }`,
    "}",
    ""
  ].join("\n")
}

/** How to run this CLI again, as the user can paste it: the bin's path (never a bare package name). */
const binCommand = (): string => {
  const bin = process.argv[1] ?? "interlock"
  const relative = path.relative(process.cwd(), bin)
  const shown = relative.startsWith("..") || path.isAbsolute(relative) ? bin : relative
  return /\s/.test(shown) ? json(shown) : shown
}

/** The lines printed after writing: the file, then the next commands. */
export const nextSteps = (file: string, bin: string): ReadonlyArray<string> => {
  const config = /\s/.test(file) ? json(file) : file
  return [
    `Wrote ${file}.`,
    "Next:",
    `  ${bin} check --config ${config}     # validate it and list the servers' tools`,
    `  ${bin} serve --config ${config}     # run the gateway (add --stdio for a host that spawns it)`
  ]
}

/** The init command. */
export const initCommand = Command.make(
  "init",
  {
    config: Flag.String("config").pipe(
      Flag.withAlias("c"),
      Flag.withDescription(`The file to write (default ${DEFAULT_INIT_FILE})`),
      Flag.optional
    ),
    server: Flag.String("server").pipe(
      Flag.withDescription("A stdio server, NAME=COMMAND ARGS... (split at spaces); repeat for more"),
      Flag.atLeast(0)
    ),
    name: Flag.String("name").pipe(
      Flag.withDescription("The name of the server given after --"),
      Flag.withDefault("server")
    ),
    force: Flag.Boolean("force").pipe(Flag.withDescription("Overwrite the file if it exists"), Flag.withDefault(false)),
    claude: Flag.Boolean("claude").pipe(
      Flag.withDescription(
        `Also merge Claude Code's hooks for this config into ${CLAUDE_SETTINGS}, and add rules and redactions for ` +
          `its built-in tools`
      ),
      Flag.withDefault(false)
    ),
    command: Argument.String("command").pipe(
      Argument.withDescription("After --: one server's command and arguments"),
      Argument.variadic()
    )
  },
  ({ claude, command, config, force, name, server }) =>
    userFacing(Effect.gen(function*() {
      const servers: Array<StarterServer> = []
      for (const text of server) {
        const parsed = parseServer(text)
        if (parsed instanceof ConfigError) return yield* parsed
        servers.push(parsed)
      }
      if (command.length > 0) {
        const parsed = parseServer(`${name}=${command[0]}`)
        if (parsed instanceof ConfigError) return yield* new ConfigError({ path: "--name", detail: parsed.detail })
        servers.push({ ...parsed, args: command.slice(1) })
      }
      const names = new Set(servers.map((entry) => entry.name))
      if (names.size < servers.length) {
        return yield* new ConfigError({ path: "--server", detail: "names a server twice" })
      }
      const file = Option.getOrElse(config, () => DEFAULT_INIT_FILE)
      if (!/\.jsonc?$/.test(file)) {
        return yield* new ConfigError({
          path: "--config",
          detail: "must end in .jsonc or .json (init writes JSON with comments)"
        })
      }
      const text = starterConfig(servers, claude)
      // What init writes must load: the same check `interlock check` runs first.
      yield* fromObject(JsonText.parse(blankComments(text) ?? "null"), path.dirname(path.resolve(file)))
      if (existsSync(file) && !force) {
        return yield* new ConfigError({ path: file, detail: "exists already: pass --force to overwrite it" })
      }
      const settings = claude
        ? mergeClaudeSettings(
          existsSync(CLAUDE_SETTINGS) ? readFileSync(CLAUDE_SETTINGS, "utf8") : undefined,
          hookBin(process.cwd()),
          claudeConfigPath(process.cwd(), file)
        )
        : undefined
      if (settings instanceof ConfigError) {
        return yield* settings
      }
      yield* Effect.try({
        try: () => writeFileSync(file, text, { mode: 0o644 }),
        catch: () => new ConfigError({ path: file, detail: "could not be written" })
      })
      if (settings !== undefined) {
        yield* Effect.try({
          try: () => {
            mkdirSync(path.dirname(CLAUDE_SETTINGS), { recursive: true })
            writeFileSync(CLAUDE_SETTINGS, settings, { mode: 0o644 })
          },
          catch: () => new ConfigError({ path: CLAUDE_SETTINGS, detail: "could not be written" })
        })
      }
      for (const line of nextSteps(file, binCommand())) yield* Console.log(line)
      if (settings !== undefined) {
        for (const line of claudeNextSteps(CLAUDE_SETTINGS, file, binCommand())) yield* Console.log(line)
      }
    }))
).pipe(
  Command.withDescription(
    "Write a commented starter config (servers from --server or after --, a fail-closed policy, an audit path) and " +
      "print the next commands"
  )
)
