/**
 * `npm run bench -- credentials`: what preparing one call's downstream credential costs (CredentialBroker.prepare,
 * which every call to a server with an auth form runs before it is sent), beside a server with a static token (the
 * baseline): a perPrincipal secret, and an auth.oauth grant read from `credentials.path` (a SQLite row opened with
 * AES-256-GCM on each call, so that a revocation takes effect at once). Each case's `addedUs` is its cost over the
 * baseline, in µs per call: what the form adds to a gateway call on top of the static token's.
 */
import { Principal } from "@interlock/core"
import { Effect, Exit, Scope } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { fromObject } from "../packages/gateway/src/config/ConfigLoader.ts"
import { makeCredentialBroker } from "../packages/gateway/src/credentials/CredentialBroker.ts"
import { openGrantVault } from "../packages/gateway/src/credentials/GrantVault.ts"
import { makePlan } from "../packages/gateway/src/runtime/PlanBuilder.ts"
import { measure, report, round3 } from "./harness.ts"

const KEY = "a-credentials-key-of-at-least-32-chars"
const URL_OF = "http://127.0.0.1:9/mcp"

export default async function run(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), "interlock-bench-credentials-"))
  const file = path.join(dir, "grants.db")
  // One grant of alice's toward `wiki`, as a connection leaves it.
  const vault = openGrantVault(file, KEY)
  const tokens = {
    access_token: "a".repeat(800),
    token_type: "Bearer",
    refresh_token: "r".repeat(64),
    expires_in: 3600
  }
  vault.saveGrant({ principal: "alice", server: "wiki", id: "0123456789abcdef", obtainedAtMs: Date.now(), tokens })
  vault.close()
  const config = {
    servers: {
      fixed: { url: URL_OF, token: "static-token-000000000001" },
      keyed: { url: URL_OF, auth: { perPrincipal: { alice: { headers: { "x-api-key": "alice-key-0001" } } } } },
      wiki: { url: URL_OF, auth: { oauth: {} } }
    },
    listen: { principals: { alice: { token: "alice-host-token-000001" } } },
    credentials: { path: file, key: KEY }
  }
  const scope = Scope.makeUnsafe()
  try {
    const loaded = await Effect.runPromise(fromObject(config, dir))
    const plan = makePlan(loaded, { env: {} })
    if (!("servers" in plan)) throw new Error(plan.message)
    const broker = await Effect.runPromise(Scope.provide(scope)(makeCredentialBroker(plan)))
    const alice = new Principal({ id: "alice" })
    const prepare = (server: string) => broker.prepare(server, alice, "digest")
    const check = await Effect.runPromise(prepare("wiki"))
    if (check.form !== "oauth") throw new Error(`the oauth case prepared ${check.form}`)
    const result = await measure("credentials", { name: "static-token", effect: prepare("fixed") }, [
      { name: "perPrincipal", effect: prepare("keyed") },
      { name: "oauth-grant-from-credentials.path", effect: prepare("wiki") }
    ], { iterations: 5_000 })
    report({
      ...result,
      cases: result.cases.map((c) => ({ ...c, addedUs: round3(c.us - result.baseline.us) }))
    })
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
}
