/**
 * For leak tests: the secret-server fixture as a stdio server config, and host clients that record
 * everything they receive (raw bytes and every JSON-RPC message) over the gateway's HTTP front or
 * its stdio front (serveStdio on in-process streams), plus a logger that records the gateway's logs.
 */
import {
  Client,
  type JSONRPCMessage,
  ReadBuffer,
  serializeMessage,
  StreamableHTTPClientTransport,
  type Transport
} from "@modelcontextprotocol/client"
import { Effect, Logger } from "effect"
import * as path from "node:path"
import { PassThrough } from "node:stream"
import { Gateway, type GatewayShape } from "../src/runtime/Gateway.ts"
import { serveStdio } from "../src/serve/StdioFront.ts"
import { NODE } from "./e2e.ts"

/** The secret-server fixture as a stdio server config. */
export const secretServer = { command: NODE, args: [path.join(import.meta.dirname, "fixtures", "secret-server.ts")] }

/** Everything one host received. */
export interface Received {
  /** The bytes as they arrived (HTTP bodies, SSE included; stdio output). */
  readonly raw: Array<string>
  /** Every JSON-RPC message (results, errors, notifications, requests). */
  readonly messages: Array<JSONRPCMessage>
}

/** A transport that records every message it delivers to the client. */
class Recording implements Transport {
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: Transport["onmessage"]
  readonly inner: Transport
  readonly received: Received

  constructor(inner: Transport, received: Received) {
    this.inner = inner
    this.received = received
    inner.onmessage = (message, extra) => {
      received.messages.push(message)
      this.onmessage?.(message, extra)
    }
    inner.onclose = () => this.onclose?.()
    inner.onerror = (error) => this.onerror?.(error)
  }

  start(): Promise<void> {
    return this.inner.start()
  }

  send(message: JSONRPCMessage, options?: Parameters<Transport["send"]>[1]): Promise<void> {
    return this.inner.send(message, options)
  }

  close(): Promise<void> {
    return this.inner.close()
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version)
  }
}

/** A client transport over a pair of streams: what the host writes and what the gateway answers. */
class StreamTransport implements Transport {
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: ((message: JSONRPCMessage) => void) | undefined
  private readonly buffer = new ReadBuffer()
  readonly input: PassThrough
  readonly output: PassThrough
  readonly raw: Array<string>

  constructor(input: PassThrough, output: PassThrough, raw: Array<string>) {
    this.input = input
    this.output = output
    this.raw = raw
  }

  start(): Promise<void> {
    this.output.on("data", (chunk: Buffer) => {
      this.raw.push(chunk.toString("utf8"))
      this.buffer.append(chunk)
      while (true) {
        const message = this.buffer.readMessage()
        if (message === null) return
        this.onmessage?.(message)
      }
    })
    this.output.once("end", () => this.onclose?.())
    return Promise.resolve()
  }

  send(message: JSONRPCMessage): Promise<void> {
    this.input.write(serializeMessage(message))
    return Promise.resolve()
  }

  close(): Promise<void> {
    this.input.end()
    this.onclose?.()
    return Promise.resolve()
  }
}

const connected = (transport: Transport, options: ConstructorParameters<typeof Client>[1] = {}) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name: "leak-host", version: "1.0.0" }, {
        capabilities: { sampling: {}, elicitation: { form: {} } },
        ...options
      })
      // The host answers a server's own requests (what it was asked is recorded with every other message).
      client.setRequestHandler(
        "sampling/createMessage",
        () => ({ role: "assistant", content: { type: "text", text: "summary" }, model: "test" })
      )
      client.setRequestHandler("elicitation/create", () => ({ action: "decline" }))
      await client.connect(transport)
      return client
    }),
    (client) => Effect.promise(() => client.close().catch(() => undefined))
  )

/** A fetch that keeps a copy of every response body as it streams. */
const recordingFetch = (raw: Array<string>): typeof fetch => async (input, init) => {
  const response = await fetch(input, init)
  if (response.body === null) return response
  const [mine, theirs] = response.body.tee()
  void (async () => {
    const decoder = new TextDecoder()
    for await (const chunk of theirs) raw.push(decoder.decode(chunk, { stream: true }))
  })().catch(() => undefined)
  return new Response(mine, { status: response.status, statusText: response.statusText, headers: response.headers })
}

/** A recording host client over Streamable HTTP. */
export const recordingHttpClient = (url: string) =>
  Effect.gen(function*() {
    const received: Received = { raw: [], messages: [] }
    const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: recordingFetch(received.raw) })
    const client = yield* connected(new Recording(transport, received))
    return { client, received }
  })

/** A recording host client over Streamable HTTP that speaks 2026-07-28 (pinned: no fallback to 2025). */
export const recordingModernHttpClient = (url: string) =>
  Effect.gen(function*() {
    const received: Received = { raw: [], messages: [] }
    const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: recordingFetch(received.raw) })
    const client = yield* connected(new Recording(transport, received), {
      versionNegotiation: { mode: { pin: "2026-07-28" } }
    })
    return { client, received }
  })

/**
 * A recording host client over the gateway's stdio front (serveStdio on in-process streams, run in the scope); `modern`
 * pins 2026-07-28.
 */
export const recordingStdioClient = (gateway: GatewayShape, modern = false) =>
  Effect.gen(function*() {
    const received: Received = { raw: [], messages: [] }
    const input = new PassThrough()
    const output = new PassThrough()
    yield* Effect.forkScoped(serveStdio({ input, output }).pipe(Effect.provideService(Gateway, gateway)))
    const options = modern ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } as const : {}
    const client = yield* connected(new Recording(new StreamTransport(input, output, received.raw), received), options)
    return { client, received }
  })

/** Runs `body` with every log line (message, annotations and cause) recorded into `lines`. */
export const recordingLogs = <A, E, R>(lines: Array<string>, body: Effect.Effect<A, E, R>) =>
  Effect.provide(
    body,
    Logger.layer([
      Logger.make((entry) => void lines.push(JSON.stringify({ message: entry.message, cause: String(entry.cause) })))
    ])
  )
