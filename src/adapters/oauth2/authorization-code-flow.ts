import * as client from 'openid-client';
import { equalSecrets } from '../../application/equal-secrets.js';
import type { Clock } from '../../application/ports/clock.js';
import { randomToken } from '../../application/random-token.js';
import type {
  CallbackMessage,
  ChallengeStart,
  FlowSecrets,
  ProviderIdentity,
  ProviderSession,
  ProviderSessionRecord,
} from '../../application/ports/identity-provider.js';
import type { Logger } from '../../application/ports/logger.js';
import { GatehouseError, isGatehouseError } from '../../domain/errors.js';
import type { ProviderKey } from '../../domain/settings/settings.js';
import { authorizationResponse, reportedOAuthError } from './authorization-response.js';
import { pkceChallenge } from './pkce.js';
import { errorBodyOf, readJsonResource, ResourceAnswerError } from './protected-resource.js';
import { readSessionTokens, tokensSession, toSessionTokens, type SessionTokens } from './session-tokens.js';
import { failureCause } from './failure-cause.js';
import { summarizeLibraryError, translateOAuthError, type OAuthStage } from './translate-oauth-error.js';

export interface AuthorizationCodeFlowOptions {
  /** Named in every log line. */
  provider: ProviderKey;
  /** The authorization server as openid-client knows it: fixed endpoints, or discovered once. */
  configuration: () => Promise<client.Configuration>;
  /** publicOrigin + CallbackPath, built from configuration, never from the Host header. No query or fragment. */
  redirectUri: string;
  /** Already in the provider's spelling. */
  scopes: readonly string[];
  /**
   * OpenID Connect (OIDC Core 3.1): a nonce with every request, an ID token expected in
   * every answer, and the answer POSTed by the provider's page when `form_post`.
   */
  openIdConnect?: { responseMode: 'query' | 'form_post' };
  /**
   * Push each authorization request to the server first (RFC 9126) when its metadata
   * advertises a `pushed_authorization_request_endpoint`: the browser then carries only a
   * `request_uri`. An outbound call per challenge: the caller limits challenges per client.
   */
  pushAuthorizationRequests?: boolean;
  /** The message of the log line of a failed step (`OAuth 2.0 step failed`). */
  failureMessage: string;
  logger: Logger;
  clock: Clock;
  /**
   * What of a vendor's error body may be logged (Microsoft's `error_codes` and `trace_id`):
   * narrowed field by field, never free text, codes or tokens.
   */
  errorDetails?: (body: unknown) => Record<string, unknown> | undefined;
}

/** A token endpoint's answer with openid-client's readers (`claims()` of its ID token). */
export type TokenAnswer = client.TokenEndpointResponse & client.TokenEndpointResponseHelpers;

const flowMissing = () =>
  new GatehouseError(
    'idp.flow_missing',
    'The sign-in could not be completed: it was not started here or was already used.',
    { safe: true },
  );

/**
 * The OAuth 2.0 authorization code grant (RFC 6749 4.1) as every provider here runs it,
 * social or OpenID Connect, on openid-client: `state` always, PKCE S256 (RFC 7636), a
 * nonce for OpenID Connect, the RFC 9207 `iss` check when the server sends one, and bearer
 * calls to the provider's APIs. Every failure is logged once, by code and name (never a
 * code, token or body: External challenge rules, 3), and thrown as an `idp.*`
 * GatehouseError. Adapters compose it, each with its quirks in its own files.
 */
export class AuthorizationCodeFlow {
  readonly #options: AuthorizationCodeFlowOptions;

  constructor(options: AuthorizationCodeFlowOptions) {
    const redirect = URL.canParse(options.redirectUri) ? new URL(options.redirectUri) : undefined;
    if (!redirect || redirect.search !== '' || redirect.hash !== '') {
      throw new GatehouseError('config.invalid', 'The redirect URI must be an absolute URL without query or fragment.');
    }
    this.#options = options;
  }

