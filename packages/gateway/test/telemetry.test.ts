import { assert, describe, it } from "@effect/vitest"
import { MetricNames } from "@interlock/core"
import { Effect } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { echoServer, httpClient, startGateway } from "./e2e.ts"

/** A small OTLP/HTTP receiver on 127.0.0.1:0 that keeps every body it gets, by path. */
const receiver = Effect.acquireRelease(
  Effect.promise(() =>
    new Promise<{ url: string; bodies: Array<{ path: string; body: string }>; close: () => void }>((resolve) => {
      const bodies: Array<{ path: string; body: string }> = []
      const server = createServer((req, res) => {
        let body = ""
        req.setEncoding("utf8")
        req.on("data", (chunk: string) => (body += chunk))
        req.on("end", () => {
          bodies.push({ path: req.url ?? "", body })
          res.writeHead(200, { "content-type": "application/json" }).end("{}")
        })
      })
      server.listen(
        0,
        "127.0.0.1",
        () =>
          resolve({
            url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
            bodies,
            close: () => server.close()
          })
      )
    })
  ),
  (r) => Effect.sync(() => r.close())
)

const SECRET_ARG = "ARGUMENT-VALUE-7f3a9"
const SECRET_WORD = "RESULTWORD"

describe("telemetry", () => {
  it.live(
    "exports spans and metrics over OTLP/HTTP and serves /metrics, with no argument or result value in either",
    () =>
      Effect.gen(function*() {
        const otlp = yield* receiver
        const { http } = yield* startGateway({
          servers: { echo: echoServer },
          policy: { default: "allow", rules: [{ match: "echo/write_file", decision: "deny" }] },
          telemetry: { otlp: otlp.url, exportIntervalMs: 100 }
        })
        const client = yield* httpClient(http.mcpUrl)
        yield* Effect.promise(() =>
          client.callTool({ name: "echo", arguments: { text: `${SECRET_ARG} ${SECRET_WORD}` } })
        )
        yield* Effect.promise(() =>
          client.callTool({ name: "write_file", arguments: { path: SECRET_ARG, content: SECRET_WORD } })
        )
        const has = (path: string, needle: string) =>
          otlp.bodies.some((b) => b.path === path && b.body.includes(needle))
        for (
          let i = 0;
          i < 100 && !(has("/v1/traces", "interlock.callTool") && has("/v1/metrics", MetricNames.calls));
          i++
        ) {
          yield* Effect.sleep("100 millis")
        }
        assert.isTrue(has("/v1/traces", "interlock.callTool"), "a call span was exported")
        assert.isTrue(has("/v1/traces", "interlock.tool"), "spans carry the tool attribute")
        assert.isTrue(has("/v1/metrics", MetricNames.calls), "the calls counter was exported")
        const metrics = yield* Effect.promise(() =>
          fetch(http.consoleUrl.replace(/\/$/, "/metrics")).then((res) => res.text())
        )
        assert.match(metrics, new RegExp(`${MetricNames.calls}\\{[^}]*outcome="ok"[^}]*\\} \\d+`))
        assert.match(metrics, /outcome="denied"/)
        for (const { body } of otlp.bodies) {
          assert.notInclude(body, SECRET_ARG)
          assert.notInclude(body, SECRET_WORD)
        }
        assert.notInclude(metrics, SECRET_ARG)
        assert.notInclude(metrics, SECRET_WORD)
      }),
    60_000
  )
})
