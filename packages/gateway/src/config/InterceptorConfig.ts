/**
 * The `interceptors` key of the config: interceptor servers (SEP-1763) whose validators and mutators
 * run as hooks on the gateway's calls, listings, reads and gets. Which of them, on which events, and
 * whether a declared failOpen is honoured (by default it is not: every failure fails closed).
 */
import { Schema } from "effect"

const NonEmpty = Schema.NonEmptyString

/** An interceptor server spawned as a child process, spoken to over stdio. */
export const StdioInterceptorServer = Schema.Struct({
  command: NonEmpty.annotate({ description: "The program to run, for example `npx`." }),
  args: Schema.optionalKey(Schema.Array(Schema.String)),
  env: Schema.optionalKey(Schema.Record(Schema.String, Schema.String)),
  cwd: Schema.optionalKey(Schema.String)
})

/** An interceptor server reached over Streamable HTTP. */
export const HttpInterceptorServer = Schema.Struct({
  url: NonEmpty.annotate({ description: "The server's Streamable HTTP endpoint." }),
  headers: Schema.optionalKey(Schema.Record(Schema.String, Schema.String))
})

/** One interceptor server and how its interceptors run. */
export const InterceptorConfig = Schema.Struct({
  server: Schema.Union([StdioInterceptorServer, HttpInterceptorServer]),
  only: Schema.optionalKey(
    Schema.Array(NonEmpty).annotate({
      description: "Only these of its interceptors (by name); each must be listed by the server. Default: all of them."
    })
  ),
  events: Schema.optionalKey(
    Schema.Array(NonEmpty).annotate({
      description:
        "Only on these events, as the SEP names them (`tools/call`, `tools/list`, `resources/read`, `prompts/get`). " +
        "Default: every event each interceptor hooks."
    })
  ),
  failOpen: Schema.optionalKey(
    Schema.Literals(["never", "as-declared"]).annotate({
      description:
        "`never` (default): an interceptor that fails (crash, timeout, error, junk) fails the call closed, whatever " +
        "it declares; `as-declared`: one that declares failOpen is skipped when it fails."
    })
  )
})

/** One interceptor server as configured. */
export type InterceptorConfig = typeof InterceptorConfig.Type
