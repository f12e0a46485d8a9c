/**
 * Reading an `interceptor/invoke` payload: a decoder that answers undefined for what is not of its Schema, the
 * request params the served events share, and the InvalidParams error a payload that is no event's gets.
 */
import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server"
import { Exit, Schema } from "effect"

/** A decoder of `schema` that answers undefined instead of failing. */
export const decoder = <S extends Schema.Decoder<unknown>>(schema: S) => {
  const decode = Schema.decodeUnknownExit(schema)
  return (value: unknown): S["Type"] | undefined => {
    const exit = decode(value)
    return Exit.isSuccess(exit) ? exit.value : undefined
  }
}

/** A tools/call or prompts/get request's params. */
export const Named = decoder(Schema.Struct({ name: Schema.String, arguments: Schema.optional(Schema.JsonObject) }))

/** A resources/read request's params. */
export const Uri = decoder(Schema.Struct({ uri: Schema.String }))

/** The error of an invocation that cannot be run (its message never holds the payload). */
export const invalid = (message: string) => new ProtocolError(ProtocolErrorCode.InvalidParams, message)
