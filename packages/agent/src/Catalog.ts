/**
 * The catalog: the governed tool listing (core's `ToolCalls.listTools`, so toolsListed hooks and
 * the tools filter apply) turned into model-facing tools with unique, provider-safe names, and the
 * effect/ai Toolkit that carries them to the LanguageModel.
 */
import type { JsonObject, Tool as CoreTool } from "@interlock/core"
import { Tool, Toolkit } from "effect/ai"

/** A tool as the model sees it, and where it lives. */
export interface AgentTool {
  /** The model-facing name (the tool's own name, or `server__name` when two servers share it). */
  readonly name: string
  readonly serverId: string
  /** The tool's name on its server. */
  readonly toolName: string
  readonly description?: string | undefined
  /** The JSON Schema of the arguments. */
  readonly parameters: JsonObject
}

/** Model-facing tools, by name, with a Toolkit per subset. */
export interface Catalog {
  readonly tools: ReadonlyArray<AgentTool>
  readonly byName: ReadonlyMap<string, AgentTool>
  /** The Toolkit for a subset of the catalog (cached per array). */
  readonly toolkit: (tools: ReadonlyArray<AgentTool>) => Toolkit.Toolkit<Record<string, Tool.Any>>
}

const safe = (name: string): string => name.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64)

const modelNames = (tools: ReadonlyArray<CoreTool>): Array<string> => {
  const count = new Map<string, number>()
  for (const tool of tools) count.set(tool.name, (count.get(tool.name) ?? 0) + 1)
  return tools.map((tool) => safe(count.get(tool.name) === 1 ? tool.name : `${tool.serverId}__${tool.name}`))
}

/** Builds the catalog of a listing. Tools whose model-facing names still collide are dropped. */
export const makeCatalog = (listed: ReadonlyArray<CoreTool>): Catalog => {
  const names = modelNames(listed)
  const byName = new Map<string, AgentTool>()
  const aiTools = new Map<string, Tool.Any>()
  listed.forEach((tool, i) => {
    const name = names[i]
    if (byName.has(name)) return
    byName.set(name, {
      name,
      serverId: tool.serverId,
      toolName: tool.name,
      description: tool.description,
      parameters: tool.inputSchema
    })
    // A server's tool has a JSON Schema, not an effect Schema: effect/ai's dynamic tool takes it untyped, and the
    // toolkit holds tools of any shape, so the tool is widened to Tool.Any here (and the kit below to match).
    aiTools.set(
      name,
      Tool.dynamic(name, { description: tool.description, parameters: tool.inputSchema as any }) as Tool.Any
    )
  })
  const tools = [...byName.values()]
  const kits = new WeakMap<ReadonlyArray<AgentTool>, Toolkit.Toolkit<Record<string, Tool.Any>>>()
  const toolkit = (subset: ReadonlyArray<AgentTool>) => {
    let kit = kits.get(subset)
    if (kit === undefined) {
      kit = Toolkit.make(...subset.flatMap((tool) => aiTools.get(tool.name) ?? [])) as Toolkit.Toolkit<
        Record<string, Tool.Any>
      >
      kits.set(subset, kit)
    }
    return kit
  }
  return { tools, byName, toolkit }
}

/**
 * A per-agent cache of catalogs: a listing of the same Tool objects (or of tools with the same
 * fingerprints) reuses its catalog and Toolkits, so a run does not rebuild them.
 */
export const catalogCache = (): (listed: ReadonlyArray<CoreTool>) => Catalog => {
  let last: { readonly listed: ReadonlyArray<CoreTool>; readonly catalog: Catalog } | undefined
  const byKey = new Map<string, Catalog>()
  return (listed) => {
    if (
      last !== undefined && last.listed.length === listed.length && last.listed.every((tool, i) => tool === listed[i])
    ) return last.catalog
    const key = listed.map((tool) => `${tool.serverId}\u0000${tool.name}\u0000${tool.fingerprint}`).join("\n")
    let catalog = byKey.get(key)
    if (catalog === undefined) {
      if (byKey.size >= 64) byKey.clear()
      catalog = makeCatalog(listed)
      byKey.set(key, catalog)
    }
    last = { listed, catalog }
    return catalog
  }
}
