/**
 * In stdio mode this process's stdout is the host's message channel, so only the transport may
 * write to it. Claiming stdout hands the transport a private stream onto the real stdout and sends
 * every other write (console.log, console.info, console.debug, Effect's logger, a library's
 * `process.stdout.write`) to stderr instead, redacted. Releasing the claim restores stdout.
 */
import { Effect, type Scope } from "effect"
import { Writable } from "node:stream"
import { type Redaction, redactText } from "../../governance/Redactor.ts"

type Write = typeof process.stdout.write

/** A write to stdout that is not the transport's, sent to stderr after the redactions. */
const toStderr = (redactions: ReadonlyArray<Redaction>): Write =>
  ((
    chunk: string | Uint8Array,
    encoding?: BufferEncoding | ((error?: Error | null) => void),
    callback?: (error?: Error | null) => void
  ) => {
    const text = typeof chunk === "string"
      ? chunk
      : Buffer.from(chunk).toString(typeof encoding === "string" ? encoding : "utf8")
    const done = typeof encoding === "function" ? encoding : callback
    return process.stderr.write(redactText(text, redactions), done)
  }) as Write

/** Claims stdout for the scope's lifetime: the private stream the transport writes to. */
export const claimStdout = (redactions: ReadonlyArray<Redaction>): Effect.Effect<Writable, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const stdout = process.stdout
      const write = stdout.write
      const own = new Writable({
        write: (chunk: Buffer, _encoding, callback) =>
          void write.call(stdout, chunk, undefined, (error?: Error | null) => callback(error ?? null))
      })
      // A failing stdout (the host went away) fails the transport's stream, not the process.
      const fail = (error: Error) => own.destroy(error)
      stdout.on("error", fail)
      stdout.write = toStderr(redactions)
      return { stdout, write, own, fail }
    }),
    ({ fail, stdout, write }) =>
      Effect.sync(() => {
        stdout.write = write
        stdout.off("error", fail)
      })
  ).pipe(Effect.map(({ own }) => own))
