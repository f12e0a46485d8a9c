/**
 * Redaction of MCP content by its schema: every string is redacted except base64 payloads where the MCP schema
 * puts them (`data` of image and audio blocks, `blob` of embedded resources and resource contents), exempt by
 * position and only while base64, never by a key's name. Consecutive text blocks are redacted as one text, so a
 * secret split across two blocks is still found.
 */
import { isHtmlEntry, redactHtml } from "./HtmlRedaction.ts"
import { type Redaction, redactJson, redactPieces, redactText } from "./Redactor.ts"

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * Whether a string is base64 (the standard alphabet, as MCP's schema has it; optional padding): what an exempt position
 * may keep.
 */
export const isBase64 = (text: string): boolean => {
  let end = text.length
  while (end > 0 && text.charCodeAt(end - 1) === 61 /* = */ && text.length - end < 2) end--
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i)
    const ok = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47
    if (!ok) return false
  }
  return true
}

/** Redacts an object but keeps `key` as it is when it holds base64. */
const keepingBase64 = (node: Json, key: string, redactions: ReadonlyArray<Redaction>): Json => {
  const payload = node[key]
  if (typeof payload !== "string" || !isBase64(payload)) return redactJson(node, redactions)
  const { [key]: _, ...rest } = node
  const out = redactJson(rest, redactions)
  return out === rest ? node : { ...out, [key]: payload }
}

/**
 * An HTML entry's text redacted as HTML (HtmlRedaction.ts), so that the document stays well-formed; the rest as JSON.
 */
const redactHtmlEntry = (entry: Json & { readonly text: string }, redactions: ReadonlyArray<Redaction>): Json => {
  const { text, ...rest } = entry
  const out = redactJson(rest, redactions)
  const html = redactHtml(text, redactions)
  return out === rest && html === text ? entry : { ...out, text: html }
}

/**
 * Redacts one resource contents entry (`uri` plus `text` or `blob`): a base64 `blob` is exempt;
 * an HTML `text` (an MCP Apps page) is redacted without breaking its markup.
 */
export const redactResourceEntry = (entry: unknown, redactions: ReadonlyArray<Redaction>): unknown => {
  if (!isObject(entry)) return redactJson(entry, redactions)
  if (typeof entry.text === "string" && isHtmlEntry(entry.mimeType, entry.uri)) {
    return redactions.length === 0
      ? entry
      : redactHtmlEntry(entry as Json & { readonly text: string }, redactions)
  }
  return keepingBase64(entry, "blob", redactions)
}

/** Redacts one content block on its own (text blocks included, but not joined with neighbours). */
export const redactBlock = (block: unknown, redactions: ReadonlyArray<Redaction>): unknown => {
  if (!isObject(block)) return redactJson(block, redactions)
  switch (block.type) {
    case "image":
    case "audio":
      return keepingBase64(block, "data", redactions)
    case "resource": {
      const { resource, ...rest } = block
      const outer = redactJson(rest, redactions)
      const inner = redactResourceEntry(resource, redactions)
      return outer === rest && inner === resource ? block : { ...outer, resource: inner }
    }
    default:
      return redactJson(block, redactions)
  }
}

const isTextBlock = (block: unknown): block is Json & { readonly text: string } =>
  isObject(block) && block.type === "text" && typeof block.text === "string"

/** Redacts a list of content blocks: each run of consecutive text blocks as one text, other blocks by their type. */
export const redactContent = <A>(content: ReadonlyArray<A>, redactions: ReadonlyArray<Redaction>): ReadonlyArray<A> => {
  if (redactions.length === 0) return content
  const out: Array<unknown> = []
  let changed = false
  let i = 0
  while (i < content.length) {
    const block = content[i]
    if (!isTextBlock(block)) {
      const next = redactBlock(block, redactions)
      if (next !== block) changed = true
      out.push(next)
      i++
      continue
    }
    const run: Array<Json & { readonly text: string }> = []
    for (let next = content[i]; i < content.length && isTextBlock(next); next = content[++i]) run.push(next)
    const texts = redactPieces(run.map((b) => b.text), redactions)
    run.forEach((b, k) => {
      const { text, ...rest } = b
      const other = redactJson(rest, redactions)
      if (other === rest && texts[k] === text) out.push(b)
      else {
        changed = true
        out.push({ ...other, text: texts[k] })
      }
    })
  }
  return changed ? out as ReadonlyArray<A> : content
}

/** What a tool result carries that a server wrote: its content, structured content and `_meta`. */
export interface ResultParts {
  readonly content: ReadonlyArray<unknown>
  readonly structuredContent?: unknown
  readonly meta?: unknown
}

/** Redacts a tool result's parts (a plain object): content by schema, structured content and `_meta` everywhere. */
export const redactResultParts = <A extends ResultParts>(result: A, redactions: ReadonlyArray<Redaction>): A => {
  const content = redactContent(result.content, redactions)
  const structuredContent = redactJson(result.structuredContent, redactions)
  const meta = redactJson(result.meta, redactions)
  if (content === result.content && structuredContent === result.structuredContent && meta === result.meta) {
    return result
  }
  return {
    ...result,
    content,
    ...(structuredContent === undefined ? {} : { structuredContent }),
    ...(meta === undefined ? {} : { meta })
  }
}

/** Redacts resource read contents (a plain object with `contents` and `meta`): a base64 `blob` is exempt. */
export const redactResourceContents = <
  A extends { readonly contents: ReadonlyArray<unknown>; readonly meta?: unknown }
>(
  read: A,
  redactions: ReadonlyArray<Redaction>
): A => {
  if (redactions.length === 0) return read
  const contents = read.contents.map((entry) => redactResourceEntry(entry, redactions))
  const meta = redactJson(read.meta, redactions)
  const same = contents.every((entry, i) => entry === read.contents[i]) && meta === read.meta
  return same ? read : { ...read, contents, ...(meta === undefined ? {} : { meta }) }
}

/** Redacts a prompt (description, messages, meta): each message's content block by its type. */
export const redactPrompt = <A extends { readonly messages: ReadonlyArray<unknown> }>(
  prompt: A,
  redactions: ReadonlyArray<Redaction>
): A => {
  if (redactions.length === 0) return prompt
  const { messages, ...rest } = prompt
  const outer = redactJson(rest, redactions)
  const next = messages.map((message) => {
    if (!isObject(message)) return redactJson(message, redactions)
    const { content, ...fields } = message
    const head = redactJson(fields, redactions)
    const body = redactBlock(content, redactions)
    return head === fields && body === content ? message : { ...head, content: body }
  })
  const same = outer === rest && next.every((message, i) => message === messages[i])
  // `outer` has exactly the keys of `rest`, so spreading `prompt` first adds nothing but lets TypeScript see an A.
  return same ? prompt : { ...prompt, ...outer, messages: next }
}

/**
 * A tool or prompt definition as listed to a host: every string but its name redacted. A name is
 * how hosts call it, so it cannot be masked: a definition whose name a redaction matches is dropped
 * (undefined).
 */
export const redactDefinition = <A extends { readonly name: string }>(
  definition: A,
  redactions: ReadonlyArray<Redaction>
): A | undefined => {
  if (redactions.length === 0) return definition
  const { name, ...rest } = definition
  // The spread rebuilds A with its name last, but TypeScript cannot see Omit<A, "name"> plus name as A.
  return redactText(name, redactions) === name ? ({ ...redactJson(rest, redactions), name } as A) : undefined
}
