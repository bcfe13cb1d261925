import type {
  CallbackMessage,
  ChallengeStart,
  FlowSecrets,
  IdentityProvider,
  IdentityProviderInfo,
  ProviderIdentity,
  SessionTokens,
} from '../../application/ports/identity-provider.js';
import type { GatehouseError } from '../../domain/errors.js';
import { AuthorizationCodeFlow, endpointOrDefault } from '../oauth2/authorization-code-flow.js';
import { correlateState } from '../oauth2/authorization-response.js';
import {
  codeFlowBasics,
  REDIRECT_CALLBACK,
  socialProviderInfo,
  usesPlainHttp,
  type SocialProviderOptions,
} from '../oauth2/social-provider-options.js';
import { vendorScopes, type ScopeTranslation } from '../oauth2/vendor-scopes.js';
import { microsoftErrorDetails } from './microsoft-error-details.js';
import { graphUserClaims } from './microsoft-graph-user.js';

/** Microsoft identity platform v2.0, `common` tenant: personal and work or school accounts. */
const AUTHORIZATION_ENDPOINT = 'https://login.microsoftonline.com/common/oauth2/v2.0/authorize';
const TOKEN_ENDPOINT = 'https://login.microsoftonline.com/common/oauth2/v2.0/token';
/** Microsoft Graph: the signed-in user. */
const USER_INFORMATION_ENDPOINT = 'https://graph.microsoft.com/v1.0/me';
const VENDOR_NAME = 'Microsoft';
/** Graph's `GET /me` needs `User.Read`, which also releases the name and both email fields. */
const REQUIRED_SCOPES = ['User.Read'];
const SCOPES: ScopeTranslation = { profile: ['User.Read'], email: ['User.Read'] };

/**
 * Sign-in with a Microsoft account (Social1): the authorization code grant with PKCE at
 * the identity platform's `common` endpoints, then the user from Microsoft Graph `/me`,
 * whose `id` is the subject (as ASP.NET Core's MicrosoftAccount handler does). No
 * `openid` scope, so no ID token: one from `common` names the user's own tenant as its
 * issuer, which no fixed configuration can check (the startup rules refuse `openid`).
 * Microsoft sends no RFC 9207 `iss`; one that arrives must name the authorization
 * endpoint's origin. Token errors carry `error_codes` and `trace_id`, which are logged.
 */
export class MicrosoftIdentityProvider implements IdentityProvider {
  readonly info: IdentityProviderInfo;
  readonly callback = REDIRECT_CALLBACK;
  readonly #flow: AuthorizationCodeFlow;
  readonly #userInformationEndpoint: string;
  readonly #saveTokens: boolean;

  constructor(options: SocialProviderOptions) {
    const { settings } = options;
    const authorizationEndpoint = endpointOrDefault(settings.AuthorizationEndpoint, AUTHORIZATION_ENDPOINT);
    const tokenEndpoint = endpointOrDefault(settings.TokenEndpoint, TOKEN_ENDPOINT);
    this.#userInformationEndpoint = endpointOrDefault(settings.UserInformationEndpoint, USER_INFORMATION_ENDPOINT);
    this.#saveTokens = settings.SaveTokens;
    this.info = socialProviderInfo(options, VENDOR_NAME);
    this.#flow = new AuthorizationCodeFlow({
      ...codeFlowBasics(options),
      server: { issuer: new URL(authorizationEndpoint).origin, authorizationEndpoint, tokenEndpoint },
      scopes: vendorScopes(settings.Scopes, SCOPES, REQUIRED_SCOPES),
      allowInsecureHttp: usesPlainHttp(authorizationEndpoint, tokenEndpoint, this.#userInformationEndpoint),
      errorDetails: microsoftErrorDetails,
    });
  }

  beginChallenge(): Promise<ChallengeStart> {
    return this.#flow.begin();
  }

  correlate(message: CallbackMessage): string | undefined {
    return correlateState(message);
  }

  reportedError(message: CallbackMessage): GatehouseError | undefined {
    return this.#flow.reportedError(message);
  }

  async completeCallback(message: CallbackMessage, secrets: FlowSecrets): Promise<ProviderIdentity> {
    const tokens = await this.#flow.redeem(message, secrets);
    const claims = await this.#flow.fetchJson(this.#userInformationEndpoint, tokens.access_token, {}, graphUserClaims);
    return this.#flow.identity(claims, tokens, this.#saveTokens);
  }

  /** Microsoft issues a refresh token when `offline_access` is among the Scopes. */
  refreshTokens(tokens: SessionTokens): Promise<SessionTokens> {
    return this.#flow.refresh(tokens);
  }
}
