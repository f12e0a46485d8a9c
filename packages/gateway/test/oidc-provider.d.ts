/** The little of oidc-provider (an untyped package) that the OAuth tests use. */
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http"

  /** An OpenID Connect / OAuth 2.1 authorization server. */
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>)
    /** The Node request handler. */
    callback(): (req: IncomingMessage, res: ServerResponse) => void
  }
}
