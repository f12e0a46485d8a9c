/**
 * Each configured server's path settings (its `paths`, with defaults), for `within` and
 * `notWithin`: a stdio server runs on the gateway's machine, in its cwd, so its base is that cwd
 * and its symlinks are the gateway's; an HTTP server's base defaults to the gateway's cwd, and its
 * symlinks are not resolved (the gateway cannot see its filesystem).
 */
import { ConfigError } from "@interlock/core"
import { homedir } from "node:os"
import * as path from "node:path"
import type { GatewayConfig, ServerConfig } from "../config/Config.ts"
import type { PathsOf } from "./ArgConditions.ts"
import { defaultPaths, gatewayPlatform, nodeLinks, type PathSettings, type Platform } from "./PathPlacement.ts"

/** What the defaults come from: the gateway's own process. */
export interface GatewayHost {
  readonly platform: Platform
  readonly cwd: string
  readonly home: string
}

const thisHost = (): GatewayHost => ({ platform: gatewayPlatform, cwd: process.cwd(), home: homedir() })

/**
 * An absolute path on `platform`: on the gateway's own platform relative to `baseDir`; on another, it must already be
 * absolute.
 */
const absoluteOn = (
  platform: Platform,
  host: GatewayHost,
  baseDir: string,
  value: string,
  where: string
): string | ConfigError => {
  if (platform === host.platform) return path.resolve(baseDir, value)
  const p = platform === "win32" ? path.win32 : path.posix
  return p.isAbsolute(value)
    ? p.resolve(value)
    : new ConfigError({
      path: where,
      detail: `must be an absolute ${platform} path (the server's platform is not the gateway's)`
    })
}

/** One server's settings, or a ConfigError naming the key at fault. */
export const settingsOf = (
  name: string,
  server: ServerConfig,
  baseDir: string,
  host: GatewayHost = thisHost()
): PathSettings | ConfigError => {
  const where = `servers.${name}.paths`
  const paths = server.paths ?? {}
  const stdio = "command" in server
  const platform = paths.platform ?? host.platform
  const foreign = platform !== host.platform
  if (foreign && paths.base === undefined) {
    return new ConfigError({
      path: `${where}.base`,
      detail: "is required when paths.platform is not the gateway's platform"
    })
  }
  if (foreign && paths.resolveSymlinks === true) {
    return new ConfigError({
      path: `${where}.resolveSymlinks`,
      detail: "needs the server's filesystem, which a server on another platform does not share"
    })
  }
  const defaultBase = stdio ? path.resolve(baseDir, server.cwd ?? ".") : host.cwd
  const base = paths.base === undefined ? defaultBase : absoluteOn(platform, host, baseDir, paths.base, `${where}.base`)
  if (base instanceof ConfigError) return base
  const defaultHome = stdio && !foreign ? (server.env?.HOME ?? host.home) : undefined
  const home = paths.home === undefined ? defaultHome : absoluteOn(platform, host, baseDir, paths.home, `${where}.home`)
  if (home instanceof ConfigError) return home
  const links = (paths.resolveSymlinks ?? (stdio && !foreign)) ? nodeLinks : undefined
  return { base, platform, home, tilde: paths.home === undefined ? "either" : "expand", links }
}

/** The settings of every configured server, looked up by server id (the gateway's defaults for any other). */
export const serverPaths = (
  config: GatewayConfig,
  baseDir: string,
  host: GatewayHost = thisHost()
): PathsOf | ConfigError => {
  const settings = new Map<string, PathSettings>()
  for (const [name, server] of Object.entries(config.servers)) {
    const resolved = settingsOf(name, server, baseDir, host)
    if (resolved instanceof ConfigError) return resolved
    settings.set(name, resolved)
  }
  const fallback = defaultPaths()
  return (serverId) => (serverId === undefined ? undefined : settings.get(serverId)) ?? fallback
}
