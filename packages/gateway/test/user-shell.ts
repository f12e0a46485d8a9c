/**
 * Commands as a user's shell runs them, for the packaging test: an environment without the workspace's
 * node_modules/.bin, NODE_OPTIONS or npm's variables, and a PATH that puts one chosen bin folder first.
 */
import { execFile } from "node:child_process"
import * as path from "node:path"

/** The machine's PATH without any node_modules/.bin, so a child finds only the node put before it. */
export const SYSTEM_PATH = (process.env.PATH ?? "").split(path.delimiter).filter((dir) => !dir.includes("node_modules"))
  .join(
    path.delimiter
  )
/** A PATH with `bin` first, then the machine's own folders. */
export const pathWith = (bin: string) => `${bin}${path.delimiter}${SYSTEM_PATH}`

/** A finished command: its exit code and what it wrote. */
export interface Ran {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/**
 * This process's environment less NODE_OPTIONS (the tests' source condition) and the variables an
 * outer `npm test` sets (npm_*), so a child sees what a user's shell would (proxy and CA settings too).
 */
export const USER_ENV = Object.fromEntries(
  Object.entries(process.env).filter(([key]) => key !== "NODE_OPTIONS" && !/^npm_/i.test(key))
)

/** Runs a command in the user's environment with the PATH (and variables) given; its exit code and output. */
export const run = (
  command: string,
  args: ReadonlyArray<string>,
  options: { cwd: string; path: string; input?: string; env?: Record<string, string> }
) =>
  new Promise<Ran>((resolve) => {
    const child = execFile(command, args, {
      cwd: options.cwd,
      env: { ...USER_ENV, ...options.env, PATH: options.path },
      timeout: 240_000,
      maxBuffer: 64 * 1024 * 1024
    }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr }))
    // A child may exit before it reads its input (the bin on an old Node does): its exit code tells.
    child.stdin?.on("error", () =>
      undefined)
    child.stdin?.end(options.input ?? "")
  })

/** Fails with the command's output when it did not exit 0; its output otherwise. */
export const ok = async (ran: Promise<Ran>, what: string) => {
  const result = await ran
  if (result.code !== 0) throw new Error(`${what} exited ${result.code}\n${result.stdout}\n${result.stderr}`)
  return result
}
