/**
 * Toward servers: the gateway speaks 2026-07-28 to a server that offers it and a 2025 revision to
 * the rest, and a server's own requests (elicitation, sampling) within a call reach exactly the
 * host whose call caused them: asked through that host's session (a 2025 host), or handed to the
 * host as InputRequired with a sealed state and resumed on its retry (a host without a channel).
 */
import { assert, describe, it } from "@effect/vitest"
import { Principal } from "@interlock/core"
import type { Client, ElicitRequest } from "@modelcontextprotocol/client"
import { Cause, Effect, Exit } from "effect"
import { spawn } from "node:child_process"
import * as path from "node:path"
import { HOST_INPUT_KEY, InputRequired } from "../src/calls/InputRound.ts"
import { httpClient, NODE, startGateway } from "./e2e.ts"

const FIXTURE = path.join(import.meta.dirname, "fixtures", "input-server.ts")
const SECRET = "sk-abcdefghijklmnopqrstuvwxyz0123"

/** The fixture over stdio; `--legacy` offers only the 2025 revisions. */
export const inputServer = (...flags: ReadonlyArray<string>) => ({ command: NODE, args: [FIXTURE, ...flags] })

/** The fixture over Streamable HTTP on a free loopback port, ended with the scope. */
export const inputServerOverHttp = Effect.acquireRelease(
  Effect.callback<{ url: string; kill: () => void }, Error>((resume) => {
    const child = spawn(NODE, [FIXTURE, "--http"], { stdio: ["ignore", "pipe", "inherit"] })
    child.stdout.once("data", (chunk: Buffer) => {
      const { port } = JSON.parse(chunk.toString()) as { port: number }
      resume(Effect.succeed({ url: `http://127.0.0.1:${port}/mcp`, kill: () => void child.kill() }))
    })
    child.once("error", (error) => resume(Effect.fail(error)))
  }),
  (server) => Effect.sync(server.kill)
)

const principals = { alice: { token: "alice-token" }, bob: { token: "bob-token" } }
const base = { policy: { default: "allow" }, redact: [{ pattern: "sk-[a-z0-9]{20,}" }], listen: { principals } }

/** A host with the elicitation capability whose answers name `name`; every message it was asked lands in `seen`. */
const elicitingHost = (url: string, token: string, name: string, seen: Array<string>, answer?: (request: ElicitRequest, signal: AbortSignal) => Promise<unknown>) =>
  Effect.tap(httpClient(url, { token, capabilities: { elicitation: { form: {} }, sampling: {} } }), (client: Client) =>
    Effect.sync(() => {
      client.setRequestHandler("elicitation/create", async (request, ctx) => {
        seen.push(String(request.params.message))
        if (answer !== undefined) return (await answer(request, ctx.mcpReq.signal)) as never
        return { action: "accept", content: { name } }
      })
      client.setRequestHandler("sampling/createMessage", async () => {
        seen.push("sampling")
        return { role: "assistant", content: { type: "text", text: `${name}'s model` }, model: "test" }
      })
    }))

const textOf = (result: unknown): string => ((result as { content: Array<{ text?: string }> }).content ?? []).map((block) => block.text ?? "").join("")

describe("a 2026-07-28 server's requests within a call", () => {
  it.live("each server gets its era with no config: 2026-07-28 over stdio and HTTP, legacy for a 2025-only server", () =>
    Effect.scoped(Effect.gen(function*() {
      const http = yield* inputServerOverHttp
      const { gateway } = yield* startGateway({ ...base, servers: { modern: inputServer(), web: { url: http.url }, old: inputServer("--legacy") } })
      for (const id of ["modern", "web", "old"]) yield* gateway.hub.connect(id)
      assert.strictEqual(gateway.hub.status("modern")?.era, "modern/2026-07-28")
      assert.strictEqual(gateway.hub.status("web")?.era, "modern/2026-07-28")
      assert.match(gateway.hub.status("old")?.era ?? "", /^legacy\/2025-/)
    })), 60_000)

  it.live("a 2025 host is asked the server's elicitation within its call, redacted, and the call completes with its answer", () =>
    Effect.scoped(Effect.gen(function*() {
      const { http } = yield* startGateway({ ...base, servers: { modern: inputServer() } })
      const seen: Array<string> = []
      const alice = yield* elicitingHost(http.mcpUrl, "alice-token", "alice", seen)
      const result = yield* Effect.promise(() => alice.callTool({ name: "confirm", arguments: { text: "deploy" } }))
      assert.strictEqual(textOf(result), "deploy confirmed by alice (state state-for-deploy)")
      assert.strictEqual(seen.length, 1)
      assert.notInclude(seen[0], SECRET)
      assert.include(seen[0], "Who confirms deploy?")
    })), 60_000)
})
