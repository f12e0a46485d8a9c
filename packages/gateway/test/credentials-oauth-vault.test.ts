/**
 * `credentials.path` and `credentials.key`: the principals' `auth.oauth` grants in a SQLite file, encrypted, so that a
 * restarted gateway still acts for them without a new sign-in. The file holds no token in the clear; a row moved to
 * another principal, or a gateway with another key, opens nothing (and deletes nothing); a path without a key, or
 * a short key, is a config error naming it.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { DatabaseSync } from "node:sqlite"
import { fromObject } from "../src/config/ConfigLoader.ts"
import { makePlan } from "../src/runtime/PlanBuilder.ts"
import { callTool } from "./credential-harness.ts"
import { connect, gatewayOver, linkIn, type RemoteWorld, remoteWorld } from "./oauth-connect.ts"

const KEY = "a-credentials-key-of-at-least-32-chars"
const OTHER_KEY = "another-credentials-key-of-32-chars!!"

/** A gateway with its grants at `file` under `key`, alive for `body` only (its scope closes after). */
const withGateway = <A>(
  world: RemoteWorld,
  file: string,
  key: string,
  body: (hosts: Effect.Success<ReturnType<typeof gatewayOver>>) => Effect.Effect<A>
) =>
  Effect.scoped(
    Effect.flatMap(
      gatewayOver(world, { credentials: { path: file, key: "env:VAULT_KEY" } }, { VAULT_KEY: key }),
      body
    )
  )

describe("auth.oauth grants at rest", () => {
  it.live("a restarted gateway still acts for alice; no token in the file; a moved row or another key opens none", () =>
    Effect.gen(function*() {
      const world = yield* remoteWorld
      const file = path.join(mkdtempSync(path.join(tmpdir(), "interlock-vault-")), "grants.db")
      const token = yield* withGateway(world, file, KEY, ({ alice }) =>
        Effect.gen(function*() {
          const refusal = yield* callTool(alice, "whoami", { tag: "a0" })
          yield* connect(linkIn(refusal.text), world.auth, "alice@idp")
          const answer = yield* callTool(alice, "whoami", { tag: "a1" })
          assert.strictEqual(answer.text, "alice@idp:a1")
          return world.downstream.calls[0]!.authorization!.replace("Bearer ", "")
        }))
      // Encrypted at rest: neither token is in the file (nor its WAL) in the clear.
      const bytes = ["", "-wal"].map((suffix) => {
        try {
          return readFileSync(`${file}${suffix}`).toString("latin1")
        } catch {
          return ""
        }
      }).join("")
      assert.notInclude(bytes, token)
      assert.notInclude(bytes, token.slice(0, 40))

      // After a restart, alice's grant is still hers: no sign-in, the same person downstream.
      yield* withGateway(world, file, KEY, ({ alice }) =>
        Effect.gen(function*() {
          const answer = yield* callTool(alice, "whoami", { tag: "a2" })
          assert.deepStrictEqual([answer.isError, answer.text], [false, "alice@idp:a2"])
        }))

      // Another key opens nothing, and deletes nothing: the right key still works afterwards.
      yield* withGateway(world, file, OTHER_KEY, ({ alice }) =>
        Effect.gen(function*() {
          const answer = yield* callTool(alice, "whoami", { tag: "a3" })
          assert.isTrue(answer.isError)
          assert.include(answer.text, "has not connected this server")
        }))
      yield* withGateway(
        world,
        file,
        KEY,
        ({ alice }) =>
          Effect.map(
            callTool(alice, "whoami", { tag: "a4" }),
            (answer) => assert.strictEqual(answer.text, "alice@idp:a4")
          )
      )

      // Alice's row moved to bob (a write to the file): it opens for neither.
      const db = new DatabaseSync(file)
      db.prepare("UPDATE grants SET principal = 'bob' WHERE principal = 'alice'").run()
      db.close()
      yield* withGateway(world, file, KEY, ({ alice, bob }) =>
        Effect.gen(function*() {
          for (const host of [alice, bob]) {
            const answer = yield* callTool(host, "whoami", { tag: "moved" })
            assert.isTrue(answer.isError, answer.text)
          }
        }))
      assert.deepStrictEqual(world.downstream.calls.map((c) => c.tag), ["a1", "a2", "a4"])
    }))

  it.effect("credentials.path needs credentials.key, of at least 32 characters", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<[Record<string, unknown>, string]> = [
        [{ path: "grants.db" }, "must be set with credentials.path"],
        [{ path: "grants.db", key: "short" }, "at least 32 characters"],
        [{ path: "grants.db", key: "env:NOT_SET" }, "NOT_SET"]
      ]
      for (const [credentials, detail] of cases) {
        const loaded = yield* fromObject({ servers: {}, credentials }, process.cwd())
        const plan = makePlan(loaded, { env: {} })
        assert.isTrue("path" in plan && plan.path === "credentials.key", JSON.stringify(plan))
        assert.include((plan as { detail: string }).detail, detail)
      }
    }))
})
