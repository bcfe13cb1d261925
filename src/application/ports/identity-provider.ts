import type { ProviderKey } from '../../domain/settings/settings.js';
import type { HealthCheck } from './health-check.js';

/** What a provider says of itself: enough to list it on the login page and route its callback. */
export interface IdentityProviderInfo {
  key: ProviderKey;
  /** The scheme name `/External/Challenge?provider=` takes. */
  scheme: string;
  displayName: string;
  /** Where the provider's protocol messages arrive (owned by the authentication middleware, not the endpoint table). */
  callbackPath: string;
}

/** Per-flow values the adapter needs back at the callback (state, nonce, PKCE verifier ...). Kept server-side, single-use. */
export type FlowSecrets = Readonly<Record<string, string>>;

export interface ChallengeStart {
  /** Where to send the browser. */
  redirectUrl: string;
  /** The value the provider echoes back (OAuth `state`), used to find the flow record. */
  state: string;
  secrets: FlowSecrets;
}

/** Tokens kept in the server-side session when SaveTokens is true; never sent to the browser. */
export interface SessionTokens {
  accessToken: string;
  tokenType?: string;
  refreshToken?: string;
  idToken?: string;
  /** Milliseconds since the epoch. */
  expiresAt?: number;
}

/** What a successful callback yields: the provider's raw claims (normalized by the caller) and tokens. */
export interface ProviderIdentity {
  claims: Record<string, unknown>;
  tokens?: SessionTokens;
}

/**
 * One external identity provider (OpenID Connect, SAML2, a social provider). The
 * challenge and callback handling of the application is written once, against this port.
 * Failures throw `GatehouseError` with a stable code: `idp.unreachable`, `idp.timeout`,
 * `idp.provider_error`, `idp.state_mismatch`, `idp.token_exchange_failed`, `idp.id_token_invalid` ...
 */
export interface IdentityProvider {
  readonly info: IdentityProviderInfo;
  /** Starts a challenge: where to send the browser, and the per-flow secrets to keep. */
  beginChallenge(): Promise<ChallengeStart>;
  /** Completes the callback with the URL the browser arrived at and the secrets kept for its flow. */
  completeCallback(callbackUrl: URL, secrets: FlowSecrets): Promise<ProviderIdentity>;
  /** Exchanges a refresh token for fresh tokens, when the provider issues them. */
  refreshTokens?(tokens: SessionTokens): Promise<SessionTokens>;
  /** Where to send the browser to end the provider session too (RP-initiated logout), if supported and enabled. */
  signOutUrl?(tokens: SessionTokens | undefined): Promise<string | undefined>;
  /** Readiness report on the provider's metadata. */
  readonly healthCheck?: HealthCheck;
}

export const IdentityProvidersToken = Symbol('IdentityProvider[]');
