import type {
  CallbackMessage,
  ChallengeStart,
  FlowSecrets,
  IdentityProvider,
  IdentityProviderInfo,
  ProviderIdentity,
} from '../../application/ports/identity-provider.js';
import type { GatehouseError } from '../../domain/errors.js';
import type { Social3Settings } from '../../domain/settings/settings.js';
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
import { tokenErrorsAsStatus400 } from './github-token-errors.js';
import { githubUserClaims, verifiedGitHubEmail } from './github-user.js';

/** GitHub OAuth apps (https://docs.github.com/apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps). */
const AUTHORIZATION_ENDPOINT = 'https://github.com/login/oauth/authorize';
const TOKEN_ENDPOINT = 'https://github.com/login/oauth/access_token';
const USER_INFORMATION_ENDPOINT = 'https://api.github.com/user';
const USER_EMAILS_ENDPOINT = 'https://api.github.com/user/emails';
const VENDOR_NAME = 'GitHub';
const SCOPES: ScopeTranslation = { profile: ['read:user'], email: ['user:email'] };
/** Scopes that let `GET /user/emails` answer (without one, GitHub answers 404). */
const EMAIL_SCOPES = ['user:email', 'user'];
/**
 * GitHub's REST API refuses a request without a User-Agent (it asks for the application's
 * name), and asks for its media type and a pinned API version.
 */
const API_HEADERS = {
  'user-agent': 'Gatehouse',
  accept: 'application/vnd.github+json',
  'x-github-api-version': '2022-11-28',
};

/**
 * Sign-in with a GitHub account (Social3): the authorization code grant with PKCE (S256,
 * supported since July 2025), then `GET /user`, whose numeric `id` is the subject (never
 * the renamable `login`), and `GET /user/emails` for a verified address. GitHub's token
 * endpoint answers form-encoded unless asked for JSON (openid-client always asks) and
 * reports errors with HTTP 200 (see github-token-errors.ts). GitHub's issuer,
 * `https://github.com/login/oauth`, is the authorization endpoint's parent: GitHub has
 * sent it as the RFC 9207 `iss`, which must then match.
 */
export class GitHubIdentityProvider implements IdentityProvider {
  readonly info: IdentityProviderInfo;
  readonly callback = REDIRECT_CALLBACK;
  readonly #flow: AuthorizationCodeFlow;
  readonly #scopes: string[];
  readonly #userEndpoint: string;
  readonly #emailsEndpoint: string;
  readonly #saveTokens: boolean;

  constructor(options: SocialProviderOptions<Social3Settings>) {
    const { settings } = options;
    const authorizationEndpoint = endpointOrDefault(settings.AuthorizationEndpoint, AUTHORIZATION_ENDPOINT);
    const tokenEndpoint = endpointOrDefault(settings.TokenEndpoint, TOKEN_ENDPOINT);
    this.#userEndpoint = endpointOrDefault(settings.UserInformationEndpoint, USER_INFORMATION_ENDPOINT);
    this.#emailsEndpoint = endpointOrDefault(settings.UserEmailsEndpoint, USER_EMAILS_ENDPOINT);
    this.#saveTokens = settings.SaveTokens;
    this.#scopes = vendorScopes(settings.Scopes, SCOPES);
    this.info = socialProviderInfo(options, VENDOR_NAME);
    this.#flow = new AuthorizationCodeFlow({
      ...codeFlowBasics(options),
      server: { issuer: parentOf(authorizationEndpoint), authorizationEndpoint, tokenEndpoint },
      scopes: this.#scopes,
      allowInsecureHttp: usesPlainHttp(authorizationEndpoint, tokenEndpoint, this.#userEndpoint, this.#emailsEndpoint),
      adjustFetch: tokenErrorsAsStatus400(tokenEndpoint),
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
    const token = tokens.access_token;
    const claims: Record<string, string> = await this.#flow.fetchJson(
      this.#userEndpoint,
      token,
      API_HEADERS,
      githubUserClaims,
    );
    // GitHub names the granted scopes comma-separated; without any, what was asked for.
    const granted = typeof tokens.scope === 'string' ? tokens.scope.split(/[,\s]+/) : this.#scopes;
    if (granted.some((scope) => EMAIL_SCOPES.includes(scope))) {
      const email = await this.#flow.fetchJson(this.#emailsEndpoint, token, API_HEADERS, verifiedGitHubEmail);
      if (email !== undefined) claims.email = email;
    }
    return this.#flow.identity(claims, tokens, this.#saveTokens);
  }
}

/** `https://github.com/login/oauth/authorize` -> `https://github.com/login/oauth` (also GitHub Enterprise Server's). */
function parentOf(endpoint: string): string {
  const url = new URL(endpoint);
  url.search = '';
  url.hash = '';
  url.pathname = url.pathname.replace(/\/[^/]*$/, '');
  return url.href;
}
