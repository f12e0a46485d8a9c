/** `Hook.command({ command, timeout })`: a Claude-style hook that runs an external program (see CommandHook.ts). */
export { command, DEFAULT_COMMAND_TIMEOUT_MS } from "./CommandHook.ts"
