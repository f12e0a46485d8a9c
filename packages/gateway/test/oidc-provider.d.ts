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

  /** The koa context of a token request, as a grant handler and the grant events see it. */
  export interface GrantContext {
    readonly oidc: {
      readonly params: Record<string, unknown>
      readonly client: { readonly clientId: string } | undefined
    }
    body: unknown
  }

  /** A token the provider issues and signs. */
  export interface IssuedAccessToken {
    resourceServer: unknown
    readonly expiration: number
    /** Stores the token; resolves to its value (a JWT with a JWT-format resource server). */
    save(): Promise<string>
  }

  /** The provider's error classes, answered as OAuth errors. */
  export const errors: {
    readonly InvalidGrant: new(description?: string) => Error
    readonly InvalidRequest: new(description?: string) => Error
  }

  /** An OpenID Connect / OAuth 2.1 authorization server. */
  export default class Provider {
    /** Adds a grant type: `handler` answers the token requests of it, which may carry `params`. */
    registerGrantType(name: string, handler: (ctx: GrantContext) => Promise<void>, params?: ReadonlyArray<string>): void
    /** Listens to the provider's events (`grant.success`, `grant.error`, ...). */
    on(event: string, listener: (ctx: GrantContext, ...rest: ReadonlyArray<unknown>) => void): this
    readonly AccessToken: new(init: Record<string, unknown>) => IssuedAccessToken
    readonly ResourceServer: new(identifier: string, info: Record<string, unknown>) => unknown
    constructor(issuer: string, configuration: Record<string, unknown>)
    /** The Node request handler. */
    callback(): (req: IncomingMessage, res: ServerResponse) => void
    /** The interaction the request's cookie names. */
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>
    /** Records the interaction's result and redirects the browser back to the authorization endpoint. */
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { readonly mergeWithLastSubmission?: boolean }
    ): Promise<void>
    readonly Grant: {
      new(init: { readonly accountId: string; readonly clientId: string }): Grant
      find(id: string): Promise<Grant | undefined>
    }
  }
}
