/**
 * `auth.perPrincipal`: static secrets per principal (`env:` and `file:` values), by name or role.
 * - HTTP: each principal's requests carry its own headers, on sessions of its own; a real
 *   downstream checks the API key on every request and records who each call came as.
 * - stdio (`sessions: "per-principal"`): each principal's calls go to a process of its own whose
 *   environment holds its secret, bounded by maxSessions.
 * A principal named by no entry (nor by a role it holds) is refused before anything is sent or
 * spawned; concurrent calls never cross; no secret reaches the host, the audit or the logs.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { callTool, capturingLogs, hostClient } from "./credential-harness.ts"
import { apiKeys, startDownstream } from "./downstream-server.ts"
import { NODE, startGateway } from "./e2e.ts"

const KEYS = { alice: "alice-key-SECRET-000001", ops: "ops-key-SECRET-00000002" }
const TOKENS = {
  alice: "alice-host-token-000001",
  bob: "bob-host-token-00000002",
  carol: "carol-host-token-000003",
  dave: "dave-host-token-0000004"
}
const MARK = "SECRET-"
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")
const ENV_SERVER = path.join(import.meta.dirname, "fixtures", "env-server.ts")

const dir = mkdtempSync(path.join(tmpdir(), "interlock-per-principal-"))
writeFileSync(path.join(dir, "ops.key"), `${KEYS.ops}\n`)

const principals = {
  alice: { token: "env:ALICE_TOKEN" },
  bob: { token: "env:BOB_TOKEN", roles: ["ops"] },
  carol: { token: "env:CAROL_TOKEN" },
  dave: { token: "env:DAVE_TOKEN", roles: ["ops"] }
}
const env = {
  ALICE_TOKEN: TOKENS.alice,
  BOB_TOKEN: TOKENS.bob,
  CAROL_TOKEN: TOKENS.carol,
  DAVE_TOKEN: TOKENS.dave,
  ALICE_KEY: KEYS.alice
}

/** Starts a gateway with `servers`, and its four principals' hosts. */
const gatewayWith = (servers: Record<string, unknown>) =>
  Effect.gen(function*() {
    const started = yield* startGateway({
      servers,
      namespace: "never",
      policy: { default: "allow" },
      audit: { path: ":memory:", capture: "full" },
      listen: { principals }
    }, env)
    const hosts = {
      alice: yield* hostClient(started.http.mcpUrl, () => TOKENS.alice),
      bob: yield* hostClient(started.http.mcpUrl, () => TOKENS.bob),
      carol: yield* hostClient(started.http.mcpUrl, () => TOKENS.carol),
      dave: yield* hostClient(started.http.mcpUrl, () => TOKENS.dave)
    }
    return { gateway: started.gateway, hosts }
  })

const perPrincipal = (kind: "headers" | "env", name: string) => ({
  alice: { [kind]: { [name]: "env:ALICE_KEY" } },
  "role:ops": { [kind]: { [name]: `file:${path.join(dir, "ops.key")}` } }
})

