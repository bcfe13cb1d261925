import type { TokenEndpointResponse } from 'openid-client';
import type { ProviderSession, ProviderSessionRecord } from '../../application/ports/identity-provider.js';

/** The tokens an OAuth adapter keeps of a sign-in (its provider-session record) when its settings ask for it. */
export interface SessionTokens {
  accessToken: string;
  tokenType?: string;
  refreshToken?: string;
  idToken?: string;
  /** Milliseconds since the epoch. */
  expiresAt?: number;
}

/**
 * The tokens of a token-endpoint response, as the session keeps them. openid-client has
 * already checked the shapes (access_token and token_type strings, expires_in a number);
 * a refresh response without a new refresh or ID token keeps the previous ones
 * (RFC 6749 6, OIDC Core 12.2).
 */
export function toSessionTokens(response: TokenEndpointResponse, now: number, previous?: SessionTokens): SessionTokens {
  const tokens: SessionTokens = { accessToken: response.access_token, tokenType: response.token_type };
  const refreshToken = typeof response.refresh_token === 'string' ? response.refresh_token : previous?.refreshToken;
  const idToken = typeof response.id_token === 'string' ? response.id_token : previous?.idToken;
  if (refreshToken !== undefined) tokens.refreshToken = refreshToken;
  if (idToken !== undefined) tokens.idToken = idToken;
  if (typeof response.expires_in === 'number') tokens.expiresAt = now + response.expires_in * 1000;
  return tokens;
}

/** The tokens as a provider session: refreshed when the access token expires, if a refresh token was issued. */
export function tokensSession(tokens: SessionTokens): ProviderSession {
  const refreshable = tokens.refreshToken !== undefined && tokens.expiresAt !== undefined;
  return { record: { ...tokens }, ...(refreshable ? { refreshAt: tokens.expiresAt } : {}) };
}

/** Reads a kept record back as tokens, field by field (it was stored outside the process); undefined when it holds none. */
export function readSessionTokens(record: ProviderSessionRecord | undefined): SessionTokens | undefined {
  if (!record) return undefined;
  const { accessToken, tokenType, refreshToken, idToken, expiresAt } = record;
  if (typeof accessToken !== 'string') return undefined;
  return {
    accessToken,
    ...(typeof tokenType === 'string' ? { tokenType } : {}),
    ...(typeof refreshToken === 'string' ? { refreshToken } : {}),
    ...(typeof idToken === 'string' ? { idToken } : {}),
    ...(typeof expiresAt === 'number' ? { expiresAt } : {}),
  };
}
