/**
 * The gateway's configuration as a user writes it (interlock.config.json, or the data part of
 * interlock.config.ts). One Schema: it validates the JSON form, and it generates the published
 * JSON Schema file for editors.
 */
import { Decision, MatcherJson, RuleFields } from "@interlock/core"
import { Schema } from "effect"
import { CredentialsConfig, HttpAuthConfig, StdioAuthConfig } from "./AuthConfig.ts"
import { InterceptorConfig } from "./InterceptorConfig.ts"

const NonEmpty = Schema.NonEmptyString

/** A secret: `env:NAME` reads the environment variable NAME; any other string is taken literally. */
export const Secret = NonEmpty.annotate({
  description: "A secret. `env:NAME` reads environment variable NAME when the gateway starts."
})

/** How a server reads path arguments, for `within` / `notWithin` conditions on calls to it. */
export const PathsConfig = Schema.Struct({
  base: Schema.optionalKey(NonEmpty.annotate({
    description:
      "The directory the server resolves relative paths against. Default: a stdio server's cwd; for an HTTP server, " +
      "the gateway's cwd."
  })),
  platform: Schema.optionalKey(
    Schema.Literals(["posix", "win32"]).annotate({
      description:
        "The server's path rules: `\\` separates and names compare case-insensitively only on win32. Default: the " +
        "gateway's platform."
    })
  ),
  resolveSymlinks: Schema.optionalKey(Schema.Boolean.annotate({
    description:
      "Resolve symlinks on the gateway's side (it must share the server's filesystem). Default: true for stdio " +
      "servers, false for HTTP."
  })),
  home: Schema.optionalKey(NonEmpty.annotate({
    description:
      "The directory the server expands a leading `~` to. Default: none known for HTTP servers (a `~` path is then " +
      "denied); for stdio servers, its HOME, while `~` may also be a plain name (a path is judged both ways)."
  }))
})

/** How a 2025-era server's sessions are shared among host connections. */
export const SessionsConfig = Schema.Literals(["shared", "per-host", "per-principal"]).annotate({
  description:
    "For a server that speaks a 2025 revision: `shared` (default) serves every host on one session, and a request " +
    "the server makes of a host (sampling, elicitation) while several hosts' calls run on it is refused; " +
    "`per-host` opens one session (for stdio, one process) per host connection, closed when the host goes, so " +
    "such requests go to exactly that host. A 2026-07-28 server needs neither: its requests come back within " +
    "the call that caused them. `per-principal` gives each principal sessions (for stdio, a process) of its " +
    "own, whatever the revision; it is how `auth.exchange` and `auth.perPrincipal` run, and a stdio " +
    "server with `auth.perPrincipal` must set it."
})

/** The most per-host sessions of one server. */
export const MaxSessionsConfig = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1024 })).annotate({
  description:
    "With `sessions: \"per-host\"` or `\"per-principal\"`, the most such sessions open at once; a further host's or " +
    "principal's call is refused. Default 16."
})

/** Which protocol revision the gateway speaks to a server. */
export const ProtocolConfig = Schema.Literals(["auto", "legacy", "2026-07-28"]).annotate({
  description:
    "`auto` (default) speaks 2026-07-28 to a server that offers it (server/discover) and its newest 2025 revision " +
    "to the rest; `legacy` always speaks a 2025 revision (initialize); `2026-07-28` speaks only that revision and " +
    "refuses a server that does not offer it."
})

/** A downstream server spawned as a child process, spoken to over stdio. */
export const StdioServerConfig = Schema.Struct({
  command: NonEmpty.annotate({ description: "The program to run, for example `npx`." }),
  args: Schema.optionalKey(Schema.Array(Schema.String)),
  env: Schema.optionalKey(Schema.Record(Schema.String, Schema.String)),
  cwd: Schema.optionalKey(Schema.String),
  auth: Schema.optionalKey(StdioAuthConfig),
  paths: Schema.optionalKey(PathsConfig),
  sessions: Schema.optionalKey(SessionsConfig),
  maxSessions: Schema.optionalKey(MaxSessionsConfig),
  protocol: Schema.optionalKey(ProtocolConfig)
})

