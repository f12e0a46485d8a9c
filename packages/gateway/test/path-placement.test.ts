/**
 * `isWithin` against a model of each platform's path resolution, over random segment lists with
 * `.`, `..`, empty segments, `\` and Unicode; symlinks through a fake filesystem; the readings
 * it cannot settle (file: URIs, `~`) and the per-server settings from the config.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigError, HookContext, Policy, ToolCall } from "@interlock/core"
import { Effect, Schema } from "effect"
import { compileArgConditions } from "../src/governance/ArgConditions.ts"
import { isWithin, type LinkReader, type PathSettings } from "../src/governance/PathPlacement.ts"
import { policyLayer } from "../src/governance/PolicyLayer.ts"
import { serverPaths, settingsOf } from "../src/governance/ServerPaths.ts"

const POSIX: PathSettings = { base: "/srv/app", platform: "posix", home: "/home/u", tilde: "either", links: undefined }
const WIN32: PathSettings = {
  base: "C:\\srv\\app",
  platform: "win32",
  home: undefined,
  tilde: "either",
  links: undefined
}

/** The model: a stack of segments from the base; `..` pops (never past the root); absolute restarts. */
const resolveModel = (
  base: ReadonlyArray<string>,
  absolute: boolean,
  segments: ReadonlyArray<string>,
  fold: (s: string) => string
) => {
  const stack = absolute ? [] : [...base]
  for (const segment of segments) {
    if (segment === "" || segment === ".") continue
    if (segment === "..") stack.pop()
    else stack.push(segment)
  }
  return stack.map(fold)
}

const startsWith = (stack: ReadonlyArray<string>, prefix: ReadonlyArray<string>) =>
  stack.length >= prefix.length && prefix.every((segment, index) => stack[index] === segment)

const Segment = Schema.Literals([
  ".",
  "..",
  "",
  "\\",
  "a\\b",
  "private",
  "PRIVATE",
  "privé",
  "prive\u0301",
  "sandbox",
  "x",
  "日本",
  "private.",
  "private "
])

describe("isWithin on POSIX", () => {
  it.effect.prop("agrees with the model: `\\` is a filename character, `.`/`..`/empty resolve, names compare in NFC", [
    Schema.Array(Segment)
  ], ([segments]) =>
    Effect.sync(() => {
      const value = segments.join("/")
      const fold = (s: string) => s.normalize("NFC")
      const stack = resolveModel(["srv", "app"], value.startsWith("/"), value.split("/"), fold)
      const expected = startsWith(stack, ["srv", "app", "private"].map(fold))
      assert.strictEqual(isWithin(value, "private", POSIX), expected, value)
      assert.strictEqual(isWithin(value, "/srv/app/private", POSIX), expected, value)
    }))

  it("the reviewed bypasses are inside; `private\\x` is beside private", () => {
    for (
      const value of [
        "private/p.txt",
        "./private/p.txt",
        "sandbox/../private/p.txt",
        "/srv/app/private",
        "sandbox//..//private/"
      ]
    ) {
      assert.isTrue(isWithin(value, "private", POSIX), value)
    }
    assert.isFalse(isWithin("private\\x", "private", POSIX))
    assert.isFalse(isWithin("privateer/x", "private", POSIX))
    assert.isTrue(isWithin("anything", "/", POSIX))
  })
})

describe("isWithin on win32", () => {
  it.effect.prop("agrees with the model: `\\` and `/` separate, case and trailing dots or spaces do not count", [
    Schema.Array(Segment),
    Schema.Boolean
  ], ([segments, slash]) =>
    Effect.sync(() => {
      const names = ["sandbox", ...segments.flatMap((s) => s.split("\\"))]
      const value = names.join(slash ? "/" : "\\")
      const fold = (s: string) => s.normalize("NFC").replace(/[. ]+$/, "").toLowerCase()
      const stack = resolveModel(["c:", "srv", "app"], false, names, fold)
      const expected = startsWith(stack, ["c:", "srv", "app", "private"])
      assert.strictEqual(isWithin(value, "private", WIN32), expected, value)
      assert.strictEqual(isWithin(value, "c:/SRV/app/Private", WIN32), expected, value)
    }))

  it("drive letters matter; device paths and other drives' relative paths are not placed", () => {
    assert.isTrue(isWithin("private\\x", "private", WIN32))
    assert.isTrue(isWithin("c:\\srv\\app\\PRIVATE\\x", "private", WIN32))
    assert.isFalse(isWithin("D:\\srv\\app\\private\\x", "private", WIN32))
    assert.isUndefined(isWithin("\\\\?\\C:\\srv\\app\\private\\x", "private", WIN32))
    assert.isUndefined(isWithin("D:private\\x", "private", WIN32))
  })

  it("a segment of 200,000 trailing dots and spaces is trimmed as Windows does (a loop, not a quadratic regex)", () => {
    const tail = ". ".repeat(100_000)
    assert.isTrue(isWithin(`private${tail}\\x`, "private", WIN32))
    assert.isFalse(isWithin(`sub\\${".".repeat(200_000)}x`, "private", WIN32))
  })
})

