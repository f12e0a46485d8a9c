/**
 * `servers.<id>.auth` as a user writes it: how the gateway authenticates toward one downstream
 * server, beyond the static `token` and `headers`. The forms are checked together (which may be
 * combined, which need what) by the plan builder, which names the path at fault.
 */
import { Schema } from "effect"

const NonEmpty = Schema.NonEmptyString

/** A secret of an auth form: `env:NAME`, `file:PATH` (relative to the config's directory), or the value itself. */
export const AuthSecret = NonEmpty.annotate({
  description:
    "A secret: `env:NAME` reads environment variable NAME, `file:PATH` reads a file (relative to this config, " +
    "trailing newline dropped) when the gateway starts; any other string is taken literally."
})

const tokenUrl = NonEmpty.annotate({
  description: "The authorization server's token endpoint (https, or http on a loopback host)."
})

const clientId = NonEmpty.annotate({ description: "The gateway's client id at the authorization server." })

const clientSecret = AuthSecret.annotate({
  description: "The gateway's client secret (sent with HTTP Basic authentication), usually `env:NAME`."
})

const resource = NonEmpty.annotate({
  description: "The RFC 8707 resource indicator the token is asked for (an absolute URI, usually the server's URL)."
})

/** OAuth client credentials: one service token for the server, cached until near its expiry. */
export const ClientCredentialsConfig = Schema.Struct({
  tokenUrl,
  clientId,
  clientSecret,
  scope: Schema.optionalKey(NonEmpty.annotate({ description: "The scopes asked for, space-separated." })),
  resource: Schema.optionalKey(resource)
})

/**
 * RFC 8693 token exchange: the principal's verified access token (listen.oauth) is traded for one minted for this
 * server.
 */
export const ExchangeConfig = Schema.Struct({
  tokenUrl,
  clientId,
  clientSecret,
  audience: Schema.optionalKey(NonEmpty.annotate({ description: "The `audience` the exchanged token is asked for." })),
  resource: Schema.optionalKey(resource),
  scope: Schema.optionalKey(NonEmpty.annotate({ description: "The scopes asked for, space-separated." }))
})

/**
 * The gateway as an OAuth 2.1 client of the server, one grant per principal: each principal connects once, in a
 * browser, at the gateway's `/connect/<server>` link.
 */
export const OAuthClientConfig = Schema.Struct({
  scope: Schema.optionalKey(NonEmpty.annotate({
    description: "The scopes asked for, space-separated. Default: what the server's metadata asks for."
  })),
  clientId: Schema.optionalKey(NonEmpty.annotate({
    description: "A client id registered beforehand at the authorization server. Default: dynamic registration."
  })),
  clientSecret: Schema.optionalKey(AuthSecret.annotate({
    description: "The registered client's secret (HTTP Basic), usually `env:NAME`; only with clientId."
  })),
  clientMetadataUrl: Schema.optionalKey(NonEmpty.annotate({
    description: "An https URL where the gateway's client metadata document is served, used as its client id " +
      "where the authorization server accepts one."
  }))
})

/** The headers one principal's requests to an HTTP server carry. */
export const PrincipalHeadersConfig = Schema.Struct({
  headers: Schema.Record(NonEmpty, AuthSecret)
})

/** The environment one principal's process of a stdio server gets. */
export const PrincipalEnvConfig = Schema.Struct({
  env: Schema.Record(NonEmpty, AuthSecret)
})

const perPrincipalKeys = (what: string) =>
  `By principal name or \`role:NAME\` (a principal's own entry first, then the first role it holds, in order): ` +
  `${what}. A principal named by none is refused.`

/** A short-lived JWT the gateway signs for each request, naming the principal, its roles and the call's digest. */
export const IdentityConfig = Schema.Struct({
  audience: NonEmpty.annotate({ description: "The `aud` of the identity token: what the server checks it for." }),
  header: Schema.optionalKey(NonEmpty.annotate({
    description:
      "The request header carrying it. Default `Interlock-Identity`; not Authorization, Content-Type or an " +
      "Mcp-* header."
  })),
  ttlSeconds: Schema.optionalKey(
    Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 3600 })).annotate({
      description: "How long an identity token is valid. Default 60."
    })
  )
})

/** How the gateway authenticates toward a Streamable HTTP server. */
export const HttpAuthConfig = Schema.Struct({
  clientCredentials: Schema.optionalKey(ClientCredentialsConfig),
  oauth: Schema.optionalKey(OAuthClientConfig),
  exchange: Schema.optionalKey(ExchangeConfig),
  perPrincipal: Schema.optionalKey(
    Schema.Record(NonEmpty, PrincipalHeadersConfig).annotate({
      description: perPrincipalKeys("the headers its requests carry, `env:` and `file:` values read at start")
    })
  ),
  identity: Schema.optionalKey(IdentityConfig)
})

/** How the gateway authenticates toward a stdio server: each principal's process gets its own environment. */
export const StdioAuthConfig = Schema.Struct({
  perPrincipal: Schema.optionalKey(
    Schema.Record(NonEmpty, PrincipalEnvConfig).annotate({
      description: perPrincipalKeys(
        "the environment of its own process (needs `sessions: \"per-principal\"`), `env:` and `file:` values " +
          "read at start"
      )
    })
  )
})

/** Gateway-wide settings of downstream credentials. */
export const CredentialsConfig = Schema.Struct({
  path: Schema.optionalKey(NonEmpty.annotate({
    description: "A SQLite file (relative to this config) where the principals' auth.oauth grants outlive a " +
      "restart, encrypted with `key`. Default: grants are held in memory only."
  })),
  key: Schema.optionalKey(AuthSecret.annotate({
    description: "The secret (at least 32 characters, usually `env:NAME`) that encrypts the grants in `path` " +
      "(AES-256-GCM); required with `path`."
  })),
  identityKey: Schema.optionalKey(AuthSecret.annotate({
    description:
      "The private key (PKCS #8 PEM: EC P-256, RSA or Ed25519) that signs identity tokens, usually `env:NAME` or " +
      "`file:PATH`; replicas that share it publish the same key set. Default: a P-256 key generated at start."
  }))
})

/** `servers.<id>.auth` of an HTTP server, decoded. */
export type HttpAuthConfig = typeof HttpAuthConfig.Type
/** `servers.<id>.auth` of a stdio server, decoded. */
export type StdioAuthConfig = typeof StdioAuthConfig.Type