/** A downstream server reached over Streamable HTTP. */
export const HttpServerConfig = Schema.Struct({
  url: NonEmpty.annotate({ description: "The server's Streamable HTTP endpoint." }),
  headers: Schema.optionalKey(Schema.Record(Schema.String, Schema.String)),
  token: Schema.optionalKey(Secret),
  auth: Schema.optionalKey(HttpAuthConfig),
  paths: Schema.optionalKey(PathsConfig),
  sessions: Schema.optionalKey(SessionsConfig),
  maxSessions: Schema.optionalKey(MaxSessionsConfig),
  protocol: Schema.optionalKey(ProtocolConfig)
})

/** One downstream server: stdio (`command`) or Streamable HTTP (`url`). */
export const ServerConfig = Schema.Union([StdioServerConfig, HttpServerConfig])

/**
 * A matcher: `"*"`, `"server/tool"` (globs within a segment), `"tool"`, or `{ server, regex }`;
 * core's Schema, so the config refuses what core's matchers refuse (an empty part, a regex that
 * needs backtracking).
 */
export const MatcherConfig = MatcherJson

/** Conditions on one top-level argument; every condition given must hold. */
export const ArgCondition = Schema.Struct({
  equals: Schema.optionalKey(Schema.Json),
  startsWith: Schema.optionalKey(Schema.String),
  notStartsWith: Schema.optionalKey(Schema.String),
  matches: Schema.optionalKey(
    Schema.String.annotate({ description: "An RE2 regular expression (linear time: no backreferences or lookaround)." })
  ),
  in: Schema.optionalKey(Schema.Array(Schema.Json)),
  within: Schema.optionalKey(
    Schema.String.annotate({
      description:
        "A path the argument must stay inside, both placed as the call's server would (see the server's `paths`)."
    })
  ),
  notWithin: Schema.optionalKey(
    Schema.String.annotate({
      description:
        "A path the argument must not reach, both placed as the call's server would (see the server's `paths`)."
    })
  )
})

/**
 * One policy rule: core's rule fields, with `when` as argument conditions. The first rule (in
 * order) whose matcher, principals and conditions hold decides.
 */
export const RuleConfig = Schema.Struct({
  ...RuleFields,
  when: Schema.optionalKey(Schema.Struct({ args: Schema.Record(Schema.String, ArgCondition) }))
})

/** The policy: ordered rules and the default decision, or a Cedar policy file (not both). */
export const PolicyConfig = Schema.Struct({
  default: Schema.optionalKey(Decision),
  rules: Schema.optionalKey(Schema.Array(RuleConfig)),
  cedar: Schema.optionalKey(NonEmpty.annotate({
    description: "A Cedar policy file (relative to this config) deciding tools/list, tools/call, resources/read and " +
      "prompts/get; not with rules or default."
  }))
})

/** The built-in secret detectors. */
export const DetectorName = Schema.Literals([
  "aws-access-key",
  "aws-secret-key",
  "bearer-token",
  "private-key",
  "github-token",
  "openai-key",
  "slack-token",
  "jwt"
])

/** Built-in secret detectors' names. */
export type DetectorName = typeof DetectorName.Type

/** One redaction: a regex and/or built-in detectors, applied to results of the matched tools. */
export const RedactConfig = Schema.Struct({
  match: Schema.optionalKey(MatcherConfig),
  pattern: Schema.optionalKey(NonEmpty),
  detectors: Schema.optionalKey(Schema.Union([Schema.Literal("all"), Schema.Array(DetectorName)])),
  replacement: Schema.optionalKey(Schema.String)
})

/** A rate limit per principal and tool: at most `perMinute` calls, with bursts up to `burst`. */
export const RateLimitConfig = Schema.Struct({
  match: Schema.optionalKey(MatcherConfig),
  perMinute: Schema.Finite.check(Schema.isGreaterThan(0)),
  burst: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThan(0)))
})

/** Where and how much the audit store records: a SQLite file (`path`) or a shared Postgres database (`postgres`). */
export const AuditConfig = Schema.Struct({
  path: Schema.optionalKey(
    NonEmpty.annotate({ description: "The SQLite database file (default .interlock/audit.db, or :memory:)." })
  ),
  postgres: Schema.optionalKey(Secret.annotate({
    description:
      "A Postgres URL (postgres://user:password@host:port/database), usually `env:NAME`, instead of path. Several " +
      "gateways can share it."
  })),
  capture: Schema.optionalKey(Schema.Literals(["metadata", "full"])),
  enabled: Schema.optionalKey(Schema.Boolean)
})

