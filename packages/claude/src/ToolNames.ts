/**
 * Tool names between Claude Code and Interlock. Claude's `mcp__<server>__<tool>` is Interlock's
 * `server/tool`; Claude's own tools (Bash, Write, Edit, Read and the rest) are server `claude`.
 */

/** The Interlock server id of Claude Code's built-in tools. */
export const CLAUDE_SERVER = "claude"

const MCP_PREFIX = "mcp__"

/** An Interlock (serverId, name) pair. */
export interface ToolRef {
  readonly serverId: string
  readonly name: string
}

/** Whether a Claude tool name names an MCP tool (`mcp__<server>__<tool>`). */
export const isMcpToolName = (toolName: string): boolean => fromClaudeName(toolName).serverId !== CLAUDE_SERVER

/**
 * Interlock's (serverId, name) for a Claude tool name. The server part ends at the first `__`
 * after the prefix; a name that does not have both parts is a built-in of server `claude`.
 */
export const fromClaudeName = (toolName: string): ToolRef => {
  if (toolName.startsWith(MCP_PREFIX)) {
    const rest = toolName.slice(MCP_PREFIX.length)
    const split = rest.indexOf("__")
    if (split > 0 && split + 2 < rest.length) return { serverId: rest.slice(0, split), name: rest.slice(split + 2) }
  }
  return { serverId: CLAUDE_SERVER, name: toolName }
}

/** Claude's tool name for an Interlock (serverId, name). */
export const toClaudeName = (serverId: string, name: string): string =>
  serverId === CLAUDE_SERVER ? name : `${MCP_PREFIX}${serverId}__${name}`
