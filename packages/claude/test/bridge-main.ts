/**
 * A stand-in for `interlock claude-hook --config F` (whose CLI lives in the gateway): reads one
 * event on stdin and answers through Bridge.run. The config file holds a rules policy and a
 * Claude Code settings `hooks` section; audit rows are appended to $AUDIT_FILE as JSON lines.
 */
import { AuditRecord, Hooks, Policy } from "@interlock/core"
import { Effect, Layer, Schema } from "effect"
import { appendFileSync, readFileSync } from "node:fs"
import { AuditSink, Bridge, compileSettings, settingsHooks } from "../src/index.ts"

const config = JSON.parse(readFileSync(process.argv[2], "utf8"))
const stdin = readFileSync(0, "utf8")
const auditFile = process.env.AUDIT_FILE ?? "/dev/null"
const encode = Schema.encodeSync(AuditRecord)

const program = Effect.gen(function*() {
  const hooks = yield* settingsHooks(config.claude)
  const agentHooks = yield* compileSettings(config.claude)
  const layer = Layer.mergeAll(
    Hooks.layer(hooks),
    Policy.rules(config.policy),
    AuditSink.layer((row) => Effect.sync(() => appendFileSync(auditFile, `${JSON.stringify(encode(row))}\n`)))
  )
  return yield* Effect.provide(Bridge.run(stdin, { agentHooks, settings: { hookTimeout: "30 seconds" } }), layer)
}).pipe(
  Effect.catch((error) =>
    Effect.succeed(Bridge.failure(stdin, `Interlock could not load its config: ${error.message}`))
  )
)

const result = await Effect.runPromise(program)
process.stdout.write(result.stdout)
process.stderr.write(result.stderr)
process.exitCode = result.exitCode
