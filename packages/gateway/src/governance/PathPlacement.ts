/**
 * Where a path argument lands on the server that gets it, as far as the gateway can tell: resolved against the
 * server's base directory by its platform's rules (on win32, `\` separates and names compare case-insensitively),
 * through symlinks when the gateway shares its filesystem. A text servers may read in several ways (`file:`, `~`,
 * `..` after a symlink) is placed every way; `isWithin` answers only when all agree.
 */
import { lstatSync, readlinkSync } from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

// Windows drops trailing dots and spaces of a segment; a loop, since a regex here would be quadratic.
const trimDotsAndSpaces = (segment: string): string => {
  let end = segment.length
  while (end > 0 && (segment.charCodeAt(end - 1) === 46 || segment.charCodeAt(end - 1) === 32)) end--
  return segment.slice(0, end)
}

/** The path rules of a server's operating system. */
export type Platform = "posix" | "win32"

/** Reads the filesystem the gateway shares with a server (synchronously: a policy condition is a plain function). */
export interface LinkReader {
  /** What an absolute path names: a symlink, something else, nothing (ENOENT, ENOTDIR), or an unreadable entry. */
  readonly kind: (absolute: string) => "link" | "present" | "missing" | "error"
  /** A symlink's target as stored, or undefined when it cannot be read. */
  readonly readlink: (absolute: string) => string | undefined
}

/** How one server places a path argument. */
export interface PathSettings {
  /** Where relative paths start: an absolute path by `platform`'s rules. */
  readonly base: string
  readonly platform: Platform
  /** What a leading `~` stands for; undefined: not known, so such a path cannot be placed. */
  readonly home: string | undefined
  /**
   * "expand": the server expands a leading `~` to `home`; "either": it may, or may take `~` as a name (both readings).
   */
  readonly tilde: "expand" | "either"
  /** Set when symlinks are resolved on the gateway's side. */
  readonly links: LinkReader | undefined
}

/** The gateway's own platform. */
export const gatewayPlatform: Platform = process.platform === "win32" ? "win32" : "posix"

/** The gateway's filesystem. */
export const nodeLinks: LinkReader = {
  kind: (absolute) => {
    try {
      return lstatSync(absolute).isSymbolicLink() ? "link" : "present"
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      return code === "ENOENT" || code === "ENOTDIR" ? "missing" : "error"
    }
  },
  readlink: (absolute) => {
    try {
      return readlinkSync(absolute)
    } catch {
      return undefined
    }
  }
}

/** The settings for a call to no configured server: the gateway's cwd and platform, no symlinks. */
export const defaultPaths = (): PathSettings => ({
  base: process.cwd(),
  platform: gatewayPlatform,
  home: undefined,
  tilde: "either",
  links: undefined
})

// Linux allows 40 symlinks in one lookup (ELOOP beyond).
const MAX_HOPS = 40

const moduleOf = (platform: Platform) => (platform === "win32" ? path.win32 : path.posix)

const segmentsOf = (platform: Platform, text: string): Array<string> => text.split(platform === "win32" ? /[\\/]/ : "/")

/**
 * Walks `segments` from the real directory `start` the way the kernel does: each symlink is
 * replaced by its target before the next segment (so `link/..` is the target's parent); below the
 * first missing entry nothing can be a symlink, and the rest is appended.
 */
const walk = (
  platform: Platform,
  links: LinkReader,
  start: string,
  segments: ReadonlyArray<string>
): string | undefined => {
  const p = moduleOf(platform)
  const queue = [...segments]
  let current = start
  let hops = 0
  while (queue.length > 0) {
    const segment = queue.shift() ?? ""
    if (segment === "" || segment === ".") continue
    if (segment === "..") {
      current = p.dirname(current)
      continue
    }
    const next = p.join(current, segment)
    const kind = links.kind(next)
    if (kind === "error") return undefined
    if (kind === "missing") return p.resolve(next, ...queue.filter((s) => s !== ""))
    if (kind === "present") {
      current = next
      continue
    }
    const target = links.readlink(next)
    if (target === undefined || ++hops > MAX_HOPS) return undefined
    const absolute = p.isAbsolute(target) ? target : p.join(current, target)
    const root = p.parse(absolute).root
    queue.unshift(...segmentsOf(platform, absolute.slice(root.length)))
    current = root
  }
  return current
}

