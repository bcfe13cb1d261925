import type { TokenEndpointResponse } from 'openid-client';
import type { SessionTokens } from '../../application/ports/identity-provider.js';

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