/** A fake filesystem: the existing entries, and symlinks by path. */
const fakeLinks = (present: ReadonlyArray<string>, links: Readonly<Record<string, string>>): LinkReader => ({
  kind: (
    absolute
  ) => (absolute in links ? "link" : present.includes(absolute) || absolute === "/" ? "present" : "missing"),
  readlink: (absolute) => links[absolute]
})

describe("isWithin through symlinks", () => {
  const fs = fakeLinks(["/srv", "/srv/app", "/srv/app/sandbox", "/srv/app/private"], {
    "/srv/app/sandbox/link": "../private",
    "/srv/app/sandbox/dangle": "../private/new.txt",
    "/srv/app/sandbox/loop": "loop2",
    "/srv/app/sandbox/loop2": "loop"
  })
  const settings: PathSettings = { ...POSIX, links: fs }

  it("a not-yet-existing file under a symlinked directory, and a dangling symlink, are judged where they land", () => {
    assert.isTrue(isWithin("sandbox/link/p.txt", "private", settings))
    assert.isTrue(isWithin("sandbox/link", "private", settings))
    assert.isTrue(isWithin("sandbox/dangle", "private", settings))
    assert.isFalse(isWithin("sandbox/link/p.txt", "private", POSIX))
    assert.isFalse(isWithin("sandbox/other/p.txt", "private", settings))
  })

  it("`..` after a symlink reads two ways (lexical and the kernel's): undecided; a loop is undecided", () => {
    assert.isUndefined(isWithin("sandbox/link/../private/p.txt", "private", settings))
    assert.isUndefined(isWithin("sandbox/loop/x", "private", settings))
  })
})

describe("readings the gateway cannot settle alone", () => {
  it("a file: URI is placed as a URI and as a relative name; they disagree about private", () => {
    assert.isUndefined(isWithin("file:///srv/app/private/p.txt", "private", POSIX))
    assert.isFalse(isWithin("file:///elsewhere/p.txt", "private", POSIX))
    assert.isUndefined(isWithin("file://host/share/x", "private", POSIX))
  })

  it("a leading ~ is read both ways, or as the configured home; with no home known it cannot be placed", () => {
    assert.isUndefined(isWithin("~/../../srv/app/private/p.txt", "private", POSIX))
    assert.isFalse(isWithin("~/notes/x", "private", POSIX))
    assert.isUndefined(isWithin("~/x", "/home/u", POSIX))
    assert.isTrue(isWithin("~/x", "/home/u", { ...POSIX, tilde: "expand" }))
    assert.isTrue(isWithin("~/../../srv/app/private/p.txt", "private", { ...POSIX, tilde: "expand" }))
    assert.isUndefined(isWithin("~/x", "private", { ...POSIX, home: undefined }))
    assert.isFalse(isWithin("~x/private", "private", { ...POSIX, home: undefined }))
  })
})

