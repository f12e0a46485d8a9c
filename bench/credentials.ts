/**
 * `npm run bench -- credentials`: the credential step of a call (CredentialBroker.prepare) for a perPrincipal secret
 * and an auth.oauth grant read from `credentials.path`, beside a static token's, in µs per call (`addedUs`). Then
 * whole gateway calls over HTTP (credentials-gateway): to a static token's server, the oauth grant's and a
 * perPrincipal one's (both with per-principal sessions), p50 and the oauth one's difference (`addedMs`).
 */
import { Principal } from "@interlock/core"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Effect, Exit, Scope } from "effect"
import { spawn } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { fromObject } from "../packages/gateway/src/config/ConfigLoader.ts"
import { makeCredentialBroker } from "../packages/gateway/src/credentials/CredentialBroker.ts"
import { openGrantVault } from "../packages/gateway/src/credentials/GrantVault.ts"
import { makePlan } from "../packages/gateway/src/runtime/PlanBuilder.ts"
import { StateSeal } from "../packages/gateway/src/state/StateSeal.ts"
import { startGateway } from "../packages/gateway/test/e2e.ts"
import { measure, median, report, round3, type SuiteResult } from "./harness.ts"
import { freePort, waitForPort } from "./support/ports.ts"

const KEY = "a-credentials-key-of-at-least-32-chars"
const ECHO_FLOORS = path.join(import.meta.dirname, "support", "echo-floors.ts")
const URL_OF = "http://127.0.0.1:9/mcp"

/** p50 of `count` single timed runs of `op`, in ms. */
const p50Of = async (op: () => Promise<unknown>, count: number): Promise<number> => {
  const times: Array<number> = []
  for (let i = 0; i < count; i++) {
    const start = performance.now()
    await op()
    times.push(performance.now() - start)
  }
  return round3(median(times))
}

/**
 * A gateway call, through a real gateway over HTTP to an SDK echo server: to a server with a static token (the
 * baseline) and to one with auth.oauth and alice's grant in credentials.path. Its `addedMs` is the p50 difference.
 */
const gatewayCalls = async (file: string, scope: Scope.Scope): Promise<SuiteResult> => {
  const port = await freePort()
  const echo = spawn(process.execPath, [ECHO_FLOORS, String(port), "sdk"], { stdio: "ignore" })
  try {
    await waitForPort(port, echo)
    const url = `http://127.0.0.1:${port}/mcp`
    const { http } = await Effect.runPromise(
      Scope.provide(scope)(startGateway({
        servers: {
          fixed: { url, token: "static-token-000000000001" },
          wiki: { url, auth: { oauth: {} } },
          keyed: { url, auth: { perPrincipal: { alice: { headers: { "x-api-key": "k-0001" } } } } }
        },
        policy: { default: "allow" },
        listen: { principals: { alice: { token: "alice-host-token-000001" } } },
        credentials: { path: file, key: "env:GRANTS_KEY" }
      }, { GRANTS_KEY: KEY }))
    )
    const client = new Client({ name: "bench-host", version: "1.0.0" })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(http.mcpUrl), {
        requestInit: { headers: { authorization: "Bearer alice-host-token-000001" } }
      })
    )
    const call = (name: string) => () => client.callTool({ name, arguments: { text: "x" } })
    const check = await client.callTool({ name: "wiki__echo", arguments: { text: "x" } })
    if (check.isError === true) throw new Error(`the oauth call failed: ${JSON.stringify(check.content)}`)
    const result = await measure("credentials-gateway", { name: "gateway-static-token", op: call("fixed__echo") }, [
      { name: "gateway-oauth-grant", op: call("wiki__echo") },
      { name: "gateway-perPrincipal", op: call("keyed__echo") }
    ], { iterations: 300, rounds: 7 })
    const [fixed, wiki] = [await p50Of(call("fixed__echo"), 1_000), await p50Of(call("wiki__echo"), 1_000)]
    await client.close()
    return {
      ...result,
      baseline: { ...result.baseline, p50Ms: fixed },
      cases: result.cases.map((c) => ({ ...c, p50Ms: wiki, addedMs: round3(wiki - fixed), goalMs: 0.05 }))
    }
  } finally {
    echo.kill()
  }
}

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
    const broker = await Effect.runPromise(
      Scope.provide(scope)(makeCredentialBroker(plan)).pipe(Effect.provide(StateSeal.generated))
    )
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
    const calls = await gatewayCalls(file, scope)
    report(calls)
    console.log(`  a call with the cached oauth grant adds ${calls.cases[0]!.addedMs} ms p50 over the static token`)
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
}
