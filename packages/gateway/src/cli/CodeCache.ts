/**
 * Runs a CommonJS bundle (an entry and its `./chunk.cjs` files) through V8 code caches made when the process exits,
 * so a cache also holds what the run compiled lazily (Node's compile cache is made at compile time). A cache file is
 * refused unless it is this user's, private, and its SHA-256 covers this Node, the chunk's source and the cache; a
 * refused one compiles from the source. It runs unbundled: Node's builtins come through `process.getBuiltinModule`.
 */

/** The first bytes of a cache file (the format's version is in it). */
const MAGIC = Buffer.from("interlock-code-cache-1\n")

/** A cache file's header: the magic, how many runs have written it (one byte), the SHA-256. */
const HEADER_BYTES = MAGIC.length + 1 + 32

/** How many runs write a chunk's cache, each adding what it compiled (a deny, an allow, a PostToolUse...). */
export const RUNS_THAT_WRITE = 4

/** How many files the cache directory keeps; a write beyond it removes the oldest. */
export const MAX_CACHE_FILES = 64

/** The mode of a cache directory it creates: the user's only. */
export const DIR_MODE = 0o700

/** The mode of a cache file: the user's only, as a file must be for it to be read. */
export const FILE_MODE = 0o600

/**
 * The Node a cache is for: V8 rejects a cache of another V8 or of other flags (given on the command line or in
 * NODE_OPTIONS), so each gets files of its own rather than replacing the other's on every run.
 */
const NODE_TAG = `${process.versions.v8} ${process.arch} ${process.execArgv.join(" ")} ${
  process.env.NODE_OPTIONS ?? ""
}`

/**
 * The CommonJS wrapper, on a line of its own (compiled with lineOffset -1, so the chunk's lines keep their numbers).
 */
const WRAPPER = "(function (exports, require, module, __filename, __dirname) {\n"

const fs = () => process.getBuiltinModule("node:fs")
const path = () => process.getBuiltinModule("node:path")

/**
 * The digest a cache file carries: this Node, its runs, the chunk's source, then the cache, each delimited by its
 * length.
 */
const digest = (runs: number, source: Buffer, data: Buffer): Buffer =>
  process.getBuiltinModule("node:crypto").createHash("sha256")
    .update(`${NODE_TAG}\0${runs}\0${source.length}\0`).update(source).update(`\0${data.length}\0`).update(data)
    .digest()

/**
 * The cache file of a chunk for this Node, named after the chunk and a hash of this Node and the chunk's path: two
 * installs (another project's, another version) keep files of their own, a rebuild in place replaces its own.
 */
const cacheFileOf = (dir: string, chunk: string): string =>
  path().join(
    dir,
    `${path().basename(chunk)}.${
      process.getBuiltinModule("node:crypto").hash("sha256", `${NODE_TAG}\0${chunk}`).slice(0, 16)
    }.cache`
  )

/** Whether a file is this user's and nobody else may read or write it (on Windows, the profile's ACLs decide). */
const isPrivate = (info: { readonly uid: number; readonly mode: number }): boolean =>
  process.platform === "win32" || (info.uid === process.getuid?.() && (info.mode & 0o077) === 0)

/** A cache as read: V8's data and how many runs wrote it. */
export interface ReadCache {
  /** V8's cached data, for `vm.Script`. */
  readonly data: Buffer
  /** How many runs have written it, up to {@link RUNS_THAT_WRITE}. */
  readonly runs: number
}

/**
 * The cache in `file` for `source`; undefined when there is none, or it is not private, whole and for this Node and
 * source.
 */
export const readCache = (file: string, source: Buffer): ReadCache | undefined => {
  const { closeSync, constants, fstatSync, openSync, readFileSync } = fs()
  let fd: number | undefined
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0))
    const info = fstatSync(fd)
    if (!info.isFile() || !isPrivate(info) || info.size <= HEADER_BYTES) return undefined
    const bytes = readFileSync(fd)
    if (!bytes.subarray(0, MAGIC.length).equals(MAGIC)) return undefined
    const runs = bytes[MAGIC.length]
    const data = bytes.subarray(HEADER_BYTES)
    if (!bytes.subarray(MAGIC.length + 1, HEADER_BYTES).equals(digest(runs, source, data))) return undefined
    return { data, runs }
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/**
 * Writes a cache for `source` into `file` through a private temporary file renamed onto it (a reader sees the old
 * file or the new one, whole), then trims the directory; a temporary file a failed write leaves is removed.
 */
