import * as client from 'openid-client';
import { equalSecrets } from '../../application/equal-secrets.js';
import type { Clock } from '../../application/ports/clock.js';
import type { HealthCheck } from '../../application/ports/health-check.js';
import type {
  CallbackEndpoint,
  CallbackMessage,
  ChallengeStart,
  FlowSecrets,
  IdentityProvider,
  IdentityProviderInfo,
  ProviderIdentity,
  SessionTokens,
} from '../../application/ports/identity-provider.js';
import type { Logger } from '../../application/ports/logger.js';
import { GatehouseError, isGatehouseError } from '../../domain/errors.js';
import type { OpenIdConnectSettings } from '../../domain/settings/settings.js';
import { authorizationResponse, correlateState, reportedOAuthError } from '../oauth2/authorization-response.js';
import { LoadedOnce } from '../loaded-once.js';
import { toSessionTokens } from '../oauth2/session-tokens.js';
import { timeLimitedFetch } from '../oauth2/time-limited-fetch.js';
import { summarizeLibraryError, translateOAuthError, type OAuthStage } from '../oauth2/translate-oauth-error.js';
import { subjectOfIdToken } from './session-tokens.js';
import { pkceChallenge } from '../oauth2/pkce.js';

export interface OidcProviderOptions {
  key: 'OpenIdConnect';
  settings: OpenIdConnectSettings;
  /** publicOrigin + CallbackPath, built by the caller from configuration, never from the Host header. No query or fragment. */
  redirectUri: string;
  postLogoutRedirectUri: string;
  /** Time-out of every outbound call (discovery, token, userinfo, JWKS, refresh). */
  timeoutMs: number;
  /** Lets openid-client talk plain http: only for loopback authorities outside production (the caller decides). */
  allowInsecureHttp: boolean;
  logger: Logger;
  /** The one ID token signature algorithm accepted (`id_token_signed_response_alg`). Default RS256; never `none` or HS*. */
  idTokenSigningAlg?: string;
  clock?: Clock;
}

/** ID token claims that userinfo must not overwrite (OIDC Core 2 and 5.3.2). */
const PROTOCOL_CLAIMS = new Set(
  'iss sub aud exp iat nbf nonce azp auth_time acr amr at_hash c_hash sid jti'.split(' '),
);

/** An authorization response is a code, a state and an issuer: a form_post body of a few hundred bytes. */
const FORM_POST_LIMIT_BYTES = 16 * 1024;

/**
 * OpenID Connect sign-in with openid-client: authorization code + PKCE (S256), state and
 * nonce, ID tokens checked for issuer, audience, nonce, expiry, *and signature* against
 * the provider's JWKS with one pinned algorithm, then the userinfo endpoint with the
 * subject check. The answer comes back as a redirect (`ResponseMode=query`) or as a form
 * POSTed by the provider's page (`form_post`, which keeps the code out of URLs). Every
 * failure is a GatehouseError (`idp.*`).
 */
export class OidcIdentityProvider implements IdentityProvider {
  readonly info: IdentityProviderInfo;
  readonly callback: CallbackEndpoint;
  readonly healthCheck: HealthCheck;
  readonly #options: OidcProviderOptions;
  readonly #discovery: LoadedOnce<client.Configuration>;
  readonly #clock: Clock;

