/**
 * @interlock/claude: Claude Code compatibility. Claude-style hooks and command hooks in the
 * Interlock pipeline, Claude Code settings.json loading, and the `interlock claude-hook` bridge.
 */
export * from "./ClaudeEvent.ts"
export * from "./ClaudeOutput.ts"
export * from "./Errors.ts"
export * from "./ReturnValue.ts"
export * from "./ToolNames.ts"