export const writeCache = (file: string, source: Buffer, data: Buffer, runs: number): void => {
  const { mkdirSync, renameSync, rmSync, writeFileSync } = fs()
  const dir = path().dirname(file)
  mkdirSync(dir, { recursive: true, mode: DIR_MODE })
  const temp = `${file}.${process.pid}.tmp`
  try {
    writeFileSync(temp, Buffer.concat([MAGIC, Buffer.of(runs), digest(runs, source, data), data]), {
      mode: FILE_MODE,
      flag: "wx"
    })
    renameSync(temp, file)
  } catch (error) {
    rmSync(temp, { force: true })
    throw error
  }
  trim(dir)
}

/** Removes the oldest files of `dir` beyond {@link MAX_CACHE_FILES}. */
const trim = (dir: string): void => {
  const { readdirSync, rmSync, statSync } = fs()
  const names = readdirSync(dir)
  if (names.length <= MAX_CACHE_FILES) return
  const aged = names.map((name) => ({ file: path().join(dir, name), mtime: statSync(path().join(dir, name)).mtimeMs }))
  aged.sort((a, b) => a.mtime - b.mtime)
  for (const { file } of aged.slice(0, aged.length - MAX_CACHE_FILES)) rmSync(file, { force: true })
}

/**
 * Requires the CommonJS file `entry` and, through the `require` it is given, the chunks beside it (`./name.cjs`),
 * each once, with its code cache from `dir` (none when undefined); builtins come from `process.getBuiltinModule`,
 * anything else from Node's `require` beside the chunk. When the process exits, a chunk whose cache was missing,
 * refused, rejected by V8, or written by fewer than {@link RUNS_THAT_WRITE} runs gets a new one; a write that fails
 * changes nothing.
 */
export const requireCached = (entry: string, dir: string | undefined): unknown => {
  const { readFileSync } = fs()
  const vm = process.getBuiltinModule("node:vm")
  const { createRequire } = process.getBuiltinModule("node:module")
  const modules = new Map<string, { exports: unknown }>()
  const writes: Array<() => void> = []
  const load = (file: string): unknown => {
    const known = modules.get(file)
    if (known !== undefined) return known.exports
    const module = { exports: {} }
    modules.set(file, module)
    const source = readFileSync(file)
    const cacheFile = dir === undefined ? undefined : cacheFileOf(dir, file)
    const cached = cacheFile === undefined ? undefined : readCache(cacheFile, source)
    const script = new vm.Script(`${WRAPPER}${source.toString("utf8")}\n})`, {
      filename: file,
      lineOffset: -1,
      ...(cached === undefined ? {} : { cachedData: cached.data })
    })
    const fresh = cached === undefined || script.cachedDataRejected === true
    if (cacheFile !== undefined && (fresh || cached.runs < RUNS_THAT_WRITE)) {
      const runs = fresh ? 1 : cached.runs + 1
      writes.push(() => writeCache(cacheFile, source, script.createCachedData(), runs))
    }
    const nodeRequire = createRequire(file)
    const require = Object.assign(
      (id: string): unknown =>
        id.startsWith("node:")
          ? process.getBuiltinModule(id) ?? nodeRequire(id)
          : id.startsWith("./")
          ? load(path().join(path().dirname(file), id))
          : nodeRequire(id),
      { resolve: nodeRequire.resolve, cache: nodeRequire.cache }
    )
    script.runInThisContext()(module.exports, require, module, file, path().dirname(file))
    return module.exports
  }
  process.once("exit", () => {
    for (const write of writes) {
      try {
        write()
      } catch {
        // No cache this time: the next run compiles from the source again.
      }
    }
  })
  return load(entry)
}
