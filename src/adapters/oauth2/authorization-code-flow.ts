import * as client from 'openid-client';
import { equalSecrets } from '../../application/equal-secrets.js';
import type { Clock } from '../../application/ports/clock.js';
import type {
  CallbackMessage,
  ChallengeStart,
  FlowSecrets,
  ProviderIdentity,
  SessionTokens,
} from '../../application/ports/identity-provider.js';
import type { Logger } from '../../application/ports/logger.js';
import { GatehouseError, isGatehouseError } from '../../domain/errors.js';
import type { ProviderKey } from '../../domain/settings/settings.js';
import { authorizationResponse, reportedOAuthError } from './authorization-response.js';
import { errorBodyOf, readJsonResource, ResourceAnswerError } from './protected-resource.js';
import { toSessionTokens } from './session-tokens.js';
import { timeLimitedFetch } from './time-limited-fetch.js';
import { summarizeLibraryError, translateOAuthError, type OAuthStage } from './translate-oauth-error.js';
import { pkceChallenge } from './pkce.js';

/** A vendor's authorization server: fixed endpoints, no discovery. */
export interface AuthorizationServer {
  /** RFC 9207: an `iss` parameter in the authorization response must equal it. */
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
}

export interface AuthorizationCodeFlowOptions {
  /** Named in every log line. */
  provider: ProviderKey;
  server: AuthorizationServer;
  clientId: string;
  clientSecret: string;
  /** publicOrigin + CallbackPath, built from configuration, never from the Host header. No query or fragment. */
  redirectUri: string;
  /** Already in the vendor's spelling (see vendorScopes). */
  scopes: readonly string[];
  /** Time-out of every outbound call (token, user information, refresh). */
  timeoutMs: number;
  /** Lets openid-client talk plain http: only for loopback endpoints outside production (the startup rules decide). */
  allowInsecureHttp: boolean;
  logger: Logger;
  clock: Clock;
  /** A vendor's adjustment of its HTTP answers before openid-client reads them (GitHub's token errors with status 200). */
  adjustFetch?: (fetch: client.CustomFetch) => client.CustomFetch;
  /**
   * What of a vendor's error body may be logged (Microsoft's `error_codes` and `trace_id`):
   * narrowed field by field, never free text, codes or tokens.
   */
  errorDetails?: (body: unknown) => Record<string, unknown> | undefined;
}

const flowMissing = () =>
  new GatehouseError(
    'idp.flow_missing',
    'The sign-in could not be completed: it was not started here or was already used.',
    {
      safe: true,
    },
  );

/**
 * The OAuth 2.0 authorization code grant (RFC 6749 4.1) as every social provider runs it,
 * on openid-client's OAuth 2.0 functions: `state` always, PKCE S256 (RFC 7636), the
 * client secret in the token request body (`client_secret_post`: what Microsoft, Amazon
 * and GitHub document), the RFC 9207 `iss` check when the vendor sends one, and bearer
 * calls to the vendor's APIs. Every outbound call is bounded by `timeoutMs`; every failure
 * is logged once, by code and name (never a code, token or body: External challenge
 * rules, 3), and thrown as an `idp.*` GatehouseError. Vendors compose it, each in its own
 * handler with its quirks in its own files (External challenge rules, 4).
 */
export class AuthorizationCodeFlow {
  readonly #options: AuthorizationCodeFlowOptions;
  readonly #config: client.Configuration;

  constructor(options: AuthorizationCodeFlowOptions) {
    const redirect = URL.canParse(options.redirectUri) ? new URL(options.redirectUri) : undefined;
    if (!redirect || redirect.search !== '' || redirect.hash !== '') {
      throw new GatehouseError('config.invalid', 'The redirect URI must be an absolute URL without query or fragment.');
    }
    if (!(options.timeoutMs > 0)) throw new GatehouseError('config.invalid', 'The time-out must be positive.');
    if (options.clientId === '' || options.clientSecret === '') {
      throw new GatehouseError('config.invalid', 'A client ID and a client secret are required.');
    }
    this.#options = options;
    const { server } = options;
    this.#config = new client.Configuration(
      {
        issuer: server.issuer,
        authorization_endpoint: server.authorizationEndpoint,
        token_endpoint: server.tokenEndpoint,
      },
      options.clientId,
      undefined,
      client.ClientSecretPost(options.clientSecret),
    );
    this.#config.timeout = options.timeoutMs / 1000;
    const fetch = timeLimitedFetch(options.timeoutMs);
    this.#config[client.customFetch] = options.adjustFetch ? options.adjustFetch(fetch) : fetch;
    if (options.allowInsecureHttp) client.allowInsecureRequests(this.#config);
  }

