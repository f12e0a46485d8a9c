/**
 * `interlock redact --config F --tool S/N`: copies stdin to stdout through the config's redactions for the tool
 * S/N, in bounded memory (RedactStream.ts); the bridge pipes a Bash command's output through it. It fails closed:
 * when the config does not load or the tool is not `server/name`, it reads nothing, prints one line on stderr and
 * exits 2. It imports no effect/cli, so that Cli.ts can run it directly.
 */
import { ConfigError } from "@interlock/core"
import { Cause, Effect, type Option } from "effect"
import { once } from "node:events"
import { compileRedactions, type Redaction, redactionsFor } from "../governance/Redactor.ts"
import { streamRedactor } from "../governance/RedactStream.ts"
import { loadFrom } from "./Shared.ts"

/** The redactions of the config named by `config` (or found) that apply to `tool` (`server/name`). */
export const filterRedactions = (
  config: Option.Option<string>,
  tool: string
): Effect.Effect<ReadonlyArray<Redaction>, ConfigError> =>
  Effect.gen(function*() {
    const slash = tool.indexOf("/")
    if (slash <= 0 || slash === tool.length - 1) {
      return yield* new ConfigError({ path: "--tool", detail: "must be server/name, such as claude/Bash" })
    }
    const loaded = yield* loadFrom(config)
    const redactions = compileRedactions(loaded.config.redact ?? [])
    if (redactions instanceof ConfigError) {
      return yield* redactions
    }
    return redactionsFor(redactions, tool.slice(0, slash), tool.slice(slash + 1))
  })

/** Copies stdin to stdout through `redactions`, waiting for stdout to drain (bounded memory). */
const pipeThrough = async (redactions: ReadonlyArray<Redaction>): Promise<void> => {
  const redactor = streamRedactor(redactions)
  const decoder = new TextDecoder("utf-8")
  const write = async (text: string) => {
    if (text !== "" && !process.stdout.write(text)) await once(process.stdout, "drain")
  }
  for await (const chunk of process.stdin) {
    await write(redactor.push(decoder.decode(chunk as Uint8Array, { stream: true })))
  }
  await write(redactor.push(decoder.decode()) + redactor.end())
}

/** Runs the filter: stdin to stdout redacted; a config error prints one line and exits 2, having read nothing. */
export const redactFilter = (config: Option.Option<string>, tool: string): Effect.Effect<void> =>
  filterRedactions(config, tool).pipe(
    Effect.flatMap((redactions) => Effect.promise(() => pipeThrough(redactions))),
    Effect.catchCause((cause) =>
      Effect.sync(() => {
        const error = Cause.findErrorOption(cause)
        const detail = error._tag === "Some" ? error.value.message : "the filter failed"
        process.stderr.write(`interlock redact: ${detail}; no output is shown\n`)
        process.exitCode = 2
      })
    )
  )
