/**
 * What the bin runs for a plain `claude-hook [--config F] [--timeout S]` on a JSON config (`--gateway` and a config
 * written as code go elsewhere): the claude-hook bundle (dist/bundle/hook/: ClaudeHookLocal.ts and what it imports,
 * in CommonJS) through CodeCache.ts, its caches under the user's cache directory (none with NODE_DISABLE_COMPILE_CACHE,
 * as for Node's own cache). From the sources it imports ClaudeHookLocal.ts itself. It loads effect in neither case.
 */
import { requireCached } from "./CodeCache.ts"
import { directArgs } from "./DirectArgs.ts"
import { userCacheDir } from "./UserCacheDir.ts"

/** The bundle's entry: dist/bundle/hook/ beside this module's dist/cli/. */
const ENTRY = new URL("../bundle/hook/ClaudeHook.cjs", import.meta.url)

/**
 * Where the bundle's code caches go under `env`; undefined when Node's compile cache is turned off, or when this
 * user has no home directory to find the cache directory in (the hook runs, without caches).
 */
export const codeCacheDir = (env: Record<string, string | undefined> = process.env): string | undefined => {
  if (env.NODE_DISABLE_COMPILE_CACHE !== undefined) return undefined
  try {
    return process.getBuiltinModule("node:path").join(userCacheDir(env), "interlock", "code-cache")
  } catch {
    return undefined
  }
}

/**
 * Answers the hook event on stdin and returns true when `args` (after the bin) are a plain claude-hook; returns
 * false for any other form (effect/cli parses it), and when the bundle is not built. Claude Code lets a tool run
 * when its hook exits 1, so a failure before the answer (the bundle does not load) exits 2 instead.
 */
export const main = async (args: ReadonlyArray<string>): Promise<boolean> => {
  const flags = directArgs(args, "claude-hook")
  if (flags === undefined) return false
  const sources = import.meta.url.endsWith(".ts")
  const entry = process.getBuiltinModule("node:url").fileURLToPath(ENTRY)
  if (!sources && !process.getBuiltinModule("node:fs").existsSync(entry)) return false
  process.once("exit", () => {
    if (process.exitCode === 1) process.exitCode = 2
  })
  const local: typeof import("./ClaudeHookLocal.ts") = sources
    ? await import("./ClaudeHookLocal.ts")
    : requireCached(entry, codeCacheDir()) as typeof import("./ClaudeHookLocal.ts")
  local.main(flags)
  return true
}
