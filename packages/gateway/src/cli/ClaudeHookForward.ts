/**
 * `interlock claude-hook --gateway URL [--timeout S]`: posts one Claude Code hook event from stdin to a running
 * gateway's `/claude/hook` (the token from INTERLOCK_TOKEN, never the command line) and prints its answer. It
 * fails closed: anything but an answer in time exits 2 with one line on stderr (a block, for every event that can
 * block); never 1. It uses only Node's `http`/`https`, so the bin starts it without effect.
 */
import type { IncomingMessage } from "node:http"

/** The hook's `timeout` assumed when --timeout is not given (seconds), as the local bridge assumes. */
export const DEFAULT_TIMEOUT_S = 60

/**
 * When the client must have answered (ms from its start) for a hook whose settings.json `timeout`
 * is `seconds`: the same rule as @interlock/claude's HookDeadline.deadlineMillis (the timeout less
 * a quarter of it, at least 1 s and at most 5 s), written here because this client loads no package;
 * a test holds the two equal.
 */
export const deadlineMillis = (seconds: number): number =>
  Math.max(0, Math.round(seconds * 1_000 - Math.min(5_000, Math.max(1_000, (seconds * 1_000) / 4))))

/** The env var that holds the gateway's bearer token. */
export const TOKEN_ENV = "INTERLOCK_TOKEN"

/** The largest answer read from the gateway (bytes); a replaced tool output travels in it. */
export const MAX_ANSWER_BYTES = 16 * 1024 * 1024

/** What the hook prints and how it exits. */
export interface ForwardResult {
  readonly stdout: string
  readonly stderr: string
  readonly exitCode: 0 | 2
}

/** The forwarding client's settings, once its arguments are read. */
export interface ForwardOptions {
  readonly gateway: URL
  readonly timeoutMs: number
  readonly token: string | undefined
}

const PREFIX = "interlock claude-hook: "

/** The closed answer: exit 2, one line on stderr ending in what was denied. */
export const denied = (reason: string): ForwardResult => ({
  stdout: "",
  stderr: `${PREFIX}${reason.replace(/\s*\n\s*/g, "; ")}; denied\n`,
  exitCode: 2
})

/** Each flag the client takes (`--flag value` or `--flag=value`), by the option it sets. */
const FLAGS: Record<string, "gateway" | "timeout"> = { "--gateway": "gateway", "--timeout": "timeout" }

/** Whether `args` (after the bin) ask for the forwarding client: `claude-hook` with a --gateway flag. */
export const forwards = (args: ReadonlyArray<string>): boolean =>
  args[0] === "claude-hook" && args.some((arg) => arg === "--gateway" || arg.startsWith("--gateway="))

/** Reads the arguments after `claude-hook`; a string names what is wrong. */
export const parseForward = (
  args: ReadonlyArray<string>,
  env: Record<string, string | undefined>
): ForwardOptions | string => {
  const given: Partial<Record<"gateway" | "timeout", string>> = {}
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]
    const eq = arg.indexOf("=")
    const name = arg.startsWith("--") && eq > 0 ? arg.slice(0, eq) : arg
    const key = FLAGS[name]
    if (key === undefined) return `unknown argument ${JSON.stringify(arg)} (with --gateway it takes only --timeout S)`
    const value = eq > 0 && name !== arg ? arg.slice(eq + 1) : args[++i]
    if (value === undefined || value === "") return `${name} needs a value`
    if (given[key] !== undefined) return `${name} is given twice`
    given[key] = value
  }
  if (given.gateway === undefined) return "--gateway URL is missing"
  let gateway: URL
  try {
    gateway = new URL("/claude/hook", given.gateway)
  } catch {
    return `--gateway ${JSON.stringify(given.gateway)} is not a URL`
  }
  if (gateway.protocol !== "http:" && gateway.protocol !== "https:") {
    return `--gateway must be an http or https URL, not ${gateway.protocol}`
  }
  const seconds = given.timeout === undefined ? DEFAULT_TIMEOUT_S : Number(given.timeout)
  if (!Number.isFinite(seconds) || seconds <= 0) {
    return `--timeout must be a positive number of seconds, not ${JSON.stringify(given.timeout)}`
  }
  const token = env[TOKEN_ENV]
  return { gateway, timeoutMs: deadlineMillis(seconds), token: token === undefined || token === "" ? undefined : token }
}

