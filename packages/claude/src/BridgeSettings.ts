/**
 * The settings.json `hooks` section that runs the bridge, as the README writes it: every event
 * the bridge answers, tool events with matcher "*", each hook with its `timeout`, the same
 * `--timeout` for the bridge and `"onFailure": "block"`. What `interlock check --claude` passes
 * (SettingsCheck.ts), for a starter such as `interlock init`. Pure.
 */

/** The events the bridge is wired to, in the README's order. */
export const BRIDGE_EVENTS = [
  "PreToolUse",
  "PermissionRequest",
  "PostToolUse",
  "PostToolUseFailure",
  "UserPromptSubmit",
  "Stop",
  "SubagentStop"
] as const

/** The tool events: their entries take a matcher. */
const MATCHED: ReadonlySet<string> = new Set(["PreToolUse", "PermissionRequest", "PostToolUse", "PostToolUseFailure"])

/** The README's timeout, in seconds. */
export const DEFAULT_BRIDGE_TIMEOUT_SECONDS = 30

/** One command hook of the section. */
export interface BridgeHook {
  readonly type: "command"
  readonly command: string
  readonly timeout: number
  readonly onFailure: "block"
}

/** Options of {@link bridgeSettings}. */
export interface BridgeSettingsOptions {
  /** The bridge's command line up to its flags: the installed bin and `claude-hook`, shell-quoted. */
  readonly bin: string
  /** The config file, as the hook's shell should see it (it may use `$CLAUDE_PROJECT_DIR`). */
  readonly config: string
  /** The hook's timeout in seconds, also passed as `--timeout`; default 30. */
  readonly timeout?: number | undefined
}

/** The bridge's command line: `<bin> claude-hook --config <config> --timeout <timeout>`. */
export const bridgeCommandLine = (options: BridgeSettingsOptions): string =>
  `${options.bin} claude-hook --config ${options.config} --timeout ${options.timeout ?? DEFAULT_BRIDGE_TIMEOUT_SECONDS}`

/** One matcher entry of the section: tool events match "*", the others take no matcher. */
export interface BridgeGroup {
  readonly matcher?: string
  readonly hooks: ReadonlyArray<BridgeHook>
}

/** The settings.json object whose `hooks` run the bridge on every event it answers. */
export const bridgeSettings = (
  options: BridgeSettingsOptions
): { readonly hooks: Readonly<Record<string, ReadonlyArray<BridgeGroup>>> } => {
  const hook: BridgeHook = {
    type: "command",
    command: bridgeCommandLine(options),
    timeout: options.timeout ?? DEFAULT_BRIDGE_TIMEOUT_SECONDS,
    onFailure: "block"
  }
  return {
    hooks: Object.fromEntries(
      BRIDGE_EVENTS.map((event) => [event, [{ ...(MATCHED.has(event) ? { matcher: "*" } : {}), hooks: [hook] }]])
    )
  }
}