describe("conditions and the policy", () => {
  it.effect.prop(
    "notWithin is the negation of within whenever within is decided",
    [Schema.Array(Segment)],
    ([segments]) =>
      Effect.sync(() => {
        const paths = () => POSIX
        const within = compileArgConditions({ p: { within: "private" } }, "c", paths)
        const outside = compileArgConditions({ p: { notWithin: "private" } }, "c", paths)
        if (typeof within !== "function" || typeof outside !== "function") return assert.fail("did not compile")
        const args = { p: segments.join("/") }
        const inside = within(args)
        assert.strictEqual(outside(args), inside === undefined ? undefined : !inside)
      })
  )

  it("an array of paths: within when every element is, not when none is, undecided when they differ", () => {
    const within = compileArgConditions({ p: { within: "private" } }, "c", () => POSIX)
    const outside = compileArgConditions({ p: { notWithin: "private" } }, "c", () => POSIX)
    if (typeof within !== "function" || typeof outside !== "function") return assert.fail("did not compile")
    const cases: ReadonlyArray<readonly [unknown, boolean | undefined, boolean | undefined]> = [
      [["private/a", "./private/b"], true, false],
      [["sandbox/a", "x"], false, true],
      [["sandbox/a", "sandbox/../private/b"], undefined, undefined],
      [["private/a", 3], undefined, undefined],
      [[], false, true],
      [7, false, true]
    ]
    for (const [value, inside, notInside] of cases) {
      assert.deepStrictEqual(
        [within({ p: value as never }), outside({ p: value as never })],
        [inside, notInside],
        JSON.stringify(value)
      )
    }
  })

  it.effect("an undecided path denies the call even under an allow rule, naming the rule", () =>
    Effect.gen(function*() {
      const config = {
        servers: { remote: { url: "http://127.0.0.1:1/mcp", paths: { base: "/srv" } } },
        policy: {
          default: "deny" as const,
          rules: [{
            id: "sandbox",
            match: "remote/*",
            decision: "allow" as const,
            when: { args: { path: { within: "sandbox" } } }
          }]
        }
      }
      const policy = yield* Effect.provide(Effect.service(Policy), policyLayer(config, undefined, "/etc/interlock"))
      const decide = (path: string) =>
        policy.decide(
          new ToolCall({ serverId: "remote", name: "write", args: { path }, callId: "1" }),
          new HookContext({ client: "t", serverId: "remote", assigns: {} })
        )
      assert.strictEqual((yield* decide("sandbox/a.txt"))._tag, "Allow")
      const denied = yield* decide("~/sandbox/a.txt")
      assert.deepStrictEqual([denied._tag, denied._tag === "Deny" && denied.reason], [
        "Deny",
        "the condition of rule sandbox failed"
      ])
    }))

  it("matches runs on RE2: a backreference or a lookahead is a ConfigError naming the rule's path", () => {
    for (const pattern of ["(a)\\1", "(?=a)b"]) {
      const error = compileArgConditions({ q: { matches: pattern } }, "policy.rules[2].when.args")
      assert.instanceOf(error, ConfigError)
      assert.strictEqual((error as ConfigError).path, "policy.rules[2].when.args.q.matches")
    }
    const linear = compileArgConditions({ q: { matches: "^(a+)+$" } }, "p")
    assert.isFunction(linear)
    if (typeof linear === "function") assert.isFalse(linear({ q: `${"a".repeat(5_000)}!` }))
  })
})

describe("per-server path settings", () => {
  const host = { platform: "posix" as const, cwd: "/gateway", home: "/home/g" }

  it(
    "a stdio server: its cwd, symlinks resolved, its HOME; an HTTP server: the gateway's cwd, no " +
      "symlinks, no home",
    () => {
      const stdio = settingsOf("fs", { command: "x", cwd: "work", env: { HOME: "/home/s" } }, "/etc/conf", host)
      assert.deepStrictEqual(
        stdio instanceof ConfigError ? stdio : [stdio.base, stdio.platform, stdio.home, stdio.links !== undefined],
        ["/etc/conf/work", "posix", "/home/s", true]
      )
      const http = settingsOf("web", { url: "http://127.0.0.1:1/mcp" }, "/etc/conf", host)
      assert.deepStrictEqual(http instanceof ConfigError ? http : [http.base, http.home, http.links], [
        "/gateway",
        undefined,
        undefined
      ])
      const based = settingsOf(
        "web",
        { url: "http://127.0.0.1:1/mcp", paths: { base: "data", resolveSymlinks: true, home: "/home/w" } },
        "/etc/conf",
        host
      )
      assert.deepStrictEqual(
        based instanceof ConfigError ? based : [based.base, based.links !== undefined, based.home, based.tilde],
        ["/etc/conf/data", true, "/home/w", "expand"]
      )
      assert.strictEqual(stdio instanceof ConfigError ? stdio : stdio.tilde, "either")
    }
  )

  it("a server on another platform needs an absolute base of its own and cannot resolve symlinks", () => {
    const cases: ReadonlyArray<readonly [Record<string, unknown>, string]> = [
      [{ platform: "win32" }, "servers.w.paths.base"],
      [{ platform: "win32", base: "relative\\dir" }, "servers.w.paths.base"],
      [{ platform: "win32", base: "C:\\srv", resolveSymlinks: true }, "servers.w.paths.resolveSymlinks"],
      [{ platform: "win32", base: "C:\\srv", home: "~" }, "servers.w.paths.home"]
    ]
    for (const [paths, at] of cases) {
      const error = settingsOf("w", { url: "http://127.0.0.1:1/mcp", paths }, "/etc/conf", host)
      assert.instanceOf(error, ConfigError)
      assert.strictEqual((error as ConfigError).path, at)
    }
    const ok = settingsOf(
      "w",
      { url: "http://127.0.0.1:1/mcp", paths: { platform: "win32", base: "C:\\srv" } },
      "/etc/conf",
      host
    )
    assert.deepStrictEqual(ok instanceof ConfigError ? ok : [ok.base, ok.platform], ["C:\\srv", "win32"])
  })

  it("calls to an unconfigured server use the gateway's defaults", () => {
    const paths = serverPaths({ servers: {} }, "/etc/conf", host)
    assert.deepStrictEqual(paths instanceof ConfigError ? paths : [paths("nope").base, paths(undefined).links], [
      process.cwd(),
      undefined
    ])
  })
})
