/**
 * What starts a config reload while `interlock serve` runs: SIGHUP, and with `--watch` a change of the config file
 * or its Cedar file, watched through their directories (so a save by rename, or a ConfigMap's `..data` swap, is
 * seen); a burst is one reload, {@link WATCH_DEBOUNCE_MS} after the last. Reloads run one at a time, and triggers
 * during one coalesce into one next reload. A failure like the one before it is not logged again.
 */
import { Effect, FiberHandle, Queue, type Scope, Stream } from "effect"
import { watch } from "node:fs"
import * as path from "node:path"
import { outcomeLine, reload, type Reloadable, type ReloadOutcome, type ReloadSource } from "./ConfigReload.ts"

/** How long the watcher waits after a file's last change before it reloads. */
export const WATCH_DEBOUNCE_MS = 150

/** What asked for a reload. */
export type Trigger = "signal" | "watch"

/** Where triggers wait for the reload loop; a burst of them is one reload. */
export type Triggers = Queue.Queue<Trigger>

/**
 * Takes SIGHUP from now on, for as long as the scope is open (it then no longer ends the process):
 * taken before the gateway is built, a SIGHUP during start-up waits and reloads once it is up.
 */
export const reloadSignals: Effect.Effect<Triggers, never, Scope.Scope> = Effect.gen(function*() {
  const triggers = yield* Queue.sliding<Trigger>(1)
  yield* Effect.acquireRelease(
    Effect.sync(() => {
      const onSignal = () => void Queue.offerUnsafe(triggers, "signal")
      process.on("SIGHUP", onSignal)
      return onSignal
    }),
    (onSignal) => Effect.sync(() => void process.off("SIGHUP", onSignal))
  )
  return triggers
})

/** The files a reload reads: the config, and the Cedar policy file its plan names. */
const watchedFiles = (
  gateway: Reloadable,
  source: ReloadSource
): ReadonlyArray<string> => [
  path.resolve(source.file),
  ...(gateway.plan.cedar === undefined ? [] : [gateway.plan.cedar.file])
]

// A Kubernetes ConfigMap volume updates its files by swapping this symlink in their directory.
const CONFIG_MAP_LINK = "..data"

// One event each time a watched file's directory reports a change under that file's name (or its ConfigMap link).
const fileChanges = (files: ReadonlyArray<string>): Stream.Stream<void> =>
  Stream.callback<void>((queue) =>
    Effect.acquireRelease(
      Effect.sync(() => {
        const byDir = new Map<string, Set<string>>()
        for (const file of files) {
          byDir.set(path.dirname(file), (byDir.get(path.dirname(file)) ?? new Set()).add(path.basename(file)))
        }
        return [...byDir].flatMap(([dir, names]) => {
          try {
            const watcher = watch(dir, { persistent: false }, (_event, name) => {
              if (name === null || name === CONFIG_MAP_LINK || names.has(name.toString())) {
                Queue.offerUnsafe(queue, undefined)
              }
            })
            // A directory that goes away ends its watch; a later reload that names it watches it again.
            watcher.on("error", () => watcher.close())
            return [watcher]
          } catch {
            return []
          }
        })
      }),
      (watchers) =>
        Effect.sync(() => {
          for (const watcher of watchers) watcher.close()
        })
    ), { bufferSize: 1, strategy: "sliding" })

const logOutcome = (outcome: ReloadOutcome, file: string) => {
  const line = outcomeLine(outcome, file)
  return outcome._tag === "Applied" || outcome._tag === "Unchanged" ? Effect.logInfo(line) : Effect.logError(line)
}

/**
 * Serves reloads of `source` into `gateway` for as long as the scope is open: each trigger of
 * {@link reloadSignals}, and file changes when `watchFiles` is set.
 */
export const serveReloads = (
  triggers: Triggers,
  gateway: Reloadable,
  source: ReloadSource,
  watchFiles: boolean
): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function*() {
    const watcher = yield* FiberHandle.make<void, never>()
    let watching = ""
    const watchNow = Effect.suspend(() => {
      const files = watchedFiles(gateway, source)
      if (!watchFiles || files.join("\n") === watching) return Effect.void
      watching = files.join("\n")
      const changes = fileChanges(files).pipe(
        Stream.debounce(WATCH_DEBOUNCE_MS),
        Stream.runForEach(() => Queue.offer(triggers, "watch"))
      )
      return Effect.asVoid(FiberHandle.run(watcher, changes))
    })
    yield* watchNow
    let lastFailure: string | undefined
    const once = (trigger: Trigger) =>
      Effect.gen(function*() {
        const outcome = yield* reload(gateway, source)
        const line = outcomeLine(outcome, source.file)
        const repeated = trigger === "watch" && (outcome._tag === "Unchanged" || line === lastFailure)
        lastFailure = outcome._tag === "Failed" || outcome._tag === "Refused" ? line : undefined
        if (!repeated) yield* logOutcome(outcome, source.file)
        if (outcome._tag === "Applied") yield* watchNow
      })
    yield* Effect.forkScoped(Effect.forever(Effect.flatMap(Queue.take(triggers), once)))
  })