/** Where several replicas keep their shared state (rate limits, pending approvals, pins, used approval states). */
export const StateConfig = Schema.Struct({
  postgres: Schema.optionalKey(Secret.annotate({
    description:
      "A Postgres URL, usually `env:NAME`, for the state replicas share; default audit.postgres. Without either, " +
      "the state is this process's own."
  }))
})

/** Approvals for `ask` decisions. */
export const ApprovalsConfig = Schema.Struct({
  timeoutSeconds: Schema.optionalKey(Schema.Finite.check(Schema.isGreaterThan(0))),
  via: Schema.optionalKey(Schema.Literals(["auto", "elicitation", "console"])),
  approvers: Schema.optionalKey(
    Schema.Array(NonEmpty).annotate({
      description:
        "Who may approve in the console: principal names and `role:NAME`. When set, asks go to the console only, " +
        "and no principal approves its own call."
    })
  ),
  stateKey: Schema.optionalKey(Secret.annotate({
    description:
      "The key (at least 32 characters, usually `env:NAME`) sealing the approval states of 2026-07-28 hosts. " +
      "Replicas that share it finish each other's approvals. Default: a key generated at start."
  }))
})

/** A principal: who holds a bearer token. */
export const PrincipalConfig = Schema.Struct({
  token: Secret,
  roles: Schema.optionalKey(Schema.Array(NonEmpty))
})

/**
 * The gateway as an OAuth 2.1 resource server: access tokens (JWTs) of one authorization server, beside the static
 * tokens.
 */
export const OAuthConfig = Schema.Struct({
  issuer: NonEmpty.annotate({
    description:
      "The authorization server's issuer URL, exactly as its tokens' `iss` names it (https, or http on loopback)."
  }),
  audience: Schema.optionalKey(NonEmpty.annotate({
    description:
      "The `aud` every token must carry. Default: the gateway's public MCP URL (listen.publicUrl, or its own " +
      "address, + /mcp)."
  })),
  jwksUri: Schema.optionalKey(NonEmpty.annotate({
    description:
      "The authorization server's key set (JWKS) URL. Default: the jwks_uri of the issuer's metadata (RFC 8414, " +
      "then OpenID Connect discovery)."
  })),
  principalClaim: Schema.optionalKey(
    NonEmpty.annotate({
      description: "The claim whose value is the principal that policy `principals` match. Default \"sub\"."
    })
  ),
  rolesClaim: Schema.optionalKey(NonEmpty.annotate({
    description:
      "The claim holding the principal's roles (an array of strings or a space-separated string; `a.b` reads a " +
      "nested claim), for rules and `role:NAME` approvers."
  })),
  requiredScopes: Schema.optionalKey(
    Schema.Array(NonEmpty).annotate({
      description:
        "Scopes every token must carry in its `scope` claim; a token without them is answered 403 insufficient_scope."
    })
  )
})

/** How the gateway listens toward hosts. */
export const ListenConfig = Schema.Struct({
  http: Schema.optionalKey(NonEmpty.annotate({ description: "HOST:PORT, default 127.0.0.1:7331." })),
  token: Schema.optionalKey(Secret),
  principals: Schema.optionalKey(Schema.Record(Schema.String, PrincipalConfig)),
  consoleToken: Schema.optionalKey(Secret.annotate({
    description:
      "A token for the web console only (not /mcp): its holder sees every call and may approve any pending call."
  })),
  allowedHosts: Schema.optionalKey(Schema.Array(NonEmpty)),
  allowedOrigins: Schema.optionalKey(
    Schema.Array(NonEmpty).annotate({
      description:
        "Origins (scheme://host[:port], port included) a browser request may come from. Default: the gateway's own " +
        "origin(s) on its own port."
    })
  ),
  resumable: Schema.optionalKey(Schema.Boolean.annotate({
    description:
      "Resumable event streams (priming event, retry field, Last-Event-ID replay); every answer to a request is " +
      "then an event stream. Default false."
  })),
  sessionIdleSeconds: Schema.optionalKey(
    Schema.Int.check(Schema.isGreaterThan(0)).annotate({
      description:
        "Seconds an HTTP session may stay idle (no open stream or unanswered request) before it is closed and its " +
        "calls cancelled. Default 1800."
    })
  ),
  maxSessions: Schema.optionalKey(
    Schema.Int.check(Schema.isGreaterThan(0)).annotate({
      description: "The most HTTP sessions open at once; past it, initialize gets 503. Default 1000."
    })
  ),
  maxSessionsPerPrincipal: Schema.optionalKey(
    Schema.Int.check(Schema.isGreaterThan(0)).annotate({
      description:
        "The most HTTP sessions one principal (or the anonymous one) may have open; past it, initialize gets 429. " +
        "Default 100."
    })
  ),
  publicUrl: Schema.optionalKey(NonEmpty.annotate({
    description:
      "The gateway's origin as clients reach it (scheme://host[:port], for example https://mcp.example.com behind a " +
      "proxy): the MCP URL is it + /mcp. Default: the address it listens on."
  })),
  oauth: Schema.optionalKey(OAuthConfig)
})

