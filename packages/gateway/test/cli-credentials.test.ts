/**
 * `auth.oauth` with `credentials.path` through the installed CLI: a real `interlock serve`, alice connected in the
 * browser flow, `interlock credentials list` showing her grant and no token, a kill -9 that loses nothing (the next
 * gateway acts for her at once), and `interlock credentials revoke` taking her grant from the running gateway.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import * as path from "node:path"
import { cliIn, serveHttp } from "./cli-process.ts"
import { callTool, hostClient } from "./credential-harness.ts"
import { connect, linkIn, remoteWorld, STATE_KEY, TOKENS } from "./oauth-connect.ts"

const KEY = "a-credentials-key-of-at-least-32-chars"

describe("interlock check of auth.oauth servers", () => {
  it.live("says which authorization server each names, or that its discovery failed", () =>
    Effect.gen(function*() {
      const world = yield* remoteWorld
      const { cli, writeConfig } = cliIn("interlock-cli-oauth-check-")
      const file = writeConfig("interlock.config.json", {
        servers: {
          remote: { url: world.downstream.url, auth: { oauth: {} } },
          gone: { url: "http://127.0.0.1:9/mcp", auth: { oauth: {} } }
        },
        policy: { default: "allow" }
      })
      const checked = yield* cli(["check", "--config", file])
      assert.strictEqual(checked.code, 0, checked.stderr)
      const lines = checked.stdout.split("\n")
      assert.include(lines, "OAuth discovery:")
      assert.include(lines, `  remote  authorization server ${world.auth.issuer}`)
      assert.isTrue(
        lines.some((line) => /^ {2}gone {2}discovery failed \(.+\): principals cannot connect it$/.test(line))
      )
    }))
})

describe("interlock credentials, and grants across kill -9", () => {
  it.live(
    "list shows alice's grant and no token; kill -9 loses it not; revoke takes it from the running gateway",
    () =>
      Effect.gen(function*() {
        const world = yield* remoteWorld
        const { cli, dir, writeConfig } = cliIn("interlock-cli-credentials-")
        const config = {
          servers: { remote: { url: world.downstream.url, auth: { oauth: { scope: "mcp:tools offline_access" } } } },
          policy: { default: "allow" },
          listen: { principals: { alice: { token: TOKENS.alice } } },
          approvals: { stateKey: STATE_KEY },
          credentials: { path: "grants.db", key: "env:GRANTS_KEY" },
          audit: { path: ":memory:" }
        }
        const env = { GRANTS_KEY: KEY }
        const file = path.join(dir, "interlock.config.json")
        const serve = () => serveHttp(dir, config, env)

        const first = yield* serve()
        const token = yield* Effect.scoped(Effect.gen(function*() {
          const alice = yield* hostClient(first.url, () => TOKENS.alice)
          const refusal = yield* callTool(alice, "whoami", { tag: "a0" })
          yield* connect(linkIn(refusal.text), world.auth, "alice@idp")
          assert.strictEqual((yield* callTool(alice, "whoami", { tag: "a1" })).text, "alice@idp:a1")
          return world.downstream.calls[0]!.authorization!.replace("Bearer ", "")
        }))

        const listed = yield* cli(["credentials", "list", "--config", file], undefined, env)
        assert.strictEqual(listed.code, 0, listed.stderr)
        const [header, row, ...more] = listed.stdout.trim().split("\n")
        assert.match(header!, /^PRINCIPAL\s+SERVER\s+GRANT\s+OBTAINED\s+STATE$/)
        assert.match(row!, /^alice\s+remote\s+[0-9a-f]{16}\s+\d{4}-\d\d-\d\dT\S+Z\s+ok$/)
        assert.deepStrictEqual(more, [])
        assert.notInclude(listed.stdout + listed.stderr, token)
        assert.notInclude(readFileSync(path.join(dir, "grants.db")).toString("latin1"), token)

        // kill -9, and a new gateway on the same file: alice's next call goes as her, with no sign-in.
        yield* Effect.promise(first.kill)
        const second = yield* serve()
        const alice = yield* hostClient(second.url, () => TOKENS.alice)
        assert.strictEqual((yield* callTool(alice, "whoami", { tag: "a2" })).text, "alice@idp:a2")

        // Revoked from the shell while that gateway runs: her next call is refused unsent, with a new link.
        const revoked = yield* cli(["credentials", "revoke", "--principal", "alice", "--config", file], undefined, env)
        assert.deepStrictEqual([revoked.code, revoked.stdout.trim()], [0, "revoked 1 grant"])
        const after = yield* callTool(alice, "whoami", { tag: "a3" })
        assert.isTrue(after.isError)
        assert.include(after.text, "has not connected this server")
        assert.deepStrictEqual(world.downstream.calls.map((c) => c.tag), ["a1", "a2"])

        // revoke needs a filter; a config without credentials.path says there is nothing to list.
        const bare = yield* cli(["credentials", "revoke", "--config", file], undefined, env)
        assert.notStrictEqual(bare.code, 0)
        assert.include(bare.stderr + bare.stdout, "give --principal, --server or both")
        const memoryOnly = writeConfig("memory.json", { ...config, credentials: undefined })
        const nothing = yield* cli(["credentials", "list", "--config", memoryOnly], undefined, env)
        assert.notStrictEqual(nothing.code, 0)
        assert.include(nothing.stderr + nothing.stdout, "credentials.path: is not set")
      }),
    60_000
  )
})
