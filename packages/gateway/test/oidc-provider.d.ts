/** The little of oidc-provider (an untyped package) that the OAuth tests use. */
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http"

  /** A login-and-consent step in progress, as `interactionDetails` reads it from the browser's cookie. */
  export interface Interaction {
    readonly prompt: { readonly name: string; readonly details: Record<string, unknown> }
    readonly params: Record<string, unknown>
    readonly session?: { readonly accountId: string }
    readonly grantId?: string
  }

  /** What a user consented to give one client. */
  export interface Grant {
    addOIDCScope(scope: string): void
    addResourceScope(resource: string, scope: string): void
    /** Stores the grant; resolves to its id. */
    save(): Promise<string>
  }

  /** An OpenID Connect / OAuth 2.1 authorization server. */
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>)
    /** The Node request handler. */
    callback(): (req: IncomingMessage, res: ServerResponse) => void
    /** The interaction the request's cookie names. */
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>
    /** Records the interaction's result and redirects the browser back to the authorization endpoint. */
    interactionFinished(req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>, options?: { readonly mergeWithLastSubmission?: boolean }): Promise<void>
    readonly Grant: {
      new(init: { readonly accountId: string; readonly clientId: string }): Grant
      find(id: string): Promise<Grant | undefined>
    }
  }
}