  /** The authorization request (RFC 6749 4.1.1) with a fresh state and PKCE verifier, kept as the flow's secrets. */
  async begin(): Promise<ChallengeStart> {
    const state = client.randomState();
    const codeVerifier = client.randomPKCECodeVerifier();
    const parameters: Record<string, string> = {
      response_type: 'code',
      redirect_uri: this.#options.redirectUri,
      state,
      // RFC 7636 4.2: only S256; every vendor here accepts it.
      code_challenge: pkceChallenge(codeVerifier),
      code_challenge_method: 'S256',
    };
    if (this.#options.scopes.length > 0) parameters.scope = this.#options.scopes.join(' ');
    const redirectUrl = client.buildAuthorizationUrl(this.#config, parameters);
    return { redirectUrl: redirectUrl.href, correlation: state, secrets: { state, codeVerifier } };
  }

  /** RFC 6749 4.1.2.1: the refusal the vendor reports in its answer (`access_denied` ...), logged by its code. */
  reportedError(message: CallbackMessage): GatehouseError | undefined {
    const error = reportedOAuthError(message);
    if (error) this.#log({ stage: 'callback', code: error.code });
    return error;
  }

  /** Exchanges the authorization code of the answer for tokens (RFC 6749 4.1.3, 4.1.4). */
  async redeem(message: CallbackMessage, secrets: FlowSecrets): Promise<client.TokenEndpointResponse> {
    const { state, codeVerifier } = secrets;
    // openid-client fails open: an undefined expectedState or pkceCodeVerifier means
    // "expect none". Refuse before any network call.
    if (!nonEmpty(state) || !nonEmpty(codeVerifier)) throw this.#refused(flowMissing());
    const parameters = authorizationResponse(message);
    const returnedStates = parameters.getAll('state');
    // RFC 6749 10.12: the answer must carry exactly the state this flow sent.
    if (returnedStates.length !== 1 || !equalSecrets(returnedStates[0] ?? '', state)) {
      throw this.#refused(
        new GatehouseError('idp.state_mismatch', 'The sign-in response does not belong to this sign-in.', {
          safe: true,
        }),
      );
    }
    // openid-client derives the token request's redirect_uri from this URL by dropping the
    // query: rebuild it on the configured redirect URI, never on the request's Host.
    const currentUrl = new URL(this.#options.redirectUri);
    for (const [name, value] of parameters) currentUrl.searchParams.append(name, value);
    return this.#step('callback', () =>
      client.authorizationCodeGrant(this.#config, currentUrl, { expectedState: state, pkceCodeVerifier: codeVerifier }),
    );
  }

  /**
   * GETs a vendor API with the access token (RFC 6750 2.1) and narrows its JSON with
   * `narrow`. An error status, a body that is not JSON or too large, or a field of the
   * wrong type is an `idp.userinfo_failed`.
   */
  async fetchJson<T>(
    url: string,
    accessToken: string,
    headers: Readonly<Record<string, string>>,
    narrow: (json: unknown) => T,
  ): Promise<T> {
    return this.#step('userinfo', async () => {
      const response = await client.fetchProtectedResource(
        this.#config,
        accessToken,
        new URL(url),
        'GET',
        null,
        new Headers({ accept: 'application/json', ...headers }),
      );
      return narrow(await readJsonResource(response));
    });
  }

  /** Exchanges a refresh token for new tokens (RFC 6749 6); `invalid_grant` is a definite refusal. */
  async refresh(tokens: SessionTokens): Promise<SessionTokens> {
    const { refreshToken } = tokens;
    if (!refreshToken) throw new GatehouseError('idp.refresh_refused', 'No refresh token was issued for this session.');
    const response = await this.#step('refresh', () => client.refreshTokenGrant(this.#config, refreshToken));
    return toSessionTokens(response, this.#options.clock.now(), tokens);
  }

  /** What a completed sign-in yields: the claims, and the tokens only when they are to be kept. */
  identity(
    claims: Record<string, unknown>,
    response: client.TokenEndpointResponse,
    saveTokens: boolean,
  ): ProviderIdentity {
    return saveTokens ? { claims, tokens: toSessionTokens(response, this.#options.clock.now()) } : { claims };
  }

  async #step<T>(stage: OAuthStage, operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (err) {
      const translated = translateOAuthError(err, stage);
      this.#log({ stage, code: translated.code, ...(await this.#diagnose(err)) });
      throw translated;
    }
  }

  /** What may be logged of a failure: the library's names and codes, the HTTP status, the vendor's own diagnostics. */
  async #diagnose(err: unknown): Promise<Record<string, unknown>> {
    if (err instanceof ResourceAnswerError) return this.#withVendorDetails({ status: err.status }, err.body);
    if (isGatehouseError(err)) return {};
    const fields: Record<string, unknown> = { library: summarizeLibraryError(err) };
    if (err instanceof client.ResponseBodyError)
      return this.#withVendorDetails({ ...fields, status: err.status }, err.cause);
    if (err instanceof client.WWWAuthenticateChallengeError) {
      // The challenge is thrown before the body is read; the body may still name the request.
      return this.#withVendorDetails({ ...fields, status: err.status }, await errorBodyOf(err.response));
    }
    return fields;
  }

  #withVendorDetails(fields: Record<string, unknown>, body: unknown): Record<string, unknown> {
    const vendor = this.#options.errorDetails?.(body);
    return vendor ? { ...fields, vendor } : fields;
  }

  #refused(error: GatehouseError): GatehouseError {
    this.#log({ stage: 'callback', code: error.code });
    return error;
  }

  #log(fields: Record<string, unknown>): void {
    this.#options.logger.warn({ provider: this.#options.provider, ...fields }, 'OAuth 2.0 step failed');
  }
}

/** An endpoint override, or the vendor's production endpoint when none is configured. */
export function endpointOrDefault(override: string, production: string): string {
  return override.trim() === '' ? production : override.trim();
}

function nonEmpty(value: string | undefined): value is string {
  return typeof value === 'string' && value.length > 0;
}
