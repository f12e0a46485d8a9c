/**
 * Every README's code blocks, as docs/README-blocks.md defines them: each block follows the
 * convention (every ts/js/sh block says run, no-run REASON or file=PATH), every `run` block runs
 * unchanged on Node 22.19 and ends with its expected exit code and output, and every TypeScript
 * block type-checks. A failure names the README and the line of the block.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { type Block, classify, type Fence, fences } from "./Markdown.ts"
import {
  blockEnv,
  installNodeFloor,
  markdownFiles,
  NODE_FLOOR,
  ROOT,
  run,
  scratchDir,
  WORKSPACE_BIN
} from "./Workspace.ts"

/** One block of one README, classified. */
interface Entry {
  readonly file: string
  readonly fence: Fence
  readonly block: Block | { readonly _tag: "BlockError"; readonly message: string }
}

const readmes = markdownFiles().filter((file) => path.basename(file) === "README.md")
const entries = (file: string): ReadonlyArray<Entry> =>
  fences(readFileSync(path.join(ROOT, file), "utf8")).map((fence) => ({ file, fence, block: classify(fence.info) }))
const all = readmes.flatMap(entries)
const where = (entry: Entry) => `${entry.file}:${entry.fence.line}`

const scratch = scratchDir("readme-blocks-")
let nodeBin = ""
let nodeDir = ""

beforeAll(async () => {
  const floor = await installNodeFloor()
  nodeBin = floor.bin
  nodeDir = floor.dir
}, 300_000)

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true })
  if (nodeDir !== "") rmSync(nodeDir, { recursive: true, force: true })
})

describe("README blocks follow docs/README-blocks.md", () => {
  it("finds the READMEs of the root, every package and every example", () => {
    for (
      const file of ["README.md", "packages/core/README.md", "packages/gateway/README.md", "examples/default/README.md"]
    ) assert.include(readmes, file)
  })

  it("every block has a language, and every ts/js/sh block says run, no-run REASON or file=PATH", () => {
    const problems = all.flatMap((entry) =>
      entry.block._tag === "BlockError" ? [`${where(entry)}: the block ${entry.block.message}`] : []
    )
    assert.deepStrictEqual(problems, [])
  })

  it("an output block directly follows a run block", () => {
    const problems = all.flatMap((entry, index) =>
      entry.block._tag === "Output" && (all[index - 1]?.file !== entry.file || all[index - 1]?.block._tag !== "Run")
        ? [`${where(entry)}: an output block must directly follow a run block`]
        : []
    )
    assert.deepStrictEqual(problems, [])
  })

  it("the suite runs blocks of every package README and of the examples", () => {
    const running = new Set(all.filter((entry) => entry.block._tag === "Run").map((entry) => entry.file))
    for (
      const file of [
        "packages/core/README.md",
        "packages/mcp/README.md",
        "packages/agent/README.md",
        "packages/claude/README.md",
        "packages/gateway/README.md",
        "examples/default/README.md"
      ]
    ) {
      assert.isTrue(running.has(file), `${file} has no run block`)
    }
  })
})

/** The command that runs a block's file, by runner. */
const command = (runner: "ts" | "js" | "sh" | "bash", file: string): [string, Array<string>] =>
  runner === "sh"
    ? ["/bin/sh", ["-e", file]]
    : runner === "bash"
    ? ["/bin/bash", ["-e", "-o", "pipefail", file]]
    : [path.join(nodeBin, "node"), [file]]

const EXTENSION = { ts: ".ts", js: ".mjs", sh: ".sh", bash: ".sh" } as const