describe("auth.perPrincipal over HTTP", () => {
  it.live(
    "each principal's own header, by name or role, never another's; an unnamed principal is " +
      "refused unsent",
    () => {
      const lines: Array<string> = []
      return capturingLogs(
        lines,
        Effect.gen(function*() {
          const downstream = yield* startDownstream(
            apiKeys("x-api-key", { [KEYS.alice]: "alice", [KEYS.ops]: "ops" })
          )
          const { gateway, hosts } = yield* gatewayWith({
            api: { url: downstream.url, auth: { perPrincipal: perPrincipal("headers", "x-api-key") } }
          })
          const refused = yield* callTool(hosts.carol, "whoami", { tag: "carol-0" })
          assert.strictEqual(
            refused.text,
            "Interlock: no credential for server api: auth.perPrincipal names neither the principal nor a role it " +
              "holds; the request was not sent"
          )
          assert.deepStrictEqual(downstream.seen, [], "nothing reached the server")
          const who = ["alice", "bob", "dave"] as const
          const answers = yield* Effect.all(
            Array.from({ length: 30 }, (_, i) => {
              const caller = who[(i * 7) % 3]
              return Effect.map(
                callTool(hosts[caller], "whoami", { tag: `${caller}-${i}` }),
                (answer) => ({ caller, answer })
              )
            }),
            { concurrency: "unbounded" }
          )
          for (const { caller, answer } of answers) {
            assert.match(answer.text, new RegExp(`^${caller === "alice" ? "alice" : "ops"}:${caller}-\\d+$`))
          }
          for (const call of downstream.calls) {
            assert.strictEqual(call.subject, call.tag.startsWith("alice-") ? "alice" : "ops", call.tag)
          }
          // Listings and gets go on the principal's own sessions too; carol's are not sent.
          const listed = yield* Effect.promise(() => hosts.bob.listPrompts())
          assert.deepStrictEqual(listed.prompts.map((prompt) => prompt.name), ["hello"])
          const got = yield* Effect.promise(() => hosts.alice.getPrompt({ name: "hello" }))
          assert.deepStrictEqual(got.messages[0].content, { type: "text", text: "hello alice" })
          const before = downstream.seen.length
          const carolTools = yield* Effect.promise(() => hosts.carol.listTools().then(() => "listed", () => "refused"))
          const carolPrompts = yield* Effect.promise(() =>
            hosts.carol.listPrompts().then(() => "listed", () => "refused")
          )
          assert.deepStrictEqual([carolTools, carolPrompts], ["refused", "refused"])
          assert.strictEqual(downstream.seen.length, before, "carol's listings were not sent")
          const rows = yield* gateway.store.query()
          assert.strictEqual(rows.find((row) => row.principal === "carol")?.outcome, "refused")
          const everything = [JSON.stringify(rows), lines.join("\n"), JSON.stringify(answers), refused.text].join("\n")
          assert.notInclude(everything, MARK)
        })
      )
    }
  )
})

describe("auth.perPrincipal over stdio", () => {
  it.live(
    "one process per principal, its secret in the environment, bounded by maxSessions; an unnamed principal " +
      "spawns nothing",
    () => {
      const lines: Array<string> = []
      return capturingLogs(
        lines,
        Effect.gen(function*() {
          const record = path.join(dir, `spawned-${Date.now()}.jsonl`)
          writeFileSync(record, "")
          const { gateway, hosts } = yield* gatewayWith({
            local: {
              command: NODE,
              args: [ENV_SERVER],
              env: { RECORD_FILE: record },
              sessions: "per-principal",
              maxSessions: 2,
              auth: { perPrincipal: perPrincipal("env", "API_KEY") }
            }
          })
          const spawned = () =>
            readFileSync(record, "utf8").split("\n").filter((line) => line !== "").map((line) =>
              JSON.parse(line) as { pid: number; key: string }
            )
          const refused = yield* callTool(hosts.carol, "whoami", { tag: "carol-0" })
          assert.include(refused.text, "no credential for server local: auth.perPrincipal names neither")
          assert.deepStrictEqual(spawned(), [], "no process was started for carol")
          const answers = yield* Effect.all(
            Array.from({ length: 20 }, (_, i) => {
              const caller: "alice" | "bob" = i % 2 === 0 ? "alice" : "bob"
              return Effect.map(
                callTool(hosts[caller], "whoami", { tag: `${caller}-${i}` }),
                (answer) => ({ caller, answer })
              )
            }),
            { concurrency: "unbounded" }
          )
          const pids: Record<"alice" | "bob", Set<string>> = { alice: new Set(), bob: new Set() }
          for (const { caller, answer } of answers) {
            const [key, pid, tag] = answer.text.split(":")
            assert.strictEqual(key, sha256(caller === "alice" ? KEYS.alice : KEYS.ops))
            assert.isTrue(tag.startsWith(`${caller}-`))
            pids[caller].add(pid)
          }
          assert.strictEqual(pids.alice.size, 1)
          assert.strictEqual(pids.bob.size, 1)
          assert.notDeepEqual([...pids.alice], [...pids.bob])
          assert.deepStrictEqual(
            spawned().map((entry) => entry.key).sort(),
            [sha256(KEYS.alice), sha256(KEYS.ops)].sort()
          )
          // dave holds ops too, but is another principal: a third process, past maxSessions 2.
          const full = yield* callTool(hosts.dave, "whoami", { tag: "dave-0" })
          assert.isTrue(full.isError)
          assert.include(full.text, "the server already has its 2 per-principal sessions open (maxSessions)")
          assert.strictEqual(spawned().length, 2)
          const rows = yield* gateway.store.query()
          const everything = [JSON.stringify(rows), lines.join("\n"), refused.text, full.text].join("\n")
          assert.notInclude(everything, MARK)
        })
      )
    }
  )
})
