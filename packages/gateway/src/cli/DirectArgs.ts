/**
 * The plain forms of the commands that Cli.ts runs without effect/cli (its parser, help and the
 * Node services cost more than their work): each command's flags in one table, read here. Any
 * other form (`--help`, a global flag, a flag given twice, a typo) returns undefined and goes
 * through effect/cli, which parses or explains it.
 */

/** How one flag is written: its names, and whether a value follows (`--config F`, `-c F`, `--config=F`). */
export interface DirectFlag {
  readonly names: ReadonlyArray<string>
  readonly value: boolean
}

const CONFIG: DirectFlag = { names: ["--config", "-c"], value: true }

/** The flags of each command that has a direct path. Adding a flag to one is one entry here. */
export const DIRECT_FLAGS = {
  "claude-hook": { config: CONFIG, timeout: { names: ["--timeout"], value: true } },
  check: { config: CONFIG, noConnect: { names: ["--no-connect"], value: false } },
  redact: { config: CONFIG, tool: { names: ["--tool"], value: true } }
} as const satisfies Record<string, Record<string, DirectFlag>>

/** A command with a direct path. */
export type DirectCommand = keyof typeof DIRECT_FLAGS

/** What the flags of a direct command were given as: a flag's value, or true for one that takes none. */
export type DirectValues<C extends DirectCommand> = { readonly [K in keyof (typeof DIRECT_FLAGS)[C]]?: string | true }

/**
 * The flags of `args` when they are a plain form of `command` (its name first, then only its flags, each once);
 * undefined otherwise.
 */
export const directArgs = <C extends DirectCommand>(
  args: ReadonlyArray<string>,
  command: C
): DirectValues<C> | undefined => {
  if (args[0] !== command) return undefined
  const flags: Record<string, DirectFlag> = DIRECT_FLAGS[command]
  const given: Record<string, string | true> = {}
  for (let i = 1; i < args.length; i++) {
    const arg = args[i]
    const found = Object.entries(flags).find(([, flag]) =>
      flag.names.some((name) => arg === name || (flag.value && name.startsWith("--") && arg.startsWith(`${name}=`)))
    )
    if (found === undefined || Object.hasOwn(given, found[0])) return undefined
    const [key, flag] = found
    if (!flag.value) {
      given[key] = true
      continue
    }
    const eq = arg.indexOf("=")
    const value = eq >= 0 ? arg.slice(eq + 1) : args[++i]
    if (value === undefined || value === "" || (eq < 0 && value.startsWith("-"))) return undefined
    given[key] = value
  }
  return given as DirectValues<C>
}
