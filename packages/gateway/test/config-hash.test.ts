import { assert, describe, it } from "@effect/vitest"
import { type Canonical, HookContext, Policy, ToolCall } from "@interlock/core"
import { Effect, Schema } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { AuditStore } from "../src/audit/AuditStore.ts"
import { GatewayCalls, UNROUTED } from "../src/calls/GatewayCalls.ts"
import { configHash, versionOf } from "../src/config/ConfigHash.ts"
import { loadConfig } from "../src/config/ConfigLoader.ts"
import type { Plan } from "../src/config/Plan.ts"
import { planPolicyLayer } from "../src/governance/PolicyLayer.ts"
import { makePlan } from "../src/runtime/PlanBuilder.ts"
import { withGateway } from "./fixtures.ts"

const dir = mkdtempSync(path.join(tmpdir(), "interlock-config-hash-"))

/** The plan of a config file written with `text`. */
const planOfFile = (name: string, text: string) =>
  Effect.gen(function*() {
    const file = path.join(dir, name)
    writeFileSync(file, text)
    const plan = makePlan(yield* loadConfig(file), { env: {} })
    if (!("servers" in plan)) return yield* Effect.fail(plan)
    return plan as Plan
  })

// The same JSON with every object's keys in reverse order.
const reordered = (value: Canonical.Json): Canonical.Json => {
  if (Array.isArray(value)) return value.map(reordered)
  if (typeof value !== "object" || value === null) return value
  return Object.fromEntries(
    Object.entries(value).reverse().map(([key, item]) => [key, reordered(item as Canonical.Json)])
  )
}

const Records = Schema.Record(Schema.String, Schema.Json)

const RULE = { id: "no-write", match: "files/write_file", decision: "deny" }

describe("the config hash", () => {
  it.effect.prop("equal config objects hash the same in any key order; another value hashes apart", [
    Records,
    Schema.String
  ], ([record, text]) =>
    Effect.sync(() => {
      const json = record as { readonly [key: string]: Canonical.Json }
      assert.strictEqual(configHash(reordered(json) as typeof json, undefined), configHash(json, undefined))
      assert.strictEqual(configHash(structuredClone(json), text), configHash(json, text))
      const changed = { ...json, "extra-key": json["extra-key"] === 1 ? 2 : 1 }
      assert.notStrictEqual(configHash(changed, undefined), configHash(json, undefined))
      assert.match(configHash(json, undefined), /^[0-9a-f]{64}$/)
    }))

  it.effect("formatting and comments do not change a config's hash; a changed rule or Cedar file does", () =>
    Effect.gen(function*() {
      const config = { servers: { files: { command: "unused" } }, policy: { default: "allow", rules: [RULE] } }
      const plain = yield* planOfFile("plain.json", JSON.stringify(config))
      const commented = yield* planOfFile(
        "commented.jsonc",
        `// the files server\n{\n  "policy": { "rules": [ { "decision": "deny", "match": "files/write_file", "id": ` +
          `"no-write" } ], "default": "allow" },\n  /* one server */ "servers": { "files": { "command": ` +
          `"unused" } }\n}\n`
      )
      assert.strictEqual(commented.configHash, plain.configHash)
      const changed = yield* planOfFile(
        "changed.json",
        JSON.stringify({ ...config, policy: { default: "allow", rules: [{ ...RULE, decision: "ask" }] } })
      )
      assert.notStrictEqual(changed.configHash, plain.configHash)

      const cedarConfig = JSON.stringify({
        servers: { files: { command: "unused" } },
        policy: { cedar: "policy.cedar" }
      })
      writeFileSync(path.join(dir, "policy.cedar"), "permit(principal, action, resource);\n")
      const first = yield* planOfFile("cedar.json", cedarConfig)
      writeFileSync(path.join(dir, "policy.cedar"), "forbid(principal, action, resource);\n")
      const second = yield* planOfFile("cedar.json", cedarConfig)
      assert.notStrictEqual(second.configHash, first.configHash)
      assert.deepStrictEqual(versionOf(first.configHash), {
        version: first.configHash.slice(0, 12),
        hash: first.configHash
      })
    }))

  it.effect("the Cedar policy in force is the text its plan's hash covers, even if the file changes afterwards", () =>
    Effect.gen(function*() {
      writeFileSync(path.join(dir, "in-force.cedar"), "forbid(principal, action, resource);\n")
      const plan = yield* planOfFile(
        "in-force.json",
        JSON.stringify({ servers: {}, policy: { cedar: "in-force.cedar" } })
      )
      writeFileSync(path.join(dir, "in-force.cedar"), "permit(principal, action, resource);\n")
      const policy = yield* Effect.provide(Effect.service(Policy), planPolicyLayer(plan, dir))
      const decision = yield* policy.decide(
        new ToolCall({ serverId: "files", name: "write_file", args: {}, callId: "c1" }),
        new HookContext({ client: "t", serverId: "files", assigns: {} })
      )
      assert.strictEqual(decision._tag, "Deny")
    }))

  it.effect("a gateway call's row and a refused call's row carry the hash of the config that decided them", () =>
    withGateway(
      { policy: { default: "allow", rules: [RULE] } },
      Effect.gen(function*() {
        const calls = yield* GatewayCalls
        yield* calls.callTool({ serverId: "files", name: "read_file", args: { path: "a" } })
        yield* Effect.exit(calls.callTool({ serverId: "files", name: "write_file", args: { path: "a", content: "x" } }))
        yield* calls.refuse({ serverId: UNROUTED, name: "nope", args: {}, reason: "unknown tool" })
        const rows = yield* (yield* AuditStore).query()
        const expected = configHash({
          servers: { files: { command: "unused" } },
          policy: { default: "allow", rules: [RULE] }
        }, undefined)
        assert.deepStrictEqual(rows.map((row) => [row.outcome, row.configHash]), [["refused", expected], [
          "denied",
          expected
        ], ["ok", expected]])
      })
    ))
})
