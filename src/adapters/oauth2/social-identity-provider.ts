import * as client from 'openid-client';
import type {
  CallbackEndpoint,
  CallbackMessage,
  ChallengeStart,
  FlowSecrets,
  IdentityProvider,
  IdentityProviderInfo,
  ProviderIdentity,
  ProviderSession,
  ProviderSessionRecord,
} from '../../application/ports/identity-provider.js';
import type { GatehouseError } from '../../domain/errors.js';
import type { AdapterContext } from '../provider-record.js';
import { AuthorizationCodeFlow } from './authorization-code-flow.js';
import { correlateState } from './authorization-response.js';
import type { SocialSettings } from './social-settings.js';
import type { SocialVendor } from './social-vendor.js';
import { timeLimitedFetch } from './time-limited-fetch.js';
import { providerEndpoint } from '../outbound-requests.js';

/**
 * An OAuth 2.0 redirect answer arrives as a GET (RFC 6749 4.1.2); no social vendor here
 * POSTs it, so a POST at the callback path is refused (405) before any body is read.
 */
const REDIRECT_CALLBACK: CallbackEndpoint = Object.freeze({
  messageMethods: Object.freeze(['GET'] as const),
  maxBodyBytes: 0,
});

/**
 * Sign-in with a social vendor's account: the shared authorization code flow at the
 * vendor's fixed endpoints (no discovery), the client secret in the token request body
 * (`client_secret_post`: what Microsoft, Amazon and GitHub document), then the vendor's
 * own reading of the user. One adapter for every vendor; each vendor is a `SocialVendor`.
 */
export class SocialIdentityProvider implements IdentityProvider {
  readonly callback = REDIRECT_CALLBACK;
  readonly #flow: AuthorizationCodeFlow;
  // The protocol's first steps are the shared code flow's.
  readonly beginChallenge = (): Promise<ChallengeStart> => this.#flow.begin();
  readonly correlate = correlateState;
  readonly reportedError = (message: CallbackMessage): GatehouseError | undefined => this.#flow.reportedError(message);
  readonly #vendor: SocialVendor;
  readonly #endpoints: Readonly<Record<string, string>>;
  readonly #scopes: string[];
  readonly #saveTokens: boolean;
  readonly #clock: AdapterContext['clock'];

  constructor(
    readonly info: IdentityProviderInfo,
    settings: SocialSettings,
    vendor: SocialVendor,
    context: AdapterContext,
  ) {
    this.#vendor = vendor;
    this.#saveTokens = settings.SaveTokens;
    this.#clock = context.clock;
    this.#scopes = vendor.scopes(settings.Scopes);
    const configured = settings as unknown as Readonly<Record<string, unknown>>;
    this.#endpoints = Object.fromEntries(
      Object.entries(vendor.endpoints).map(([name, production]) => {
        const override = configured[name];
        return [name, typeof override === 'string' && override.trim() !== '' ? override.trim() : production];
      }),
    );
    const { AuthorizationEndpoint, TokenEndpoint } = vendor.endpoints;
    const authorizationEndpoint = this.#endpoints.AuthorizationEndpoint ?? AuthorizationEndpoint;
    const tokenEndpoint = this.#endpoints.TokenEndpoint ?? TokenEndpoint;
    const configuration = new client.Configuration(
      {
        issuer: vendor.issuer?.(authorizationEndpoint) ?? new URL(authorizationEndpoint).origin,
        authorization_endpoint: authorizationEndpoint,
        token_endpoint: tokenEndpoint,
      },
      settings.ClientId,
      undefined,
      client.ClientSecretPost(settings.ClientSecret),
    );
    configuration.timeout = context.timeoutMs / 1000;
    // A vendor's profile API is its userinfo endpoint, whatever its path.
    const fetch = timeLimitedFetch(
      context.timeoutMs,
      context.outbound && {
        observe: context.outbound(info.key),
        endpointOf: (url) => providerEndpoint(url, configuration.serverMetadata(), 'userinfo'),
      },
    );
    configuration[client.customFetch] = vendor.adjustFetch ? vendor.adjustFetch(tokenEndpoint)(fetch) : fetch;
    // The startup rules accept a plain-http endpoint only on a loopback host outside
    // production (a local server standing in for the vendor); openid-client refuses it unless told.
    if (Object.values(this.#endpoints).some((endpoint) => new URL(endpoint).protocol === 'http:')) {
      client.allowInsecureRequests(configuration);
    }
    this.#flow = new AuthorizationCodeFlow({
      provider: info.key,
      configuration: () => Promise.resolve(configuration),
      redirectUri: new URL(info.callbackPath, context.publicOrigin).href,
      scopes: this.#scopes,
      failureMessage: 'OAuth 2.0 step failed',
      logger: context.logger,
      clock: context.clock,
      ...(vendor.errorDetails ? { errorDetails: vendor.errorDetails } : {}),
    });
    if (vendor.refreshes) this.refreshSession = (record) => this.#flow.refresh(record);
  }

  refreshSession?: (record: ProviderSessionRecord) => Promise<ProviderSession>;

  async completeCallback(message: CallbackMessage, secrets: FlowSecrets): Promise<ProviderIdentity> {
    const tokens = await this.#flow.redeem(message, secrets);
    const claims = await this.#vendor.readUser({
      endpoint: (name) => this.#endpoints[name] ?? '',
      tokens,
      requestedScopes: this.#scopes,
      getJson: (url, headers, narrow) => this.#flow.fetchJson(url, tokens.access_token, headers, narrow),
    });
    // OAuth 2.0 says nothing of when or how the person authenticated: the time Gatehouse
    // received the sign-in stands for it, and no method or class is claimed. These providers
    // take no max_age or acr_values, so they cannot step up (supportsStepUp is absent).
    const authentication = { time: Math.floor(this.#clock.now() / 1000), methods: [], contextClass: undefined };
    return { ...this.#flow.identity(claims, tokens, this.#saveTokens), authentication };
  }
}