for (const file of readmes) {
  const blocks = entries(file)
  const runs = blocks.filter((entry) => entry.block._tag === "Run")
  if (runs.length === 0) continue
  describe(`${file} runs as written on Node ${NODE_FLOOR}`, () => {
    const dir = path.join(scratch, file.replaceAll("/", "_").replace(/\.md$/, ""))
    mkdirSync(dir, { recursive: true })
    // What NODE_OPTIONS is for node, this is for `npx vitest run` in a block: @interlock/* from src/.
    writeFileSync(
      path.join(dir, "vitest.config.ts"),
      [
        `import { defineConfig, mergeConfig } from "vitest/config"`,
        `import { sourceConditions } from ${JSON.stringify(path.relative(dir, path.join(ROOT, "vitest.shared.ts")))}`,
        `export default mergeConfig(sourceConditions, defineConfig({}))`
      ].join("\n") + "\n"
    )
    for (const entry of runs) {
      const block = entry.block as Extract<Block, { _tag: "Run" }>
      it(`${where(entry)} (${entry.fence.info})`, async () => {
        const index = blocks.indexOf(entry)
        for (const before of blocks.slice(0, index)) {
          if (before.block._tag !== "File") continue
          mkdirSync(path.dirname(path.join(dir, before.block.path)), { recursive: true })
          writeFileSync(path.join(dir, before.block.path), before.fence.body)
        }
        const source = path.join(dir, `block-L${entry.fence.line}${EXTENSION[block.runner]}`)
        writeFileSync(source, entry.fence.body)
        const cwd = block.cwd === undefined ? dir : path.resolve(ROOT, path.dirname(file), block.cwd)
        assert.isTrue(existsSync(cwd), `${where(entry)}: cwd=${block.cwd} is not a folder of the repository`)
        const [program, args] = command(block.runner, source)
        const ran = await run(program, args, { cwd, env: blockEnv([nodeBin], block.env) })
        const shown = `\n--- stdout\n${ran.stdout}\n--- stderr\n${ran.stderr}`
        assert.strictEqual(ran.code, block.exit, `${where(entry)} exited ${ran.code}, expected ${block.exit}${shown}`)
        const output = blocks[index + 1]
        if (output?.block._tag === "Output") {
          for (const line of output.fence.body.split("\n").map((l) => l.trimEnd()).filter((l) => l !== "")) {
            assert.isTrue(
              ran.stdout.includes(line) || ran.stderr.includes(line),
              `${where(entry)} did not print "${line}" (${where(output)})${shown}`
            )
          }
        }
      }, 180_000)
    }
  })
}

describe("README TypeScript blocks type-check", () => {
  it("every ts run block and ts file= block passes tsc with the repository's compiler options", async () => {
    const typed = all.filter((entry) =>
      (entry.block._tag === "Run" && entry.block.runner === "ts") ||
      (entry.block._tag === "File" && entry.block.path.endsWith(".ts"))
    )
    assert.isAbove(typed.length, 3)
    const dir = path.join(scratch, "typecheck")
    mkdirSync(dir, { recursive: true })
    const names = new Map<string, Entry>()
    for (const entry of typed) {
      const name = `${entry.file.replaceAll("/", "_").replace(/\.md$/, "")}_L${entry.fence.line}.ts`
      names.set(name, entry)
      writeFileSync(path.join(dir, name), entry.fence.body)
    }
    writeFileSync(
      path.join(dir, "tsconfig.json"),
      JSON.stringify({
        extends: path.join(ROOT, "tsconfig.base.json"),
        // Examples may name a value only to show it; each block is a module of its own.
        compilerOptions: { customConditions: ["@interlock/source"], noUnusedLocals: false, moduleDetection: "force" },
        include: ["*.ts"]
      })
    )
    const ran = await run(path.join(WORKSPACE_BIN, "tsc"), ["-p", dir, "--pretty", "false"], {
      cwd: dir,
      env: blockEnv([])
    })
    // tsc names the block file and a line in it; name the README and its line instead.
    const report = `${ran.stdout}${ran.stderr}`.replace(
      /^(\S+?\.ts)\((\d+),(\d+)\)/gm,
      (text, name: string, line: string, column: string) => {
        const entry = names.get(path.basename(name))
        return entry === undefined ? text : `${entry.file}:${entry.fence.line + Number(line)}:${column}`
      }
    )
    assert.strictEqual(report.trim(), "")
    assert.strictEqual(ran.code, 0)
  }, 120_000)
})
