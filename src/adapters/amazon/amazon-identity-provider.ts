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
import { amazonProfileClaims } from './amazon-profile.js';

/** Login with Amazon (https://developer.amazon.com/docs/login-with-amazon/authorization-code-grant.html). */
const AUTHORIZATION_ENDPOINT = 'https://www.amazon.com/ap/oa';
const TOKEN_ENDPOINT = 'https://api.amazon.com/auth/o2/token';
/** The customer profile: `user_id`, and `name` and `email` with the `profile` scope. */
const USER_INFORMATION_ENDPOINT = 'https://api.amazon.com/user/profile';
const VENDOR_NAME = 'Amazon';
/** Login with Amazon's `profile` covers the name and the email: it has no scope of its own for email. */
const SCOPES: ScopeTranslation = { profile: ['profile'], email: ['profile'] };
/** Scopes that release `user_id`, without which nobody can be signed in. */
const SUBJECT_SCOPES = ['profile', 'profile:user_id'];

/**
 * Sign-in with an Amazon account (Social2): the authorization code grant with PKCE (the
 * authorization request takes `code_challenge`, RECOMMENDED in Amazon's documentation),
 * then the customer profile, whose `user_id` is the subject. Amazon's token type is
 * `bearer` in lower case, which RFC 6749 7.1 allows (openid-client compares it without
 * case). Amazon sends no RFC 9207 `iss`; one that arrives must name the authorization
 * endpoint's origin.
 */
export class AmazonIdentityProvider implements IdentityProvider {
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
    const scopes = vendorScopes(settings.Scopes, SCOPES);
    this.#flow = new AuthorizationCodeFlow({
      ...codeFlowBasics(options),
      server: { issuer: new URL(authorizationEndpoint).origin, authorizationEndpoint, tokenEndpoint },
      scopes: scopes.some((scope) => SUBJECT_SCOPES.includes(scope)) ? scopes : ['profile', ...scopes],
      allowInsecureHttp: usesPlainHttp(authorizationEndpoint, tokenEndpoint, this.#userInformationEndpoint),
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
    const claims = await this.#flow.fetchJson(
      this.#userInformationEndpoint,
      tokens.access_token,
      {},
      amazonProfileClaims,
    );
    return this.#flow.identity(claims, tokens, this.#saveTokens);
  }

  /** Amazon issues a refresh token with every authorization code grant. */
  refreshTokens(tokens: SessionTokens): Promise<SessionTokens> {
    return this.#flow.refresh(tokens);
  }
}
