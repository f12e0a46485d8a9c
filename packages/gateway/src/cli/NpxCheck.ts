/**
 * `check`'s warning about `npx NAME` servers: an unscoped NAME that is not installed where the
 * server runs makes npx fetch the public package of that name, which may belong to anyone (the
 * READMEs once named `mcp-server-filesystem`, someone else's package). A scoped package
 * (`npx -y @scope/name`) or an installed bin is not warned about.
 */
import { existsSync } from "node:fs"
import * as path from "node:path"
import type { Plan } from "../config/Plan.ts"

/** npx's flags that take a value (the next argument), besides --package. */
const VALUED = new Set(["-c", "--call", "--cache", "--userconfig", "-w", "--workspace"])

/** The packages an npx command line runs: its --package values, or else its first positional argument. */
export const npxPackages = (args: ReadonlyArray<string>): ReadonlyArray<string> => {
  const packages: Array<string> = []
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]
    if (arg === "--") return packages.length > 0 ? packages : args.slice(index + 1, index + 2)
    if (arg === "-p" || arg === "--package") packages.push(args[++index] ?? "")
    else if (arg.startsWith("--package=")) packages.push(arg.slice("--package=".length))
    else if (VALUED.has(arg)) index++
    else if (!arg.startsWith("-")) return packages.length > 0 ? packages : [arg]
  }
  return packages
}

/** A package spec's name without its version or tag (`name@<version>` or `name@<tag>` -> `name`). */
const nameOf = (spec: string): string => spec.startsWith("@") ? spec : spec.split("@")[0]

/** Whether `bin` is installed in `dir` or a folder above it (node_modules/.bin), where npx finds it first. */
const installedFrom = (dir: string, bin: string): boolean => {
  for (let at = dir;; at = path.dirname(at)) {
    if (existsSync(path.join(at, "node_modules", ".bin", bin))) return true
    if (path.dirname(at) === at) return false
  }
}

/** One warning line per stdio server whose `npx` command would fetch an unscoped package from the registry. */
export const npxWarnings = (plan: Plan): ReadonlyArray<string> =>
  [...plan.servers].flatMap(([name, server]) => {
    if (server._tag !== "stdio" || path.basename(server.command).replace(/\.cmd$/, "") !== "npx") return []
    return npxPackages(server.args).map(nameOf).filter((pkg) =>
      pkg !== "" && !pkg.startsWith("@") && !pkg.startsWith(".") && !path.isAbsolute(pkg) &&
      !installedFrom(server.cwd, pkg)
    ).map((pkg) =>
      `Warning: servers.${name}: \`npx ${pkg}\` is not installed here, so npx would fetch the public package ` +
      `"${pkg}", ` +
      `which may belong to anyone: name the scoped package (npx -y @scope/${pkg}) or install it`
    )
  })
