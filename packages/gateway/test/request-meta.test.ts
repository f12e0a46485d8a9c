/**
 * A host request's `_meta` through the gateway, on the wire: its W3C trace context makes the
 * gateway's call span a child of the host's span, and the server gets a traceparent of the same
 * trace naming the gateway's span (tracestate and baggage as given), from a 2026-07-28 host and a
 * 2025 host alike; a malformed traceparent is ignored. A 2026-07-28 host's log level is passed on
 * to a 2026-07-28 server and bounds the log messages the host gets for that call, none without one.
 */
import { assert, describe, it } from "@effect/vitest"
import { type Client, LOG_LEVEL_META_KEY } from "@modelcontextprotocol/client"
import { Effect } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import { httpClient, NODE, startGateway } from "./e2e.ts"
import { modernHttpClient } from "./modern-wire.ts"

const FIXTURE = path.join(import.meta.dirname, "fixtures", "meta-server.ts")
const metaServer = (...flags: ReadonlyArray<string>) => ({ command: NODE, args: [FIXTURE, ...flags] })

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
const HOST_SPAN = "00f067aa0ba902b7"
const TRACEPARENT = `00-${TRACE_ID}-${HOST_SPAN}-01`
const TRACE_META = {
  traceparent: TRACEPARENT,
  tracestate: "vendor=opaque-1,other@sys=v2",
  baggage: "user=alice;p=1,tenant=t%201"
}

interface ExportedSpan {
  readonly name: string
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
}

/** A small OTLP/HTTP receiver on 127.0.0.1:0 that keeps the spans it gets. */
const receiver = Effect.acquireRelease(
  Effect.promise(() =>
    new Promise<{ url: string; spans: Array<ExportedSpan>; close: () => void }>((resolve) => {
      const spans: Array<ExportedSpan> = []
      const server = createServer((req, res) => {
        let body = ""
        req.setEncoding("utf8")
        req.on("data", (chunk: string) => (body += chunk))
        req.on("end", () => {
          if (req.url === "/v1/traces") {
            const parsed = JSON.parse(body) as {
              resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<ExportedSpan> }> }>
            }
            for (const resource of parsed.resourceSpans) {
              for (const scope of resource.scopeSpans) spans.push(...scope.spans)
            }
          }
          res.writeHead(200, { "content-type": "application/json" }).end("{}")
        })
      })
      server.listen(0, "127.0.0.1", () =>
        resolve({
          url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
          spans,
          close: () => server.close()
        }))
    })
  ),
  (r) => Effect.sync(() => r.close())
)

const seenMeta = (client: Client, name: string, meta: Record<string, unknown>) =>
  Effect.promise(() =>
    client.callTool({ name, arguments: {}, _meta: meta }).then((result) =>
      JSON.parse((result.content as Array<{ text: string }>)[0].text) as Record<string, string | undefined>
    )
  )

/** The exported call span whose trace is `traceId`, waiting for the exporter. */
const callSpan = (spans: Array<ExportedSpan>, traceId: string) =>
  Effect.gen(function*() {
    for (let i = 0; i < 100; i++) {
      const span = spans.find((s) => s.name === "interlock.callTool" && s.traceId === traceId)
      if (span !== undefined) return span
      yield* Effect.sleep("50 millis")
    }
    return undefined
  })

const tracingGateway = Effect.gen(function*() {
  const otlp = yield* receiver
  const { http } = yield* startGateway({
    servers: { modern: metaServer(), old: metaServer("--legacy") },
    policy: { default: "allow" },
    telemetry: { otlp: otlp.url, exportIntervalMs: 50 }
  })
  return { otlp, url: http.mcpUrl }
})

