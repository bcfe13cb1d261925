// oidc-provider ships no type declarations and @types/oidc-provider is not installed:
// the few members the demo identity provider uses, typed loosely on purpose.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface OidcAccount {
    accountId: string;
    claims(
      use: string,
      scope: string,
      claims: unknown,
      rejected: string[],
    ): Promise<Record<string, unknown>> | Record<string, unknown>;
  }

  export interface ProviderClient {
    grantTypeAllowed(grantType: string): boolean;
  }

  export type ProviderConfiguration = Record<string, unknown>;

  export interface InteractionDetails {
    uid: string;
    prompt: { name: string; details: Record<string, unknown> };
    params: Record<string, string | undefined> & { client_id?: string };
    session?: { accountId?: string };
    grantId?: string;
  }

  export class Grant {
    constructor(properties: { accountId?: string; clientId?: string });
    static find(id: string): Promise<Grant | undefined>;
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    save(): Promise<string>;
  }

  /** The context a prompt's check sees: the request's parameters and the provider's session. */
  export interface CheckContext {
    oidc: { params: Record<string, unknown>; session: { acr?: string } };
  }

  export const interactionPolicy: {
    Check: {
      new (reason: string, description: string, check: (ctx: CheckContext) => boolean): unknown;
      REQUEST_PROMPT: boolean;
      NO_NEED_TO_PROMPT: boolean;
    };
    base(): { get(name: string): { checks: { add(check: unknown): void } } | undefined };
  };

  export default class Provider {
    constructor(issuer: string, configuration?: ProviderConfiguration);
    readonly issuer: string;
    callback(): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
    on(event: string, listener: (...args: unknown[]) => void): this;
    readonly Grant: typeof Grant;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
  }
}