  /**
   * The authorization request (RFC 6749 4.1.1) with a fresh state and PKCE verifier (and
   * nonce), kept as the flow's secrets; `extra` adds request parameters of the protocol's
   * (`login_hint`), never one of those; pushed first when the server takes pushed requests
   * and the options ask for it (RFC 9126 4: the request is authenticated like a token request).
   */
  async begin(extra: Readonly<Record<string, string>> = {}): Promise<ChallengeStart> {
    const config = await this.#options.configuration();
    // 32 random bytes in base64url, as openid-client's randomState() and
    // randomPKCECodeVerifier() make them, but from the pool (random-token.ts).
    const state = randomToken(32);
    const codeVerifier = randomToken(32);
    const secrets: Record<string, string> = { state, codeVerifier };
    const parameters: Record<string, string> = {
      ...extra,
      response_type: 'code',
      redirect_uri: this.#options.redirectUri,
      state,
      // RFC 7636 4.2: only S256, whatever the server advertises.
      code_challenge: pkceChallenge(codeVerifier),
      code_challenge_method: 'S256',
    };
    if (this.#options.scopes.length > 0) parameters.scope = this.#options.scopes.join(' ');
    const openIdConnect = this.#options.openIdConnect;
    if (openIdConnect) {
      secrets.nonce = parameters.nonce = randomToken(32);
      if (openIdConnect.responseMode === 'form_post') parameters.response_mode = 'form_post';
    }
    const pushed =
      this.#options.pushAuthorizationRequests === true &&
      config.serverMetadata().pushed_authorization_request_endpoint !== undefined;
    const redirectUrl = pushed
      ? await this.call(
          'authorization',
          () => client.buildAuthorizationUrlWithPAR(config, parameters),
          config.serverMetadata().pushed_authorization_request_endpoint,
        )
      : client.buildAuthorizationUrl(config, parameters);
    return { redirectUrl: redirectUrl.href, correlation: state, secrets };
  }

  /** RFC 6749 4.1.2.1: the refusal the server reports in its answer (`access_denied` ...), logged by its code. */
  reportedError(message: CallbackMessage): GatehouseError | undefined {
    const error = reportedOAuthError(message);
    return error ? this.refuse(error) : undefined;
  }

  /** Exchanges the authorization code of the answer for tokens (RFC 6749 4.1.3, 4.1.4; OIDC Core 3.1.3). */
  async redeem(message: CallbackMessage, secrets: FlowSecrets, maxAgeSeconds?: number): Promise<TokenAnswer> {
    const { state, codeVerifier, nonce } = secrets;
    const openIdConnect = this.#options.openIdConnect !== undefined;
    // openid-client fails open: an undefined expectedState, pkceCodeVerifier or expectedNonce
    // means "expect none". Refuse before any network call.
    if (!nonEmpty(state) || !nonEmpty(codeVerifier) || (openIdConnect && !nonEmpty(nonce))) {
      throw this.refuse(flowMissing());
    }
    const parameters = authorizationResponse(message);
    const returnedStates = parameters.getAll('state');
    // RFC 6749 10.12: the answer must carry exactly the state this flow sent.
    if (returnedStates.length !== 1 || !equalSecrets(returnedStates[0] ?? '', state)) {
      throw this.refuse(
        new GatehouseError('idp.state_mismatch', 'The sign-in response does not belong to this sign-in.', {
          safe: true,
        }),
      );
    }
    const config = await this.#options.configuration();
    // openid-client derives the token request's redirect_uri from this URL by dropping the
    // query: rebuild it on the configured redirect URI, never on the request's Host, with
    // the answer's parameters whether they came in the query or in a form_post body.
    const currentUrl = new URL(this.#options.redirectUri);
    for (const [name, value] of parameters) currentUrl.searchParams.append(name, value);
    const checks: client.AuthorizationCodeGrantChecks = { expectedState: state, pkceCodeVerifier: codeVerifier };
    if (openIdConnect) Object.assign(checks, { expectedNonce: nonce, idTokenExpected: true });
    // OIDC Core 3.1.3.7 (11): with max_age requested, auth_time is required and must be recent enough.
    if (openIdConnect && maxAgeSeconds !== undefined) checks.maxAge = maxAgeSeconds;
    return this.call(
      'callback',
      () => client.authorizationCodeGrant(config, currentUrl, checks),
      config.serverMetadata().token_endpoint,
    );
  }

  /**
   * GETs a provider API with the access token (RFC 6750 2.1) and narrows its JSON with
   * `narrow`. An error status, a body that is not JSON or too large, or a field of the
   * wrong type is an `idp.userinfo_failed`.
   */
  async fetchJson<T>(
    url: string,
    accessToken: string,
    headers: Readonly<Record<string, string>>,
    narrow: (json: unknown) => T,
  ): Promise<T> {
    const config = await this.#options.configuration();
    return this.call(
      'userinfo',
      async () => {
        const response = await client.fetchProtectedResource(
          config,
          accessToken,
          new URL(url),
          'GET',
          null,
          new Headers({ accept: 'application/json', ...headers }),
        );
        return narrow(await readJsonResource(response));
      },
      url,
    );
  }

  /**
   * Exchanges the refresh token of kept tokens for new ones (RFC 6749 6); `invalid_grant`,
   * or no refresh token at all, is a definite refusal. `check` may refuse the answer.
   */
  async refresh(
    record: ProviderSessionRecord,
    check?: (answer: TokenAnswer, kept: SessionTokens) => void,
  ): Promise<ProviderSession> {
    const kept = readSessionTokens(record);
    const refreshToken = kept?.refreshToken;
    if (!kept || !refreshToken) {
      throw new GatehouseError('idp.refresh_refused', 'No refresh token was issued for this session.');
    }
    const config = await this.#options.configuration();
    const answer = await this.call(
      'refresh',
      () => client.refreshTokenGrant(config, refreshToken),
      config.serverMetadata().token_endpoint,
    );
    check?.(answer, kept);
    return tokensSession(toSessionTokens(answer, this.#options.clock.now(), kept));
  }

  /** What a completed sign-in yields: the claims, and the tokens only when they are to be kept. */
  identity(
    claims: Record<string, unknown>,
    response: client.TokenEndpointResponse,
    saveTokens: boolean,
  ): ProviderIdentity {
    return saveTokens
      ? { claims, session: tokensSession(toSessionTokens(response, this.#options.clock.now())) }
      : { claims };
  }

  /**
   * Runs one step against the server: a failure is logged once, naming the host it went to
   * (`target`, never its path or query) and why in a few words (failure-cause.ts), and
   * thrown as an `idp.*` error.
   */
  async call<T>(stage: OAuthStage, operation: () => Promise<T>, target?: string | URL): Promise<T> {
    try {
      return await operation();
    } catch (err) {
      const translated = translateOAuthError(err, stage);
      const host = hostOf(target);
      this.#log({
        stage,
        code: translated.code,
        ...(host === undefined ? {} : { host }),
        cause: failureCause(err),
        ...(await this.#diagnose(err)),
      });
      throw translated;
    }
  }

  /** Logs a refusal of our own making and hands it back to be thrown. */
  refuse(error: GatehouseError, stage: OAuthStage = 'callback'): GatehouseError {
    this.#log({ stage, code: error.code });
    return error;
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

  #log(fields: Record<string, unknown>): void {
    const line = { provider: this.#options.provider, ...fields };
    // The person chose Cancel (access_denied): an outcome, not a fault anyone need look at.
    if (fields.code === 'idp.sign_in_cancelled') this.#options.logger.info(line, 'sign-in cancelled at the provider');
    else this.#options.logger.warn(line, this.#options.failureMessage);
  }
}

function nonEmpty(value: string | undefined): value is string {
  return typeof value === 'string' && value.length > 0;
}

/** host:port of where a step went: enough to see a wrong Authority, nothing of a path or query. */
function hostOf(target: string | URL | undefined): string | undefined {
  if (target === undefined) return undefined;
  return URL.canParse(target) ? new URL(target).host : undefined;
}
