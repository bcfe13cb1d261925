import { AuthorizationResponseError, ResponseBodyError, WWWAuthenticateChallengeError } from 'openid-client';
import { GatehouseError, isGatehouseError } from '../../domain/errors.js';
import { oauthErrorCode, providerError } from './authorization-response.js';

/**
 * Which call failed: the same library error means different things at different steps.
 * `metadata` is loading the provider's configuration (OpenID discovery, keys);
 * `authorization` is pushing an authorization request (RFC 9126).
 */
export type OAuthStage = 'metadata' | 'authorization' | 'callback' | 'userinfo' | 'refresh';

/**
 * What may be logged of a library error: names and codes along its cause chain, and the
 * OAuth `error` code of an error response. Never the error object itself: openid-client
 * keeps the authorization code, the token response body and the ID token claims in
 * `cause` and in extra properties.
 */
export interface LibraryErrorSummary {
  name: string;
  code?: string;
  oauthError?: string;
  causes: Array<{ name: string; code?: string }>;
}

const TIMEOUT_CODES = new Set([
  'OAUTH_TIMEOUT',
  'OAUTH_ABORT',
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);
/** ID token checks of oauth4webapi (OIDC Core 3.1.3.7): iss, aud, azp, nonce, exp, iat, signature, key selection. */
const ID_TOKEN_CODES = new Set([
  'OAUTH_JWT_CLAIM_COMPARISON_FAILED',
  'OAUTH_JWT_TIMESTAMP_CHECK_FAILED',
  'OAUTH_KEY_SELECTION_FAILED',
]);

/**
 * The one place where openid-client (and oauth4webapi) errors become Gatehouse codes, for
 * every provider built on openid-client's OAuth 2.0 functions. Anything not recognized
 * fails closed with the stage's default code.
 */
export function translateOAuthError(err: unknown, stage: OAuthStage): GatehouseError {
  if (isGatehouseError(err)) return err;
  const chain = causeChain(err);

  if (
    chain.some(
      (link) => link.name === 'TimeoutError' || link.name === 'AbortError' || TIMEOUT_CODES.has(link.code ?? ''),
    )
  ) {
    return new GatehouseError('idp.timeout', 'The identity provider did not answer in time.', {
      safe: true,
      cause: summaryError(err),
    });
  }
  if (
    chain.some(
      (link) => (link.name === 'TypeError' && link.message === 'fetch failed') || NETWORK_CODES.has(link.code ?? ''),
    )
  ) {
    return unreachable(err);
  }
  // Unusable metadata (issuer mismatch, plain http refused, not JSON) is an outage for this service.
  if (stage === 'metadata') return unreachable(err);

  if (stage === 'authorization') {
    // RFC 9126 2.3: the PAR endpoint's error response (invalid_client, invalid_request ...).
    const oauthError =
      err instanceof ResponseBodyError
        ? oauthErrorCode(err.error)
        : err instanceof WWWAuthenticateChallengeError
          ? 'invalid_client'
          : 'invalid_response';
    return new GatehouseError(
      'idp.authorization_request_refused',
      `The identity provider refused the pushed authorization request (${oauthError}).`,
      { cause: summaryError(err) },
    );
  }
  if (err instanceof AuthorizationResponseError) return providerError(err.error);
  if (stage === 'userinfo') {
    // Includes a userinfo `sub` that differs from the ID token's (OIDC Core 5.3.2).
    return new GatehouseError('idp.userinfo_failed', 'The identity provider did not return the user information.', {
      cause: summaryError(err),
    });
  }
  if (err instanceof ResponseBodyError) {
    // RFC 6749 5.2: the refresh token is invalid, expired or revoked: a definite refusal.
    if (stage === 'refresh' && err.error === 'invalid_grant') {
      return new GatehouseError('idp.refresh_refused', 'The identity provider no longer accepts the refresh token.', {
        cause: summaryError(err),
      });
    }
    return tokenExchangeFailed(err, oauthErrorCode(err.error));
  }
  if (err instanceof WWWAuthenticateChallengeError) {
    return tokenExchangeFailed(err, 'invalid_client');
  }

  const code = chain[0]?.code;
  const detail = chain.map((link) => link.message).join(' / ');
  // OIDC Core 3.1.3.7 (11): max_age was sent (a step-up) and auth_time is missing or too
  // old: the provider did not sign the person in again.
  if (/since the last End-User authentication|"auth_time"/.test(detail)) {
    return new GatehouseError(
      'idp.step_up_stale',
      'The identity provider did not sign you in again: it answered with an earlier sign-in, so this page stays closed.',
      { safe: true, cause: summaryError(err) },
    );
  }
  if (ID_TOKEN_CODES.has(code ?? '') || /\bJW[TS]\b|ID Token|"id_token"/.test(detail)) {
    return new GatehouseError(
      'idp.id_token_invalid',
      'The identity provider returned an ID token that failed validation.',
      { cause: summaryError(err) },
    );
  }
  if (/"state"/.test(detail)) {
    return new GatehouseError('idp.state_mismatch', 'The sign-in response does not belong to this sign-in.', {
      safe: true,
      cause: summaryError(err),
    });
  }
  if (/"iss"/.test(detail)) {
    // RFC 9207: the authorization response names another issuer (mix-up attack).
    return new GatehouseError('idp.issuer_mismatch', 'The sign-in response comes from another identity provider.', {
      safe: true,
      cause: summaryError(err),
    });
  }
  return tokenExchangeFailed(err, 'invalid_response');
}

export function summarizeLibraryError(err: unknown): LibraryErrorSummary {
  const [head, ...causes] = causeChain(err);
  const summary: LibraryErrorSummary = {
    name: head?.name ?? 'unknown',
    causes: causes.map(({ name, code }) => (code === undefined ? { name } : { name, code })),
  };
  if (head?.code !== undefined) summary.code = head.code;
  if (err instanceof ResponseBodyError || err instanceof AuthorizationResponseError)
    summary.oauthError = oauthErrorCode(err.error);
  return summary;
}

function unreachable(err: unknown): GatehouseError {
  return new GatehouseError('idp.unreachable', 'The identity provider could not be reached.', {
    safe: true,
    cause: summaryError(err),
  });
}

function tokenExchangeFailed(err: unknown, oauthError: string): GatehouseError {
  return new GatehouseError(
    'idp.token_exchange_failed',
    `The identity provider did not issue tokens (${oauthError}).`,
    { cause: summaryError(err) },
  );
}

/** A cause safe to keep on the GatehouseError: names and codes, nothing the library carried. */
function summaryError(err: unknown): Error {
  const { name, code } = summarizeLibraryError(err);
  return Object.assign(new Error(code === undefined ? name : `${name} ${code}`), { name: 'OAuthLibraryError', code });
}

interface ChainLink {
  name: string;
  code?: string;
  message: string;
}

/** name, code and message of the error and its Error causes (messages are read to classify, never kept). */
function causeChain(err: unknown): ChainLink[] {
  const links: ChainLink[] = [];
  let current: unknown = err;
  // Only Error causes are followed: the library's other causes are response bodies, claims and keys.
  while (links.length < 6 && current instanceof Error) {
    const code = 'code' in current && typeof current.code === 'string' ? current.code : undefined;
    links.push(
      code === undefined
        ? { name: current.name, message: current.message }
        : { name: current.name, code, message: current.message },
    );
    current = current.cause;
  }
  return links;
}
