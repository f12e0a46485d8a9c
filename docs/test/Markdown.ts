/**
 * What the README suite reads in a Markdown file: its fenced code blocks (with the README-block
 * convention of docs/README-blocks.md parsed from each info string), its relative links and its
 * heading anchors. Pure functions over the file's text.
 */

/** A fenced code block: where it opens (1-based line), its info string and its text. */
export interface Fence {
  readonly line: number
  readonly info: string
  readonly body: string
}

/** The fenced code blocks of a Markdown text, in order (``` or ~~~ fences, indented ones too). */
export const fences = (text: string): ReadonlyArray<Fence> => {
  const lines = text.split("\n")
  const found: Array<Fence> = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^( *)(`{3,}|~{3,})(.*)$/.exec(lines[i])
    if (open === null || (open[2][0] === "`" && open[3].includes("`"))) continue
    const [, indent, marker, info] = open
    const close = new RegExp(`^ *${marker[0] === "`" ? "`" : "~"}{${marker.length},} *$`)
    const body: Array<string> = []
    let j = i + 1
    for (; j < lines.length && !close.test(lines[j]); j++) {
      body.push(lines[j].startsWith(indent) ? lines[j].slice(indent.length) : lines[j].trimStart())
    }
    found.push({ line: i + 1, info: info.trim(), body: body.length === 0 ? "" : body.join("\n") + "\n" })
    i = j
  }
  return found
}

/** The runner a language runs under; a language outside this map has no runner. */
const RUNNERS: Record<string, "ts" | "js" | "sh" | "bash"> = {
  ts: "ts",
  typescript: "ts",
  js: "js",
  javascript: "js",
  mjs: "js",
  sh: "sh",
  shell: "sh",
  bash: "bash"
}

/** Languages whose blocks look like code someone would run: each must say run, no-run or file=. */
const CODE = new Set([...Object.keys(RUNNERS), "tsx", "jsx", "cjs", "zsh", "console", "shell-session"])

/** What a block is, by its info string. */
export type Block =
  | {
    readonly _tag: "Run"
    readonly runner: "ts" | "js" | "sh" | "bash"
    readonly exit: number
    readonly cwd: string | undefined
    readonly env: Readonly<Record<string, string>>
  }
  | { readonly _tag: "NoRun"; readonly reason: string }
  | { readonly _tag: "File"; readonly path: string }
  | { readonly _tag: "Output" }
  | { readonly _tag: "Plain" }

/** Why an info string breaks the convention. */
export interface BlockError {
  readonly _tag: "BlockError"
  readonly message: string
}

const blockError = (message: string): BlockError => ({ _tag: "BlockError", message })

/** A relative path inside the folder it is relative to: no `..` segment, not absolute. */
const isInside = (p: string) => p !== "" && !p.startsWith("/") && !p.split("/").includes("..")

/**
 * Reads one block's info string (`LANG [run|no-run REASON|file=PATH|output] [exit=N] [cwd=DIR] [env=NAME=VALUE]...`).
 */
export const classify = (info: string): Block | BlockError => {
  const [lang = "", ...words] = info.split(/\s+/).filter((word) => word !== "")
  if (lang === "") return blockError("has no language: name one (`text` for plain text)")
  const first = words[0]
  if (first === "no-run") {
    const reason = words.slice(1).join(" ")
    return reason === ""
      ? blockError("is `no-run` without a reason: say why it cannot run here")
      : { _tag: "NoRun", reason }
  }
  if (first === "output") {
    return words.length === 1
      ? { _tag: "Output" }
      : blockError(`has words after \`output\`: ${words.slice(1).join(" ")}`)
  }
  if (first?.startsWith("file=")) {
    const file = first.slice("file=".length)
    if (!isInside(file)) return blockError(`writes ${first}: the path must be relative, without ..`)
    return words.length === 1
      ? { _tag: "File", path: file }
      : blockError(`has words after \`${first}\`: ${words.slice(1).join(" ")}`)
  }
  if (first !== "run") {
    if (CODE.has(lang)) {
      return blockError(`is \`${lang}\` but says neither \`run\`, \`no-run REASON\` nor \`file=PATH\``)
    }
    return words.length === 0 ? { _tag: "Plain" } : blockError(`has unknown words: ${words.join(" ")}`)
  }
  const runner = RUNNERS[lang]
  if (runner === undefined) {
    return blockError(`is \`${lang} run\`, but only ${Object.keys(RUNNERS).join(", ")} blocks run`)
  }
  let exit = 0
  let cwd: string | undefined
  const env: Record<string, string> = {}
  for (const word of words.slice(1)) {
    const [key, ...rest] = word.split("=")
    const value = rest.join("=")
    if (key === "exit" && /^\d{1,3}$/.test(value)) exit = Number(value)
    else if (key === "cwd" && value !== "") cwd = value
    else if (key === "env" && /^[A-Za-z_][A-Za-z0-9_]*=/.test(value)) {
      env[value.slice(0, value.indexOf("="))] = value.slice(value.indexOf("=") + 1)
    } else return blockError(`has an unknown or malformed word after \`run\`: ${word}`)
  }
  return { _tag: "Run", runner, exit, cwd, env }
}

/** A link in a Markdown text: its target as written and the 1-based line it is on. */
export interface Link {
  readonly line: number
  readonly target: string
}

/** The text with every fenced block blanked out (lines kept, so line numbers stay right). */
const outsideFences = (text: string): Array<string> => {
  const lines = text.split("\n")
  for (const fence of fences(text)) {
    const end = fence.line + fence.body.split("\n").length - 1
    for (let i = fence.line - 1; i < Math.min(end + 1, lines.length); i++) lines[i] = ""
  }
  return lines
}

/** Every inline link, image and reference definition outside code (fences and code spans). */
export const links = (text: string): ReadonlyArray<Link> =>
  outsideFences(text).flatMap((raw, index) => {
    const line = raw.replace(/(`+)[^`]*?\1/g, "")
    const inline = [...line.matchAll(/\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1])
    const definition = /^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/.exec(line)?.[1]
    return [...inline, ...(definition === undefined ? [] : [definition])]
      .map((target) => ({ line: index + 1, target: target.replace(/^<(.*)>$/, "$1") }))
  })

/** Whether a link target leaves the file system (http:, mailto:, ...). */
export const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target)

/** The anchors GitHub gives a text's headings (lower case, punctuation dropped, spaces to `-`, `-N` for repeats). */
export const anchors = (text: string): ReadonlySet<string> => {
  const seen = new Map<string, number>()
  const result = new Set<string>()
  for (const line of outsideFences(text)) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1]
    if (heading === undefined) continue
    const slug = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1").toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-")
    const count = seen.get(slug) ?? 0
    seen.set(slug, count + 1)
    result.add(count === 0 ? slug : `${slug}-${count}`)
  }
  return result
}