/** Telemetry export. */
export const TelemetryConfig = Schema.Struct({
  otlp: Schema.optionalKey(
    NonEmpty.annotate({ description: "OTLP/HTTP base URL, for example http://127.0.0.1:4318." })
  ),
  serviceName: Schema.optionalKey(NonEmpty),
  exportIntervalMs: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThan(0)))
})

/**
 * A Claude Code settings object (or its `hooks` section) for `interlock claude-hook`: its command
 * hooks run in the bridge beside the config's policy. Checked by @interlock/claude's settings loader.
 */
export const ClaudeSettingsConfig = Schema.Record(Schema.String, Schema.Unknown).annotate({
  description: "A Claude Code settings.json (or its hooks section) whose command hooks `interlock claude-hook` runs."
})

/** The whole JSON config. */
export const GatewayConfig = Schema.Struct({
  $schema: Schema.optionalKey(Schema.String),
  servers: Schema.Record(Schema.String, ServerConfig),
  namespace: Schema.optionalKey(Schema.Literals(["auto", "always", "never"])),
  policy: Schema.optionalKey(PolicyConfig),
  redact: Schema.optionalKey(Schema.Array(RedactConfig)),
  rateLimits: Schema.optionalKey(Schema.Array(RateLimitConfig)),
  maxResultBytes: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThan(0))),
  pinTools: Schema.optionalKey(Schema.Boolean),
  audit: Schema.optionalKey(AuditConfig),
  state: Schema.optionalKey(StateConfig),
  approvals: Schema.optionalKey(ApprovalsConfig),
  listen: Schema.optionalKey(ListenConfig),
  telemetry: Schema.optionalKey(TelemetryConfig),
  credentials: Schema.optionalKey(CredentialsConfig),
  hookTimeoutMs: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThan(0))),
  callTimeoutMs: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThan(0))),
  claude: Schema.optionalKey(ClaudeSettingsConfig),
  interceptors: Schema.optionalKey(Schema.Array(InterceptorConfig)),
  maxArgBytes: Schema.optionalKey(
    Schema.Int.check(Schema.isGreaterThan(0)).annotate({
      description:
        "The largest arguments of one tools/call, prompts/get or completion/complete, as UTF-8 JSON (bytes); a " +
        "larger call is refused with an error naming the cap. Default 1048576."
    })
  )
})

/** The decoded JSON config. */
export type GatewayConfig = typeof GatewayConfig.Type
/** One downstream server's config. */
export type ServerConfig = typeof ServerConfig.Type
/** One rule as configured. */
export type RuleConfig = typeof RuleConfig.Type
/** One redaction as configured. */
export type RedactConfig = typeof RedactConfig.Type
/** One rate limit as configured. */
export type RateLimitConfig = typeof RateLimitConfig.Type
/** Conditions on one argument. */
export type ArgCondition = typeof ArgCondition.Type

/** The JSON Schema document of the config file (published as interlock.config.schema.json). */
export const jsonSchema = (): Record<string, unknown> => {
  const document = Schema.toJsonSchemaDocument(GatewayConfig)
  return closeObjects({
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: "Interlock gateway config",
    ...(document.schema as Record<string, unknown>),
    ...(Object.keys(document.definitions).length > 0 ? { $defs: document.definitions } : {})
  }) as Record<string, unknown>
}

// The gateway rejects unknown keys, so the published schema says so too (editors flag typos).
const closeObjects = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(closeObjects)
  if (typeof node !== "object" || node === null) return node
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) out[key] = closeObjects(value)
  if (out.type === "object" && typeof out.properties === "object") out.additionalProperties = false
  return out
}
