/**
 * What the two HTTP providers share: config validation, the JSON POST over effect/http's
 * HttpClient, and the mapping of failures to effect/ai's AiError (429 with Retry-After in seconds,
 * 5xx, network errors). No error carries the request or the response body: they may quote the
 * prompt, tool results or secrets.
 */
import { ConfigError, JsonText } from "@interlock/core"
import { Duration, Effect, Layer, Redacted, Stream } from "effect"
import { AiError, LanguageModel, Model, type Prompt, type Response, Tool } from "effect/ai"
import { HttpClient, HttpClientRequest, type HttpClientResponse } from "effect/http"
import { type SseReader, streamParts } from "./ProviderStream.ts"

/** Options shared by the providers. */
export interface ProviderConfig {
  /** The API's base URL, for example `https://api.openai.com/v1` or `http://127.0.0.1:8080/v1`. */
  readonly baseUrl: string
  /** The API key, typed as Redacted so no log or error can print it. */
  readonly apiKey?: Redacted.Redacted<string> | undefined
  /** Extra headers sent with every request. */
  readonly headers?: Readonly<Record<string, string>> | undefined
  /** Fields merged into every request body (temperature, max_tokens, ...). */
  readonly body?: Readonly<Record<string, unknown>> | undefined
  /** A last transform of the request body before it is sent. */
  readonly transformBody?: ((body: Record<string, unknown>) => Record<string, unknown>) | undefined
}

/** Validates a provider config; returns the base URL without a trailing slash, or a ConfigError. */
const checkConfig = (provider: string, model: string, config: ProviderConfig): string | ConfigError => {
  const error = (path: string, detail: string) => new ConfigError({ path: `${provider}.${path}`, detail })
  if (typeof model !== "string" || model.length === 0) return error("model", "must be a non-empty string")
  if (typeof config !== "object" || config === null) return error("config", "must be an object")
  let url: URL
  try {
    url = new URL(config.baseUrl)
  } catch {
    return error("baseUrl", "must be an absolute http(s) URL")
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return error("baseUrl", "must be an absolute http(s) URL")
  if (config.apiKey !== undefined && !Redacted.isRedacted(config.apiKey)) {
    return error("apiKey", "must be a Redacted string (Redacted.make(key))")
  }
  if (config.headers !== undefined) {
    if (typeof config.headers !== "object" || config.headers === null) {
      return error("headers", "must be a record of strings")
    }
    for (const [name, value] of Object.entries(config.headers)) {
      if (typeof value !== "string") return error(`headers.${name}`, "must be a string")
    }
  }
  if (config.body !== undefined && (typeof config.body !== "object" || config.body === null)) {
    return error("body", "must be an object")
  }
  if (config.transformBody !== undefined && typeof config.transformBody !== "function") {
    return error("transformBody", "must be a function")
  }
  return config.baseUrl.replace(/\/+$/, "")
}

const retryAfter = (value: string | undefined): Duration.Duration | undefined => {
  if (value === undefined) return undefined
  const seconds = Number(value.trim())
  return Number.isFinite(seconds) && seconds >= 0 ? Duration.seconds(seconds) : undefined
}

/** An AiError of a provider's module. */
export const aiError = (module: string, reason: AiError.AiErrorReason, method = "generateText") =>
  AiError.make({ module, method, reason })

/**
 * POSTs JSON and returns the response once its status is a success, or an AiError (its body is
 * drained and dropped). Interruption aborts the request.
 */
export const send = (
  client: HttpClient.HttpClient,
  module: string,
  url: string,
  headers: Record<string, string>,
  body: Record<string, unknown>,
  method = "generateText"
): Effect.Effect<HttpClientResponse.HttpClientResponse, AiError.AiError> =>
  Effect.gen(function*() {
    const request = HttpClientRequest.post(url).pipe(
      HttpClientRequest.setHeaders(headers),
      HttpClientRequest.bodyJsonUnsafe(body)
    )
    const response = yield* client.execute(request).pipe(
      Effect.mapError(() =>
        aiError(
          module,
          new AiError.NetworkError({
            reason: "TransportError",
            method: "POST",
            url,
            description: "the request could not be delivered"
          }),
          method
        )
      )
    )
    const status = response.status
    if (status >= 400) {
      const http = { response: { status, headers: {} } }
      const description = `HTTP ${status}`
      const reason = status === 429
        ? new AiError.RateLimitError({ retryAfter: retryAfter(response.headers["retry-after"]), http })
        : AiError.reasonFromHttpStatus({ status, http, description })
      // Drain the body so the connection can be reused; its content is dropped.
      yield* Effect.ignore(response.text)
      return yield* aiError(module, reason, method)
    }
    return response
  })

/** POSTs JSON and returns the decoded JSON answer, or an AiError. Interruption aborts the request. */
const postJson = (
  client: HttpClient.HttpClient,
  module: string,
  url: string,
  headers: Record<string, string>,
  body: Record<string, unknown>
): Effect.Effect<unknown, AiError.AiError> =>
  Effect.flatMap(send(client, module, url, headers, body), (response) =>
    response.json.pipe(
      Effect.mapError(() =>
        aiError(
          module,
          new AiError.InvalidResponseError({
            description: "the response body is not JSON",
            http: { response: { status: response.status, headers: {} } }
          })
        )
      )
    ))

/** The text of a tool result, as providers send it back. */
export const toolResultText = (
  result: unknown
): string => (typeof result === "string" ? result : JSON.stringify(result) ?? "")

/** The concatenated text parts of a message's content. */
export const textOf = (content: string | ReadonlyArray<Prompt.Part>): string =>
  typeof content === "string" ? content : content.map((part) => (part.type === "text" ? part.text : "")).join("")

/** Parses a tool call's JSON arguments; a string that is not JSON is passed on as is (the loop reports it). */
export const parseArguments = (raw: unknown): unknown => {
  if (typeof raw !== "string") return raw ?? {}
  if (raw.trim() === "") return {}
  try {
    return JsonText.parse(raw)
  } catch {
    return raw
  }
}

/** The request headers: provider headers, then the user's. */
const headersOf = (base: Record<string, string>, config: ProviderConfig): Record<string, string> => ({
  "content-type": "application/json",
  ...base,
  ...config.headers
})

/** Applies the config's extra body fields and transform. */
const finalBody = (body: Record<string, unknown>, config: ProviderConfig): Record<string, unknown> => {
  const merged = config.body === undefined ? body : { ...body, ...config.body }
  return config.transformBody === undefined ? merged : config.transformBody(merged)
}

/** The response-metadata part of an answer whose JSON carries `id` and `model`. */
export const metadataOf = (
  body: { readonly id?: unknown; readonly model?: unknown } | null | undefined
): Response.PartEncoded => ({
  type: "response-metadata",
  id: typeof body?.id === "string" ? body.id : undefined,
  modelId: typeof body?.model === "string" ? body.model : undefined,
  timestamp: undefined
})

/** A usage part in effect/ai's encoded form. */
export const usageOf = (input: unknown, output: unknown) => ({
  inputTokens: {
    total: typeof input === "number" ? input : undefined,
    uncached: undefined,
    cacheRead: undefined,
    cacheWrite: undefined
  },
  outputTokens: { total: typeof output === "number" ? output : undefined, text: undefined, reasoning: undefined }
})

/** What a provider specifies: its wire format. The rest (HTTP, errors, layer) is shared. */
export interface WireFormat {
  /** Names the provider in errors and in effect/ai's ProviderName. */
  readonly module: string
  readonly provider: string
  /** The endpoint, relative to the base URL. */
  readonly path: string
  readonly headers: (config: ProviderConfig) => Record<string, string>
  readonly request: (model: string, options: LanguageModel.ProviderOptions) => Record<string, unknown>
  /** The encoded response parts, or undefined when the answer lacks what the format requires. */
  readonly response: (json: unknown) => Array<Response.PartEncoded> | undefined
  /** Streaming: the request body's extra fields (`stream: true`...) and a fresh reader of one answer's events. */
  readonly stream?: {
    readonly body: Readonly<Record<string, unknown>>
    readonly reader: () => SseReader
  }
}

const makeModel = (wire: WireFormat, model: string, config: ProviderConfig, baseUrl: string) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const headers = headersOf(wire.headers(config), config)
    const url = `${baseUrl}${wire.path}`
    const fail = (reason: AiError.AiErrorReason, method?: string) => aiError(wire.module, reason, method)
    const bodyOf = (options: LanguageModel.ProviderOptions, extra: Readonly<Record<string, unknown>>, method: string) =>
      Effect.try({
        try: () => finalBody({ ...wire.request(model, options), ...extra }, config),
        catch: () => fail(new AiError.InvalidUserInputError({ description: "transformBody failed" }), method)
      })
    const streaming = wire.stream
    const streamHeaders = { ...headers, accept: "text/event-stream" }
    return yield* LanguageModel.make({
      generateText: (options) =>
        bodyOf(options, {}, "generateText").pipe(
          Effect.flatMap((body) => postJson(client, wire.module, url, headers, body)),
          Effect.flatMap((json) => {
            const parts = wire.response(json)
            return parts === undefined
              ? Effect.fail(
                fail(new AiError.InvalidResponseError({ description: "the answer does not match the wire format" }))
              )
              : Effect.succeed(parts)
          })
        ),
      streamText: (options) =>
        streaming === undefined
          ? Stream.fail(
            fail(new AiError.UnknownError({ description: "streaming is not supported by this provider" }), "streamText")
          )
          : Stream.unwrap(
            Effect.map(
              Effect.flatMap(
                bodyOf(options, streaming.body, "streamText"),
                (body) => send(client, wire.module, url, streamHeaders, body, "streamText")
              ),
              (response) => streamParts(wire.module, response, streaming.reader())
            )
          )
    })
  })