describe("a host request's _meta through the gateway", () => {
  for (const era of ["2026-07-28", "2025-11-25"] as const) {
    it.live(
      `trace context from a ${era} host joins the host's trace and continues to both kinds of server`,
      () =>
        Effect.gen(function*() {
          const { otlp, url } = yield* tracingGateway
          const host = era === "2026-07-28" ? yield* modernHttpClient(url) : yield* httpClient(url)
          for (const server of ["modern", "old"]) {
            const seen = yield* seenMeta(host, `${server}__meta`, TRACE_META)
            const span = yield* callSpan(otlp.spans, TRACE_ID)
            assert.isDefined(span, "the gateway's call span is in the host's trace")
            assert.strictEqual(span!.parentSpanId, HOST_SPAN, "its parent is the host's span")
            const [version, traceId, parent, flags] = String(seen.traceparent).split("-")
            assert.deepStrictEqual(
              [version, traceId, flags],
              ["00", TRACE_ID, "01"],
              `${server}: the server's traceparent is in the host's trace`
            )
            assert.notStrictEqual(
              parent,
              HOST_SPAN,
              `${server}: the server's parent is the gateway's span, not the host's`
            )
            assert.isTrue(
              otlp.spans.some((s) => s.spanId === parent && s.traceId === TRACE_ID),
              `${server}: the parent the server got is an exported gateway span`
            )
            assert.strictEqual(seen.tracestate, TRACE_META.tracestate)
            assert.strictEqual(seen.baggage, TRACE_META.baggage)
            otlp.spans.length = 0
          }
        }),
      60_000
    )
  }

  it.live(
    "a malformed traceparent (and the tracestate beside it) is ignored: the call goes on in the gateway's own trace",
    () =>
      Effect.gen(function*() {
        const { otlp, url } = yield* tracingGateway
        const host = yield* modernHttpClient(url)
        const bad = `00-${TRACE_ID.toUpperCase()}-${HOST_SPAN}-01`
        const seen = yield* seenMeta(host, "modern__meta", {
          traceparent: bad,
          tracestate: "vendor=x",
          baggage: "ok=1"
        })
        assert.notInclude(String(seen.traceparent), TRACE_ID.toUpperCase())
        assert.notInclude(String(seen.traceparent).toLowerCase(), TRACE_ID, "not taken up in another case either")
        assert.isUndefined(seen.tracestate, "a tracestate without a valid traceparent is dropped")
        assert.strictEqual(seen.baggage, "ok=1", "baggage stands on its own")
        assert.isFalse(otlp.spans.some((s) => s.traceId === TRACE_ID))
      }),
    60_000
  )
})

describe("a 2026-07-28 host's log level", () => {
  /** The levels of the log messages a call of `name` brought the host. */
  const loggedLevels = (client: Client, name: string, meta: Record<string, unknown>) =>
    Effect.promise(async () => {
      const levels: Array<string> = []
      client.setNotificationHandler("notifications/message", (notification) =>
        void levels.push(notification.params.level))
      await client.callTool({ name, arguments: {}, _meta: meta })
      return levels
    })

  it.live("is passed on to a 2026-07-28 server, never to a 2025 one", () =>
    Effect.gen(function*() {
      const { http } = yield* startGateway({
        servers: { modern: metaServer(), old: metaServer("--legacy") },
        policy: { default: "allow" }
      })
      const host = yield* modernHttpClient(http.mcpUrl)
      assert.strictEqual(
        (yield* seenMeta(host, "modern__meta", { [LOG_LEVEL_META_KEY]: "warning" })).logLevel,
        "warning"
      )
      assert.isUndefined((yield* seenMeta(host, "modern__meta", {})).logLevel, "none when the host asked for none")
      assert.isUndefined((yield* seenMeta(host, "old__meta", { [LOG_LEVEL_META_KEY]: "warning" })).logLevel)
    }), 60_000)

  for (const server of ["modern", "old"]) {
    it.live(
      `bounds the log messages of a ${
        server === "modern" ? "2026-07-28" : "2025"
      } server's call, and without one there are none`,
      () =>
        Effect.gen(function*() {
          const { http } = yield* startGateway({
            servers: { [server]: metaServer(...(server === "old" ? ["--legacy"] : [])) },
            policy: { default: "allow" }
          })
          const host = yield* modernHttpClient(http.mcpUrl)
          assert.deepStrictEqual(yield* loggedLevels(host, "logs", { [LOG_LEVEL_META_KEY]: "warning" }), [
            "warning",
            "error"
          ])
          assert.deepStrictEqual(yield* loggedLevels(host, "logs", {}), [])
          assert.deepStrictEqual(yield* loggedLevels(host, "logs", { [LOG_LEVEL_META_KEY]: "debug" }), [
            "debug",
            "info",
            "warning",
            "error"
          ])
        }),
      60_000
    )
  }
})
