/**
 * The import rules `npm test` checks (dependency-cruiser): the gateway's layers, no import cycle in
 * any package, and packages that meet only through each other's index. The gateway's layers are
 * written once, here (GATEWAY_LAYERS); docs/ARCHITECTURE.md names them and a docs test holds the two
 * and the folders of gateway/src together.
 */
import { readdirSync, readFileSync } from "node:fs"

/**
 * The gateway's layers, bottom up: the folders of `packages/gateway/src`. A folder may import its
 * own layer and the layers below it, never one above. `index.ts` (the public surface) is above all.
 */
export const GATEWAY_LAYERS = [
  ["config"], // the config file and the plan data it resolves to
  ["state", "audit"], // what replicas share; the audit record and its stores
  ["governance", "credentials"], // rules to Policy, built-in hooks, redaction, rate limits, replay; downstream credentials
  ["calls", "claude"], // audited calls, approvals, features, host sessions; the Claude Code hook bridge
  ["front"], // the host-facing MCP server pieces (eras, HTTP sessions, stdio frames), over what the Gateway gives them
  ["runtime"], // the plan builder, the Gateway service, config generations and reloads
  ["console"], // the web console and its JSON API
  ["serve", "telemetry"], // a Gateway on the wire: HttpFront (/mcp, the console, /claude/hook), stdio; OTLP export
  ["cli"] // the `interlock` commands
]

const GATEWAY = "^packages/gateway/src/"
const folders = (layers) => `${GATEWAY}(${layers.flat().join("|")})/`

/** One rule per layer: nothing in it imports a layer above it. */
const noUpwardImport = GATEWAY_LAYERS.slice(0, -1).map((layer, index) => ({
  name: `gateway-layer-${layer.join("-")}`,
  comment: `gateway/src/{${layer.join(",")}} is below ${GATEWAY_LAYERS.slice(index + 1).flat().join(", ")}`,
  severity: "error",
  from: { path: folders([layer]) },
  to: { path: folders(GATEWAY_LAYERS.slice(index + 1)) }
}))

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** The files packages export under the source condition (`@interlock/source`): the only way in from outside. */
const packages = new URL("packages/", import.meta.url)
const exported = readdirSync(packages).flatMap((name) => {
  const manifest = JSON.parse(readFileSync(new URL(`${name}/package.json`, packages), "utf8"))
  return Object.values(manifest.exports ?? {}).flatMap((target) =>
    typeof target === "object" && typeof target["@interlock/source"] === "string"
      ? [`^${escape(`packages/${name}/${target["@interlock/source"].slice(2)}`)}$`]
      : []
  )
})

export default {
  forbidden: [
    ...noUpwardImport,
    {
      name: "gateway-index-on-top",
      comment: "the gateway's index.ts is its public surface: nothing inside the package imports it",
      severity: "error",
      from: { path: GATEWAY },
      to: { path: `${GATEWAY}index\\.ts$` }
    },
    {
      name: "no-cycle",
      comment: "no import cycle between the files of a package that runs: one import that only types erases it",
      severity: "error",
      from: { path: "^packages/[^/]+/src/" },
      to: { circular: true, viaOnly: { dependencyTypesNot: ["type-only"] } }
    },
    {
      name: "packages-meet-at-index",
      comment: "a package reaches another only through its index (the package's exports), never its src/ or internal/",
      severity: "error",
      from: { path: "^(packages/[^/]+)/" },
      to: { path: "^packages/[^/]+/", pathNot: ["^$1/", ...exported] }
    },
    {
      name: "packages-meet-by-name",
      comment: "a package imports another by its name (@interlock/...), never by a relative path into it",
      severity: "error",
      from: { path: "^(packages/[^/]+)/" },
      to: { path: "^packages/[^/]+/", pathNot: "^$1/", dependencyTypes: ["local"] }
    }
  ],
  options: {
    // swc reads TypeScript itself (type-only imports included): TypeScript 7 has no compiler API for
    // dependency-cruiser to use.
    parser: "swc",
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(node_modules|dist)/" },
    // A package import resolves to the other package's src/index.ts, as the tests and the CLI run it.
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["@interlock/source", "import", "default"],
      extensions: [".ts", ".js"]
    },
    reporterOptions: { text: { highlightFocused: true } }
  }
}
