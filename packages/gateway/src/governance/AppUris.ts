/**
 * MCP Apps (`io.modelcontextprotocol/ui`) URIs toward the host. Two servers may both serve `ui://app/index.html`,
 * so when the gateway namespaces (Namespace.ts) a `ui://` URI gets the server's prefix after the scheme
 * (`ui://<server>__<rest>`, still a `ui://` URI, which is all a host renders), wherever it travels: tools'
 * `_meta`, listings, templates, read contents, result links. Pure functions over a Namespace.
 */
import type { Namespace } from "./Namespace.ts"

/** The scheme of MCP Apps resources. */
export const UI_SCHEME = "ui://"

/** The deprecated flat `_meta` key of a tool's UI resource (the spec's RESOURCE_URI_META_KEY). */
export const LEGACY_RESOURCE_URI_KEY = "ui/resourceUri"

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)

/** Whether a URI (or URI template) is an MCP Apps resource: its scheme is `ui`, in any case. */
export const isUiUri = (uri: string): boolean =>
  uri.length >= UI_SCHEME.length && uri.slice(0, UI_SCHEME.length).toLowerCase() === UI_SCHEME

/** Where a host-side `ui://` URI points: the server and the URI that server knows. */
export interface UiTarget {
  readonly serverId: string
  readonly uri: string
}

/** The host-side `ui://` URI (or template) of a server's one; unchanged unless namespacing and `ui://`. */
export const exposeUiUri = (namespace: Namespace, serverId: string, uri: string): string =>
  namespace.prefixed && isUiUri(uri) ? `${UI_SCHEME}${namespace.expose(serverId, uri.slice(UI_SCHEME.length))}` : uri

/**
 * The server behind a host-side `ui://` URI when the gateway namespaces: undefined for a URI that
 * is not `ui://`, or when the gateway does not namespace (then it routes as any URI does).
 * `Unnamed` is a `ui://` URI that names no server of this gateway: it routes nowhere (fail closed).
 */
export const resolveUiUri = (namespace: Namespace, uri: string): UiTarget | "Unnamed" | undefined => {
  if (!namespace.prefixed || !isUiUri(uri)) return undefined
  const target = namespace.resolve(uri.slice(UI_SCHEME.length))
  return target === undefined ? "Unnamed" : { serverId: target.serverId, uri: `${UI_SCHEME}${target.name}` }
}

const exposeString = (namespace: Namespace, serverId: string, value: unknown): unknown =>
  typeof value === "string" ? exposeUiUri(namespace, serverId, value) : value

/**
 * A tool's `_meta` with its UI resource URIs host-side: `ui.resourceUri` and the flat
 * `ui/resourceUri`. Every other key (visibility, and whatever else) passes as it is; the same
 * object when nothing changed.
 */
export const exposeToolMeta = <A>(namespace: Namespace, serverId: string, meta: A): A => {
  if (!namespace.prefixed || !isObject(meta)) return meta
  const ui = meta.ui
  const nested = isObject(ui) ? exposeString(namespace, serverId, ui.resourceUri) : undefined
  const flat = exposeString(namespace, serverId, meta[LEGACY_RESOURCE_URI_KEY])
  const nestedChanged = isObject(ui) && nested !== ui.resourceUri
  const flatChanged = flat !== meta[LEGACY_RESOURCE_URI_KEY]
  if (!nestedChanged && !flatChanged) return meta
  return {
    ...meta,
    ...(nestedChanged ? { ui: { ...ui, resourceUri: nested } } : {}),
    ...(flatChanged ? { [LEGACY_RESOURCE_URI_KEY]: flat } : {})
  } as A
}

/** A listed tool (wire shape) with its `_meta` UI URIs host-side. */
export const exposeTool = <A extends { readonly _meta?: unknown }>(
  namespace: Namespace,
  serverId: string,
  tool: A
): A => {
  if (tool._meta === undefined) return tool
  const meta = exposeToolMeta(namespace, serverId, tool._meta)
  return meta === tool._meta ? tool : { ...tool, _meta: meta }
}

/** An object's `key` (a URI or a URI template) host-side; the same object when it does not change. */
export const exposeUriAt = <A extends object>(
  namespace: Namespace,
  serverId: string,
  item: A,
  key: keyof A & string
): A => {
  const value = (item as Json)[key]
  const exposed = exposeString(namespace, serverId, value)
  return exposed === value ? item : { ...item, [key]: exposed }
}

/** A tool result's content with the `ui://` URIs of its resource links and embedded resources host-side. */
export const exposeContentUris = <A>(
  namespace: Namespace,
  serverId: string,
  content: ReadonlyArray<A>
): ReadonlyArray<A> => {
  if (!namespace.prefixed) return content
  let changed = false
  const out = content.map((block) => {
    if (!isObject(block)) return block
    let next: Json = block
    if (block.type === "resource_link") next = exposeUriAt(namespace, serverId, block, "uri")
    else if (block.type === "resource" && isObject(block.resource)) {
      const resource = exposeUriAt(namespace, serverId, block.resource, "uri")
      if (resource !== block.resource) next = { ...block, resource }
    }
    if (next !== block) changed = true
    return next as A
  })
  return changed ? out : content
}

/** A resource read's contents with each entry's `ui://` URI host-side (what the host asked for). */
export const exposeContentsUris = <A>(
  namespace: Namespace,
  serverId: string,
  contents: ReadonlyArray<A>
): ReadonlyArray<A> => {
  if (!namespace.prefixed) return contents
  const out = contents.map((entry) => isObject(entry) ? exposeUriAt(namespace, serverId, entry, "uri") as A : entry)
  return out.every((entry, i) => entry === contents[i]) ? contents : out
}
