/**
 * Which server a resource URI belongs to. URIs reach the host unchanged (a `file://` path keeps its
 * meaning), so the gateway routes a read or a subscription by what it has seen: URIs a server
 * listed, URIs a server's tool results linked to, and the server's URI templates. Where two servers
 * claim the same URI, the first in config order wins. This is pure state; the forwarder fills it.
 */
import { UriTemplate } from "@modelcontextprotocol/server"

/** What one server has shown of its resources. */
interface Seen {
  listed: ReadonlySet<string>
  readonly linked: Set<string>
  templates: ReadonlyArray<{ readonly source: string; readonly template: UriTemplate | undefined }>
}

/** Links remembered per server, oldest forgotten first. */
export const MAX_LINKS = 10_000

const compile = (source: string): UriTemplate | undefined => {
  try {
    return new UriTemplate(source)
  } catch {
    return undefined
  }
}

const matches = (template: UriTemplate | undefined, uri: string): boolean => {
  if (template === undefined) return false
  try {
    return template.match(uri) !== null
  } catch {
    return false
  }
}

/** The routing table of one gateway, over its servers in config order. */
export class ResourceRoutes {
  private readonly seen = new Map<string, Seen>()

  constructor(serverIds: ReadonlyArray<string>) {
    for (const id of serverIds) this.seen.set(id, { listed: new Set(), linked: new Set(), templates: [] })
  }

  /** Replaces the URIs a server listed. */
  listed(serverId: string, uris: Iterable<string>): void {
    const seen = this.seen.get(serverId)
    if (seen !== undefined) seen.listed = new Set(uris)
  }

  /** Replaces a server's URI templates. */
  templates(serverId: string, sources: ReadonlyArray<string>): void {
    const seen = this.seen.get(serverId)
    if (seen !== undefined) seen.templates = sources.map((source) => ({ source, template: compile(source) }))
  }

  /** Remembers URIs a server's tool result pointed at (resource links and embedded resources). */
  linked(serverId: string, uris: Iterable<string>): void {
    const seen = this.seen.get(serverId)
    if (seen === undefined) return
    for (const uri of uris) {
      seen.linked.delete(uri)
      seen.linked.add(uri)
      if (seen.linked.size > MAX_LINKS) seen.linked.delete(seen.linked.values().next().value as string)
    }
  }

  /** The server a URI belongs to: listed, then linked, then by template; undefined when none claims it. */
  route(uri: string): string | undefined {
    for (const [id, seen] of this.seen) if (seen.listed.has(uri)) return id
    for (const [id, seen] of this.seen) if (seen.linked.has(uri)) return id
    for (const [id, seen] of this.seen) if (seen.templates.some(({ template }) => matches(template, uri))) return id
    return undefined
  }

  /** The server that offers a URI template (by its exact text), for completion requests. */
  templateOwner(source: string): string | undefined {
    for (const [id, seen] of this.seen) if (seen.templates.some((entry) => entry.source === source)) return id
    return undefined
  }
}

/** The resource URIs a tool result's content points at: `resource_link` blocks and embedded resources. */
export const linkedUris = (content: ReadonlyArray<unknown>): Array<string> => {
  const out: Array<string> = []
  for (const block of content) {
    if (typeof block !== "object" || block === null) continue
    const { type, uri, resource } = block as { type?: unknown; uri?: unknown; resource?: { uri?: unknown } }
    if (type === "resource_link" && typeof uri === "string") out.push(uri)
    else if (type === "resource" && typeof resource?.uri === "string") out.push(resource.uri)
  }
  return out
}
