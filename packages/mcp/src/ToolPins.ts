/**
 * Tool fingerprints pinned at first sight. Each listing (including the refresh after a server's tools/list_changed)
 * updates the current definitions; a tool whose current fingerprint differs from its pin has changed, and the current
 * definition is what the policy sees of it. Pins live as long as the hub, across reconnects. With SharedPins, a tool's
 * pin is the one first pinned by any hub that shares them (asked once per tool, then kept).
 */
import { type Tool, TransportError } from "@interlock/core"
import { Effect } from "effect"
import type { SharedPinsShape } from "./SharedPins.ts"

/** A tool whose definition differs from its pin. */
export interface ToolChange {
  readonly serverId: string
  readonly name: string
}

/** Pins and current fingerprints of every server's tools. */
export class ToolPins {
  private readonly pinned = new Map<string, Map<string, string>>()
  private readonly current = new Map<string, Map<string, Tool>>()

  private readonly shared: SharedPinsShape | undefined

  constructor(shared?: SharedPinsShape) {
    this.shared = shared
  }

  /**
   * Records a full listing of one server, its new tools' pins first taken from the shared store
   * (when there is one); the tools that newly differ from their pins. A store that fails fails the
   * listing: a tool is never taken as pinned by what this hub alone has seen.
   */
  record(serverId: string, tools: ReadonlyArray<Tool>): Effect.Effect<Array<ToolChange>, TransportError> {
    const shared = this.shared
    const pins = this.pinned.get(serverId)
    const unpinned = new Map(
      tools.filter((tool) => pins?.get(tool.name) === undefined).map((tool) => [tool.name, tool.fingerprint])
    )
    if (shared === undefined || unpinned.size === 0) return Effect.sync(() => this.observe(serverId, tools))
    return shared.pin(serverId, unpinned).pipe(
      Effect.mapError((error) =>
        new TransportError({ serverId, detail: `the shared tool pins could not be read: ${error.message}` })
      ),
      Effect.map((found) => {
        let own = this.pinned.get(serverId)
        if (own === undefined) {
          own = new Map()
          this.pinned.set(serverId, own)
        }
        for (const [name, fingerprint] of found) if (!own.has(name)) own.set(name, fingerprint)
        return this.observe(serverId, tools)
      })
    )
  }

  /** Records a full listing of one server; returns the tools that newly differ from their pins. */
  observe(serverId: string, tools: ReadonlyArray<Tool>): Array<ToolChange> {
    let pins = this.pinned.get(serverId)
    if (pins === undefined) {
      pins = new Map()
      this.pinned.set(serverId, pins)
    }
    const before = this.current.get(serverId)
    const now = new Map<string, Tool>()
    const changed: Array<ToolChange> = []
    for (const tool of tools) {
      const fingerprint = tool.fingerprint
      now.set(tool.name, tool)
      const pin = pins.get(tool.name)
      if (pin === undefined) pins.set(tool.name, fingerprint)
      else if (pin !== fingerprint && before?.get(tool.name)?.fingerprint !== fingerprint) {
        changed.push({ serverId, name: tool.name })
      }
    }
    this.current.set(serverId, now)
    return changed
  }

  /** Whether a tool's current definition differs from the one pinned at first sight. */
  changed(serverId: string, name: string): boolean {
    const pin = this.pinned.get(serverId)?.get(name)
    if (pin === undefined) return false
    const now = this.current.get(serverId)?.get(name)
    return now !== undefined && now.fingerprint !== pin
  }

  /** A tool's definition in the server's latest listing (annotations included), if it was listed. */
  describe(serverId: string, name: string): Tool | undefined {
    return this.current.get(serverId)?.get(name)
  }

  /** Whether a server's tools have been seen. */
  has(serverId: string): boolean {
    return this.current.has(serverId)
  }
}