/** The real form of an absolute path: every existing prefix through its symlinks. */
const real = (platform: Platform, links: LinkReader, absolute: string): string | undefined => {
  const root = moduleOf(platform).parse(absolute).root
  return walk(platform, links, root, segmentsOf(platform, absolute.slice(root.length)))
}

// Windows paths the gateway does not try to place: device and verbatim paths (\\?\, \\.\).
const WIN32_DEVICE = /^[\\/]{2}[?.][\\/]/
const WIN32_DRIVE_RELATIVE = /^([a-z]):(?![\\/])/i

/**
 * The texts a server may take `text` for: itself, a `file:` URI's path, `~` expanded. Undefined when one cannot be
 * known.
 */
const readings = (text: string, settings: PathSettings): Array<string> | undefined => {
  const out = [text]
  if (/^file:/i.test(text)) {
    try {
      out.push(fileURLToPath(text, { windows: settings.platform === "win32" }))
    } catch {
      return undefined
    }
  }
  const tilde = settings.platform === "win32" ? /^~(?:[\\/]|$)/ : /^~(?:\/|$)/
  for (const reading of [...out]) {
    if (!tilde.test(reading)) continue
    if (settings.home === undefined) return undefined
    const expanded = `${settings.home}${reading.slice(1)}`
    if (settings.tilde === "expand") out.splice(out.indexOf(reading), 1, expanded)
    else out.push(expanded)
  }
  if (settings.platform === "win32") {
    const baseDrive = /^([a-z]):/i.exec(settings.base)?.[1]
    for (const reading of out) {
      if (WIN32_DEVICE.test(reading)) return undefined
      const drive = WIN32_DRIVE_RELATIVE.exec(reading)?.[1]
      if (drive !== undefined && drive.toLowerCase() !== baseDrive?.toLowerCase()) return undefined
    }
  }
  return out
}

/**
 * The form two placed paths compare in: NFC; on win32 also lower case, without the trailing dots and spaces Windows
 * drops.
 */
const comparable = (platform: Platform, placed: string): string => {
  const nfc = placed.normalize("NFC")
  if (platform === "posix") return nfc
  return nfc.split("\\").map((segment, index) => (index === 0 ? segment : trimDotsAndSpaces(segment))).join("\\")
    .toLowerCase()
}

/** Where the kernel takes `reading`: from the real base (or the root of an absolute path), segment by segment. */
const kernelOrder = (settings: PathSettings, links: LinkReader, reading: string): string | undefined => {
  const { platform } = settings
  const p = moduleOf(platform)
  if (!p.isAbsolute(reading)) {
    const start = real(platform, links, settings.base)
    return start === undefined ? undefined : walk(platform, links, start, segmentsOf(platform, reading))
  }
  const root = p.parse(p.resolve(settings.base, reading)).root
  return walk(platform, links, root, segmentsOf(platform, reading.slice(p.parse(reading).root.length)))
}

/** Every absolute place `text` may land, in comparable form; undefined when one cannot be known. */
const placements = (text: string, settings: PathSettings): Array<string> | undefined => {
  const texts = readings(text, settings)
  if (texts === undefined) return undefined
  const p = moduleOf(settings.platform)
  const links = settings.links
  const out: Array<string> = []
  for (const reading of texts) {
    const absolute = p.resolve(settings.base, reading)
    if (links === undefined) {
      out.push(comparable(settings.platform, absolute))
      continue
    }
    // Lexical first (what path.resolve-based servers do), and the kernel's order (`..` after a symlink).
    const lexical = real(settings.platform, links, absolute)
    const kernel = kernelOrder(settings, links, reading)
    if (lexical === undefined || kernel === undefined) return undefined
    out.push(comparable(settings.platform, lexical), comparable(settings.platform, kernel))
  }
  return out
}

const under = (platform: Platform, target: string, root: string): boolean => {
  const separator = platform === "win32" ? "\\" : "/"
  return target === root || target.startsWith(root.endsWith(separator) ? root : `${root}${separator}`)
}

/**
 * Whether `value` names `root` or a path under it on the server `settings` describe: true or false
 * when every way of reading both agrees, undefined when they disagree or one cannot be placed.
 */
export const isWithin = (value: string, root: string, settings: PathSettings): boolean | undefined => {
  const targets = placements(value, settings)
  const roots = placements(root, settings)
  if (targets === undefined || roots === undefined) return undefined
  let some = false
  let every = true
  for (const target of targets) {
    for (const base of roots) {
      const inside = under(settings.platform, target, base)
      some ||= inside
      every &&= inside
    }
  }
  return every ? true : some ? undefined : false
}