/** The LanguageModel Layer of a wire format for `model`, with effect/ai's ModelName and ProviderName. */
export const providerLayer = (
  wire: WireFormat,
  model: string,
  config: ProviderConfig
): Layer.Layer<
  LanguageModel.LanguageModel | Model.ModelName | Model.ProviderName,
  ConfigError,
  HttpClient.HttpClient
> => {
  const baseUrl = checkConfig(wire.provider, model, config)
  if (typeof baseUrl !== "string") {
    return Layer.effectContext<LanguageModel.LanguageModel | Model.ModelName | Model.ProviderName, ConfigError, never>(
      Effect.fail(baseUrl)
    )
  }
  return Layer.mergeAll(
    Layer.effect(LanguageModel.LanguageModel, makeModel(wire, model, config, baseUrl)),
    Layer.succeed(Model.ModelName, model),
    Layer.succeed(Model.ProviderName, wire.provider)
  )
}

/** Adds `tools` and `tool_choice` to a request body, in a provider's shapes; with no tools, adds neither. */
export const withTools = (
  body: Record<string, unknown>,
  options: LanguageModel.ProviderOptions,
  shape: (name: string, description: string | undefined, schema: unknown) => unknown,
  choice: (toolChoice: LanguageModel.ToolChoice<string>) => unknown
): Record<string, unknown> => {
  if (options.tools.length === 0) return body
  body.tools = options.tools.map((tool) => shape(tool.name, Tool.getDescription(tool), Tool.getJsonSchema(tool)))
  body.tool_choice = choice(options.toolChoice)
  return body
}
