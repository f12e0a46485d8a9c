/** Real shell scripts in a temp dir for command-hook tests, and a check that a process is gone. */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** A temp dir of executable scripts. */
export const scriptDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "interlock-claude-"))
  return {
    dir,
    /**
     * Writes an executable `/bin/sh` script and returns the command that runs it: `/bin/sh <path>`.
     * The file is read by the shell rather than exec'd, because in a test process other threads
     * fork all the time, and a child forked while the file was open for writing makes an exec of
     * it fail with ETXTBSY until that child execs.
     */
    script: (name: string, body: string): string => {
      const path = join(dir, name)
      writeFileSync(path, `#!/bin/sh\n${body}\n`)
      chmodSync(path, 0o755)
      return `/bin/sh ${path}`
    },
    path: (name: string) => join(dir, name),
    read: (name: string) => readFileSync(join(dir, name), "utf8"),
    exists: (name: string) => existsSync(join(dir, name)),
    remove: () => rmSync(dir, { recursive: true, force: true })
  }
}

/** Whether a process is running (a zombie waiting to be reaped counts as gone). */
export const alive = (pid: number): boolean => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3)
    return state !== "Z" && state !== "X"
  } catch {
    return false
  }
}

/** Waits (real time, bounded) until a pid file appears and returns its pid. */
export const waitForPid = async (read: () => string | undefined, limitMs = 5_000): Promise<number> => {
  const start = Date.now()
  while (Date.now() - start < limitMs) {
    const text = read()
    if (text !== undefined && /^\d+\s*$/.test(text)) return Number(text)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error("no pid file")
}

/** Whether a process is gone within `limitMs` (real time; a SIGKILLed process may take a moment). */
export const goneSoon = async (pid: number, limitMs = 2_000): Promise<boolean> => {
  const start = Date.now()
  while (Date.now() - start < limitMs) {
    if (!alive(pid)) return true
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  return !alive(pid)
}
