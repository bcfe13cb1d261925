import { newSessionToken, sessionStoreKey } from '../../src/adapters/koa/session/session-token.js';
import type { Gatehouse } from '../../src/bootstrap/gatehouse.js';
import type { Claim, Principal } from '../../src/domain/claims/principal.js';

export interface SignedIn {
  /** `Cookie` header value carrying the session. */
  cookie: string;
  csrf: string;
}

/**
 * Signs a principal in by writing a session through the session-store port, exactly as
 * a completed sign-in leaves it (issue 3 allows this; no production path exists for it).
 */
export async function signIn(gatehouse: Gatehouse, claims: Array<[string, string]>, scheme = 'OpenIdConnect'): Promise<SignedIn> {
  const token = newSessionToken();
  const csrf = newSessionToken();
  const now = Date.now();
  const principal: Principal = { scheme, claims: claims.map(([type, value]): Claim => ({ type, value, issuer: scheme })) };
  await gatehouse.sessionStore.set(sessionStoreKey(token), { principal, csrf, createdAt: now, lastSeenAt: now }, 60_000);
  return { cookie: `gatehouse.sid=${token}`, csrf };
}

export const adminClaims: Array<[string, string]> = [
  ['application:subject', 'admin-1'],
  ['application:name', 'Ada Admin'],
  ['application:role', 'Administrator'],
  ['application:permission', 'application.manage'],
];

export const plainClaims: Array<[string, string]> = [
  ['application:subject', 'user-1'],
  ['application:name', 'Uma User'],
];
