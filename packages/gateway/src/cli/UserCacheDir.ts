/**
 * The user's cache directory, as each platform names it: `$XDG_CACHE_HOME` (when absolute) or `~/.cache`,
 * `~/Library/Caches` on macOS, `%LOCALAPPDATA%` on Windows. It runs unbundled before anything else of ours, so
 * it takes Node's builtins through `process.getBuiltinModule` (an `import` would build their ESM facades).
 */

/** Where the user's caches go on this platform, from `env` (the process's by default). */
export const userCacheDir = (
  env: Record<string, string | undefined> = process.env,
  platform: NodeJS.Platform = process.platform
): string => {
  const path = process.getBuiltinModule("node:path")
  const home = () => process.getBuiltinModule("node:os").homedir()
  if (platform === "win32") {
    const local = env.LOCALAPPDATA
    return local !== undefined && path.win32.isAbsolute(local) ? local : path.win32.join(home(), "AppData", "Local")
  }
  if (platform === "darwin") return path.join(home(), "Library", "Caches")
  const xdg = env.XDG_CACHE_HOME
  return xdg !== undefined && path.isAbsolute(xdg) ? xdg : path.join(home(), ".cache")
}