/** The gateway's answer from its response body; undefined when the body is not one. */
export const answerOf = (body: string): ForwardResult | undefined => {
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    return undefined
  }
  if (typeof parsed !== "object" || parsed === null) return undefined
  const { exitCode, stderr, stdout } = parsed as Record<string, unknown>
  if (typeof stdout !== "string" || typeof stderr !== "string" || typeof exitCode !== "number") return undefined
  // The bridge answers with exit 0 and a JSON answer; anything else (unreadable input) blocks, never exit 1.
  if (exitCode === 0 && stdout !== "") return { stdout, stderr, exitCode: 0 }
  return { stdout: "", stderr: stderr === "" ? `${PREFIX}the gateway gave no answer; denied\n` : stderr, exitCode: 2 }
}

/** The error line of a non-2xx response: its `error` field when it has one. */
const statusReason = (status: number | undefined, body: string): string => {
  try {
    const error = (JSON.parse(body) as { error?: unknown }).error
    if (typeof error === "string") return `the gateway answered ${status}: ${error.slice(0, 200)}`
  } catch {
    // not JSON: the status alone
  }
  return `the gateway answered ${status}`
}

/** Reads a readable to its end, up to `limit` bytes (undefined past it). */
const readAll = (stream: NodeJS.ReadableStream, limit: number): Promise<string | undefined> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    let size = 0
    stream.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size <= limit) chunks.push(chunk)
    })
    stream.on("end", () => resolve(size > limit ? undefined : Buffer.concat(chunks).toString("utf8")))
    stream.on("error", reject)
  })

/** Posts `event` to the gateway; its answer, or the closed answer saying why there is none. */
const post = async (options: ForwardOptions, event: string, signal: AbortSignal): Promise<ForwardResult> => {
  // getBuiltinModule, not `import`: no ESM facade to build (see bin/interlock.js).
  const { request } = process.getBuiltinModule(options.gateway.protocol === "https:" ? "node:https" : "node:http")
  return new Promise((resolve) => {
    const req = request(options.gateway, {
      method: "POST",
      signal,
      agent: false,
      headers: {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(event),
        ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` })
      }
    }, (res: IncomingMessage) => {
      readAll(res, MAX_ANSWER_BYTES).then((body) => {
        if (body === undefined) return resolve(denied(`the gateway's answer is larger than ${MAX_ANSWER_BYTES} bytes`))
        const status = res.statusCode ?? 0
        if (status < 200 || status > 299) return resolve(denied(statusReason(status, body)))
        resolve(answerOf(body) ?? denied("the gateway's answer is not a hook answer"))
      }, () => resolve(denied("the gateway's answer was cut off")))
    })
    req.on(
      "error",
      (error: NodeJS.ErrnoException) =>
        resolve(denied(
          signal.aborted
            ? "the gateway did not answer in time"
            : `cannot reach the gateway at ${options.gateway.origin} (${error.code ?? error.message})`
        ))
    )
    req.end(event)
  })
}

/**
 * Forwards the event on `stdin` as `args` (after `claude-hook`) say; never rejects. The deadline
 * covers reading stdin, connecting and the answer.
 */
export const forward = async (
  args: ReadonlyArray<string>,
  stdin: NodeJS.ReadableStream,
  env: Record<string, string | undefined>
): Promise<ForwardResult> => {
  const options = parseForward(args, env)
  if (typeof options === "string") return denied(options)
  const controller = new AbortController()
  let timer: ReturnType<typeof setTimeout> | undefined
  const deadline = new Promise<ForwardResult>((resolve) => {
    timer = setTimeout(() => {
      controller.abort()
      resolve(denied(`the gateway at ${options.gateway.origin} did not answer within ${options.timeoutMs / 1000} s`))
    }, options.timeoutMs)
  })
  const answer = readAll(stdin, MAX_ANSWER_BYTES).then(
    (
      event
    ) => (event === undefined ? denied("the event on stdin is too large") : post(options, event, controller.signal)),
    () => denied("cannot read the event on stdin")
  )
  try {
    return await Promise.race([answer, deadline])
  } finally {
    clearTimeout(timer)
  }
}

/** The bin's entry: forwards the event on this process's stdin, prints the answer and exits with its code. */
export const main = async (args: ReadonlyArray<string>): Promise<void> => {
  const result = await forward(args, process.stdin, process.env)
  process.stderr.write(result.stderr)
  // Exit once stdout is written: on a deadline the request or stdin may still hold the loop open.
  process.stdout.write(result.stdout, () => process.exit(result.exitCode))
}
