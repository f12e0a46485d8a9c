/**
 * Tool fingerprints pinned at first sight. Each listing (including the refresh after a server's
 * tools/list_changed) updates the current fingerprints; a tool whose current fingerprint differs
 * from its pin has changed. Pins live as long as the hub, across reconnects.
 */
import type { Tool } from "@interlock/core"

/** A tool whose definition differs from its pin. */
export interface ToolChange {
  readonly serverId: string
  readonly name: string
}

/** Pins and current fingerprints of every server's tools. */
export class ToolPins {
  private readonly pinned = new Map<string, Map<string, string>>()
  private readonly current = new Map<string, Map<string, string>>()

  /** Records a full listing of one server; returns the tools that newly differ from their pins. */
  observe(serverId: string, tools: ReadonlyArray<Tool>): Array<ToolChange> {
    let pins = this.pinned.get(serverId)
    if (pins === undefined) {
      pins = new Map()
      this.pinned.set(serverId, pins)
    }
    const before = this.current.get(serverId)
    const now = new Map<string, string>()
    const changed: Array<ToolChange> = []
    for (const tool of tools) {
      const fingerprint = tool.fingerprint
      now.set(tool.name, fingerprint)
      const pin = pins.get(tool.name)
      if (pin === undefined) pins.set(tool.name, fingerprint)
      else if (pin !== fingerprint && before?.get(tool.name) !== fingerprint) changed.push({ serverId, name: tool.name })
    }
    this.current.set(serverId, now)
    return changed
  }

  /** Whether a tool's current definition differs from the one pinned at first sight. */
  changed(serverId: string, name: string): boolean {
    const pin = this.pinned.get(serverId)?.get(name)
    if (pin === undefined) return false
    const now = this.current.get(serverId)?.get(name)
    return now !== undefined && now !== pin
  }

  /** Whether a server's tools have been seen. */
  has(serverId: string): boolean {
    return this.current.has(serverId)
  }
}
