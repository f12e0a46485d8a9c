/**
 * For the MCP Apps tests: the npm App servers and the app-server fixture as stdio server configs, and what the fixture
 * serves.
 */
import * as path from "node:path"
import { NODE } from "./e2e.ts"

export { APP_MIME, RESOURCE_UI } from "./fixtures/app-ui.ts"

const npmServer = (name: string) => ({
  command: NODE,
  args: [
    path.join(import.meta.dirname, "..", "..", "..", "node_modules", "@modelcontextprotocol", name, "dist", "index.js"),
    "--stdio"
  ]
})

/** `@modelcontextprotocol/server-basic-react` (tool get-time, page ui://get-time/mcp-app.html). */
export const basicReactServer = npmServer("server-basic-react")

/**
 * `@modelcontextprotocol/server-system-monitor` (get-system-info, app-only poll-system-stats,
 * ui://system-monitor/mcp-app.html).
 */
export const systemMonitorServer = npmServer("server-system-monitor")

/** The app-server fixture serving `uri` as the app `name`; `leak` makes it put the marked secrets everywhere it can. */
export const appServer = (name: string, uri = "ui://app/index.html", leak = false) => ({
  command: NODE,
  args: [path.join(import.meta.dirname, "fixtures", "app-server.ts")],
  env: { APP_NAME: name, APP_URI: uri, ...(leak ? { APP_LEAK: "1" } : {}) }
})
