/**
 * Path conditions (`within`, `notWithin`) against a real @modelcontextprotocol/server-filesystem
 * on a temp dir, over the HTTP front and the stdio front. A policy keeps the host out of
 * `private`; the host tries relative paths, `./`, `..` detours, `\`, symlinks (to a directory and
 * a dangling one), absolute paths, `file:` URIs and `~`. The filesystem is the judge: nothing may
 * appear inside `private`, while writes the policy allows really happen.
 */
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { Effect } from "effect"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs"
import { homedir, tmpdir } from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { BIN, toolText } from "../cli-process.ts"
import { httpClient, NODE, startGateway } from "../e2e.ts"

const FILESYSTEM = path.join(
  import.meta.dirname,
  "..",
  "..",
  "..",
  "..",
  "node_modules",
  "@modelcontextprotocol",
  "server-filesystem",
  "dist",
  "index.js"
)

/** The content of the one file in private: it must never reach the host. */
const SECRET = "PRIVATE-CONTENT-7f3a91"

/** A fresh tree: root/{sandbox, private/keep.txt}, sandbox/link -> ../private, sandbox/dangle -> ../private/new.txt. */
const makeTree = () => {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), "interlock-paths-")))
  mkdirSync(path.join(root, "sandbox"))
  mkdirSync(path.join(root, "private"))
  writeFileSync(path.join(root, "private", "keep.txt"), SECRET)
  symlinkSync("../private", path.join(root, "sandbox", "link"))
  symlinkSync("../private/new.txt", path.join(root, "sandbox", "dangle"))
  return root
}

/** Ways of naming `private` (each followed by a file or directory name). */
const privatePrefixes = (root: string): ReadonlyArray<string> => [
  "private/",
  "./private/",
  "sandbox/../private/",
  "sandbox//..//private/",
  "private/./",
  "sandbox/link/",
  "sandbox/link/../private/",
  `${root}/private/`,
  `${root}/sandbox/../private/`,
  `${pathToFileURL(root).href}/private/`,
  `~/${path.relative(homedir(), root)}/private/`
]

/**
 * Two policies that keep calls out of `private`: deny within it (relative root), or allow only outside it (absolute
 * root).
 */
const policies = (root: string) => ({
  denyWithin: {
    default: "allow",
    rules: [
      { id: "no-private", match: "fs/*", decision: "deny", when: { args: { path: { within: "private" } } } },
      { id: "no-private-many", match: "fs/*", decision: "deny", when: { args: { paths: { within: "private" } } } }
    ]
  },
  allowOutside: {
    default: "deny",
    rules: [{
      id: "outside-private",
      match: "fs/*",
      decision: "allow",
      when: { args: { path: { notWithin: `${root}/private` }, paths: { notWithin: `${root}/private` } } }
    }]
  }
})

const serverConfig = (root: string) => ({ fs: { command: NODE, args: [FILESYSTEM, root], cwd: root } })

type Call = (
  name: string,
  args: Record<string, unknown>
) => Effect.Effect<{ readonly isError: boolean; readonly text: string }>

/** Tool calls through an SDK client, as the host sees their answers. */
const callVia = (client: Client): Call => (name, args) =>
  Effect.promise(async () => {
    const result = await client.callTool({ name, arguments: args })
    return { isError: result.isError === true, text: toolText(result) }
  })

/** Every attack through `call`, then the filesystem checks. */
const attack = (root: string, call: Call) =>
  Effect.gen(function*() {
    // A write the policy allows really lands: the server works and the test can see a write.
    const allowed = yield* call("write_file", { path: "sandbox/ok.txt", content: "fine" })
    assert.isFalse(allowed.isError, allowed.text)
    assert.isTrue(existsSync(path.join(root, "sandbox", "ok.txt")))
    for (const prefix of privatePrefixes(root)) {
      const written = yield* call("write_file", { path: `${prefix}p.txt`, content: "pwned" })
      assert.isTrue(written.isError, `write ${prefix}p.txt: ${written.text}`)
      const made = yield* call("create_directory", { path: `${prefix}d` })
      assert.isTrue(made.isError, `mkdir ${prefix}d: ${made.text}`)
    }
    const dangling = yield* call("write_file", { path: "sandbox/dangle", content: "pwned" })
    assert.isTrue(dangling.isError, dangling.text)
    // Reads: one path, or an array of paths where one is private; the host never sees the content.
    for (
      const read of [{ name: "read_text_file", args: { path: "sandbox/link/keep.txt" } }, {
        name: "read_multiple_files",
        args: { paths: ["sandbox/ok.txt", "sandbox/../private/keep.txt"] }
      }]
    ) {
      const answer = yield* call(read.name, read.args)
      assert.isTrue(answer.isError, `${read.name}: ${answer.text}`)
      assert.notInclude(answer.text, SECRET)
    }
    const listed = yield* call("read_multiple_files", { paths: ["sandbox/ok.txt"] })
    assert.include(listed.text, "fine")
    // On POSIX `\` is a filename character: `private\x` is a file beside `private`, not in it.
    const backslash = yield* call("write_file", { path: "private\\x", content: "beside" })
    assert.isFalse(backslash.isError, backslash.text)
    assert.isTrue(existsSync(path.join(root, "private\\x")))
    const backslashDir = yield* call("create_directory", { path: "private\\d" })
    assert.isFalse(backslashDir.isError, backslashDir.text)
    assert.isTrue(existsSync(path.join(root, "private\\d")))
    // Nothing appeared inside private.
    assert.deepStrictEqual(readdirSync(path.join(root, "private")), ["keep.txt"])
    assert.isFalse(existsSync(path.join(root, "private", "new.txt")))
  })

type PolicyName = keyof ReturnType<typeof policies>

const overHttp = (policy: PolicyName) =>
  Effect.gen(function*() {
    const root = makeTree()
    const { http } = yield* startGateway({ servers: serverConfig(root), policy: policies(root)[policy] })
    const client = yield* httpClient(http.mcpUrl)
    yield* attack(root, callVia(client))
  })

const overStdio = (policy: PolicyName) =>
  Effect.gen(function*() {
    const root = makeTree()
    const config = path.join(root, "interlock.config.json")
    writeFileSync(
      config,
      JSON.stringify({ servers: serverConfig(root), policy: policies(root)[policy], audit: { enabled: false } })
    )
    const client = yield* Effect.acquireRelease(
      Effect.promise(async () => {
        const client = new Client({ name: "paths-host", version: "1.0.0" })
        await client.connect(
          new StdioClientTransport({
            command: NODE,
            args: [BIN, "serve", "--stdio", "--config", config],
            cwd: root,
            stderr: "pipe"
          })
        )
        return client
      }),
      (client) => Effect.promise(() => client.close().catch(() => undefined))
    )
    yield* attack(root, callVia(client))
    // The config file is the one entry the test added beside sandbox and private.
    assert.includeMembers(readdirSync(root), ["interlock.config.json", "sandbox", "private"])
  })

describe("path conditions against server-filesystem", () => {
  it.live("HTTP front, deny within a relative root: nothing lands in private", () => overHttp("denyWithin"), 120_000)
  it.live(
    "HTTP front, allow only outside an absolute root: nothing lands in private",
    () => overHttp("allowOutside"),
    120_000
  )
  it.live("stdio front, deny within a relative root: nothing lands in private", () => overStdio("denyWithin"), 120_000)
  it.live(
    "stdio front, allow only outside an absolute root: nothing lands in private",
    () => overStdio("allowOutside"),
    120_000
  )
})
