/**
 * The repository as the README suite sees it: its Markdown files, a scratch folder inside it, the
 * Node the READMEs promise (22.19, installed from npm's cache like the packaging test does) and a
 * runner of one command with its output.
 */
import { execFile } from "node:child_process"
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"

/** The repository's root folder. */
export const ROOT = path.join(import.meta.dirname, "..", "..")

/** The workspace's own bin folder (Node 24, tsc, the servers' and our bins). */
export const WORKSPACE_BIN = path.join(ROOT, "node_modules", ".bin")

/** The Node version the READMEs promise (`engines.node` of every package). */
export const NODE_FLOOR = "22.19.0"

/** Folders never searched for Markdown. */
const SKIPPED = new Set(["node_modules", "scratch", "dist", ".git", ".interlock"])

/** Every README.md in the repository and every Markdown file under docs/, as paths relative to ROOT. */
export const markdownFiles = (): ReadonlyArray<string> => {
  const found: Array<string> = []
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = dir === "" ? entry.name : `${dir}/${entry.name}`
      if (entry.isDirectory() && !SKIPPED.has(entry.name)) walk(rel)
      else if (entry.isFile() && (entry.name === "README.md" || (rel.startsWith("docs/") && rel.endsWith(".md")))) {
        found.push(rel)
      }
    }
  }
  walk("")
  return found.sort()
}

/**
 * A fresh folder under the repository's (git-ignored) scratch/, so that `@interlock/*` and the workspace's bins resolve
 * from it.
 */
export const scratchDir = (prefix: string) => {
  mkdirSync(path.join(ROOT, "scratch"), { recursive: true })
  return mkdtempSync(path.join(ROOT, "scratch", prefix))
}

/** How a command ended. */
export interface Ran {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** Runs a command to its end (killed after `timeout` ms); never rejects. */
export const run = (
  command: string,
  args: ReadonlyArray<string>,
  options: { readonly cwd: string; readonly env: NodeJS.ProcessEnv; readonly timeout?: number }
) =>
  new Promise<Ran>((resolve) => {
    const child = execFile(command, args, {
      cwd: options.cwd,
      env: options.env,
      timeout: options.timeout ?? 120_000,
      maxBuffer: 16 * 1024 * 1024
    }, (error, stdout, stderr) =>
      resolve({
        code: error === null ? 0 : typeof error.code === "number" ? error.code : 1,
        stdout,
        stderr: error !== null && error.killed === true
          ? `${stderr}\n(killed after ${options.timeout ?? 120_000} ms)`
          : stderr
      }))
    child.stdin?.end()
  })

/** The machine's PATH without any node_modules/.bin (so only the bins put before it are found). */
const SYSTEM_PATH = (process.env.PATH ?? "").split(path.delimiter).filter((dir) => !dir.includes("node_modules")).join(
  path.delimiter
)

/**
 * The environment a block runs in: this process's, without npm's and the test runner's variables
 * and without model API keys (so no block reaches a provider), PATH with `bins` first and the
 * workspace's bins next, and the source condition so that `@interlock/*` runs from src/.
 */
export const blockEnv = (
  bins: ReadonlyArray<string>,
  extra: Readonly<Record<string, string>> = {}
): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(
    Object.entries(process.env).filter(([key]) =>
      !/^(npm_|VITEST|OPENAI_|ANTHROPIC_)/i.test(key) && key !== "NODE_OPTIONS"
    )
  ),
  PATH: [...bins, WORKSPACE_BIN, SYSTEM_PATH].join(path.delimiter),
  NODE_OPTIONS: "--conditions=@interlock/source",
  ...extra
})

/**
 * Installs node@NODE_FLOOR (from npm's cache when it holds it) into a temp folder outside the repository; its bin
 * folder.
 */
export const installNodeFloor = async (): Promise<{ readonly bin: string; readonly dir: string }> => {
  const dir = mkdtempSync(path.join(tmpdir(), "interlock-readme-node-"))
  writeFileSync(
    path.join(dir, "package.json"),
    JSON.stringify({ name: "readme-node", private: true, allowScripts: { node: true } })
  )
  const env = { ...blockEnv([]), NODE_OPTIONS: "" }
  const installed = await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", `node@${NODE_FLOOR}`], {
    cwd: dir,
    env,
    timeout: 240_000
  })
  if (installed.code !== 0) {
    throw new Error(`npm install node@${NODE_FLOOR} exited ${installed.code}\n${installed.stdout}\n${installed.stderr}`)
  }
  return { bin: path.join(dir, "node_modules", ".bin"), dir }
}