  constructor(options: OidcProviderOptions) {
    const alg = options.idTokenSigningAlg ?? 'RS256';
    if (alg === 'none' || alg.startsWith('HS')) {
      // Unsigned or client-secret-signed ID tokens prove nothing about who issued them.
      throw new GatehouseError(
        'config.invalid',
        'The OpenID Connect ID token algorithm must be an asymmetric signature algorithm.',
      );
    }
    const redirect = URL.canParse(options.redirectUri) ? new URL(options.redirectUri) : undefined;
    if (!redirect || redirect.search !== '' || redirect.hash !== '') {
      throw new GatehouseError(
        'config.invalid',
        'The OpenID Connect redirect URI must be an absolute URL without query or fragment.',
      );
    }
    if (!(options.timeoutMs > 0))
      throw new GatehouseError('config.invalid', 'The OpenID Connect time-out must be positive.');
    this.#options = { ...options, idTokenSigningAlg: alg };
    this.#clock = options.clock ?? { now: () => Date.now() };
    const { settings } = options;
    this.info = {
      key: options.key,
      scheme: settings.Scheme,
      displayName: settings.DisplayName,
      callbackPath: settings.CallbackPath,
    };
    this.callback = {
      messageMethods: settings.ResponseMode === 'form_post' ? ['POST'] : ['GET'],
      maxBodyBytes: FORM_POST_LIMIT_BYTES,
    };
    this.#discovery = new LoadedOnce(() => this.#discover());
    this.healthCheck = {
      name: `identityProvider:${options.key}`,
      // Not required: an identity-provider outage must not take every replica out of
      // rotation; local sign-in and existing sessions keep working without it.
      required: false,
      check: async () => {
        if (this.#discovery.loaded) return 'up';
        try {
          await this.#discovery.get();
          return 'up';
        } catch {
          return 'down';
        }
      },
    };
  }

  async beginChallenge(): Promise<ChallengeStart> {
    const config = await this.#discovery.get();
    const codeVerifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const parameters: Record<string, string> = {
      response_type: 'code',
      redirect_uri: this.#options.redirectUri,
      scope: this.#options.settings.Scopes.join(' '),
      state,
      nonce,
      // RFC 7636: only S256, whatever the provider advertises.
      code_challenge: pkceChallenge(codeVerifier),
      code_challenge_method: 'S256',
    };
    if (this.#options.settings.ResponseMode === 'form_post') parameters.response_mode = 'form_post';
    const redirectUrl = client.buildAuthorizationUrl(config, parameters);
    return { redirectUrl: redirectUrl.href, correlation: state, secrets: { state, nonce, codeVerifier } };
  }

  correlate(message: CallbackMessage): string | undefined {
    return correlateState(message);
  }

  reportedError(message: CallbackMessage): GatehouseError | undefined {
    const error = reportedOAuthError(message);
    return error ? this.#refuse(error) : undefined;
  }

  async completeCallback(message: CallbackMessage, secrets: FlowSecrets): Promise<ProviderIdentity> {
    const { state, nonce, codeVerifier } = secrets;
    // openid-client fails open: an undefined expectedState, pkceCodeVerifier or expectedNonce
    // means "expect none". Refuse before any network call.
    if (!nonEmpty(state) || !nonEmpty(nonce) || !nonEmpty(codeVerifier)) {
      throw this.#refuse(
        new GatehouseError(
          'idp.flow_missing',
          'The sign-in could not be completed: it was not started here or was already used.',
          { safe: true },
        ),
      );
    }
    const params = authorizationResponse(message);
    const returnedStates = params.getAll('state');
    // RFC 6749 10.12: the response must carry exactly the state this flow sent.
    if (returnedStates.length !== 1 || !equalSecrets(returnedStates[0] ?? '', state)) {
      throw this.#refuse(
        new GatehouseError('idp.state_mismatch', 'The sign-in response does not belong to this sign-in.', {
          safe: true,
        }),
      );
    }

    const config = await this.#discovery.get();
    // The redirect_uri sent to the token endpoint must be the registered one: rebuild the
    // current URL on it (openid-client derives redirect_uri by stripping the query), with
    // the response's parameters whether they came in the query or in a form_post body.
    const currentUrl = new URL(this.#options.redirectUri);
    for (const [name, value] of params) currentUrl.searchParams.append(name, value);

    const response = await this.#call('callback', () =>
      client.authorizationCodeGrant(config, currentUrl, {
        expectedState: state,
        expectedNonce: nonce,
        pkceCodeVerifier: codeVerifier,
        idTokenExpected: true,
      }),
    );
    const idClaims = response.claims();
    if (!idClaims) {
      throw this.#refuse(new GatehouseError('idp.id_token_invalid', 'The identity provider returned no ID token.'));
    }
    const claims: Record<string, unknown> = { ...idClaims };

    if (config.serverMetadata().userinfo_endpoint !== undefined) {
      // OIDC Core 5.3.2: the userinfo `sub` must be the ID token's.
      const userInfo = await this.#call('userinfo', () =>
        client.fetchUserInfo(config, response.access_token, idClaims.sub),
      );
      for (const [name, value] of Object.entries(userInfo)) {
        if (!PROTOCOL_CLAIMS.has(name)) claims[name] = value;
      }
    }
    return this.#options.settings.SaveTokens
      ? { claims, tokens: toSessionTokens(response, this.#clock.now()) }
      : { claims };
  }

  async refreshTokens(tokens: SessionTokens): Promise<SessionTokens> {
    const { refreshToken } = tokens;
    if (!refreshToken) {
      throw new GatehouseError('idp.refresh_refused', 'No refresh token was issued for this session.');
    }
    const config = await this.#discovery.get();
    const response = await this.#call('refresh', () => client.refreshTokenGrant(config, refreshToken));
    // OIDC Core 12.2: a refreshed ID token must name the same subject (iss and aud are checked by openid-client).
    const previousSubject = tokens.idToken === undefined ? undefined : subjectOfIdToken(tokens.idToken);
    const refreshedSubject = response.claims()?.sub;
    if (refreshedSubject !== undefined && previousSubject !== undefined && refreshedSubject !== previousSubject) {
      throw this.#refuse(
        new GatehouseError('idp.id_token_invalid', 'The refreshed ID token names another subject.'),
        'refresh',
      );
    }
    return toSessionTokens(response, this.#clock.now(), tokens);
  }

  async signOutUrl(tokens: SessionTokens | undefined): Promise<string | undefined> {
    if (!this.#options.settings.SignOutAtProvider) return undefined;
    try {
      const config = await this.#discovery.get();
      if (config.serverMetadata().end_session_endpoint === undefined) return undefined;
      // OpenID Connect RP-Initiated Logout 1.0, section 2.
      const parameters: Record<string, string> = { post_logout_redirect_uri: this.#options.postLogoutRedirectUri };
      if (tokens?.idToken) parameters['id_token_hint'] = tokens.idToken;
      return client.buildEndSessionUrl(config, parameters).href;
    } catch (err) {
      // Local sign-out must not fail because the provider is down: just skip its logout.
      // (A failed discovery was logged where it failed.)
      if (!isGatehouseError(err)) {
        this.#log('metadata', translateOAuthError(err, 'metadata').code, summarizeLibraryError(err));
      }
      return undefined;
    }
  }

  async #discover(): Promise<client.Configuration> {
    const { settings, timeoutMs, allowInsecureHttp, idTokenSigningAlg } = this.#options;
    // Signature checks of ID tokens from the token endpoint are off by default (OIDC Core
    // 3.1.3.7 allows relying on TLS); we want them, against the provider's JWKS.
    const execute = allowInsecureHttp
      ? [client.allowInsecureRequests, client.enableNonRepudiationChecks]
      : [client.enableNonRepudiationChecks];
    const metadata: Partial<client.ClientMetadata> = { id_token_signed_response_alg: idTokenSigningAlg };
    const authentication =
      settings.ClientSecret === '' ? client.None() : client.ClientSecretBasic(settings.ClientSecret);
    return this.#call('metadata', () =>
      client.discovery(new URL(settings.Authority), settings.ClientId, metadata, authentication, {
        timeout: timeoutMs / 1000,
        [client.customFetch]: timeLimitedFetch(timeoutMs),
        execute,
      }),
    );
  }

  async #call<T>(stage: OAuthStage, operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (err) {
      const translated = translateOAuthError(err, stage);
      this.#log(stage, translated.code, summarizeLibraryError(err));
      throw translated;
    }
  }

  #refuse(error: GatehouseError, stage: OAuthStage = 'callback'): GatehouseError {
    this.#log(stage, error.code, undefined);
    return error;
  }

  #log(stage: OAuthStage, code: string, library: ReturnType<typeof summarizeLibraryError> | undefined): void {
    const fields =
      library === undefined
        ? { provider: this.info.key, stage, code }
        : { provider: this.info.key, stage, code, library };
    this.#options.logger.warn(fields, 'OpenID Connect step failed');
  }
}

function nonEmpty(value: string | undefined): value is string {
  return typeof value === 'string' && value.length > 0;
}
