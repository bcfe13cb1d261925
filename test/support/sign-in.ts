import 'reflect-metadata';
import { newSessionToken, sessionStoreKey } from '../../src/adapters/koa/session/session-token.js';
import type { SessionStore } from '../../src/application/ports/session-store.js';
import { SignInRecords } from '../../src/application/sign-in/sign-in-records.js';
import type { Gatehouse } from '../../src/bootstrap/gatehouse.js';
import type { Claim, Principal } from '../../src/domain/claims/principal.js';

/** A running Gatehouse, or the store and settings a Gatehouse in another process shares. */
export type SignInTarget = { stores: { sessions: SessionStore }; settings: Gatehouse['settings'] };

export interface SignedIn {
  /** `Cookie` header value carrying the session. */
  cookie: string;
  token: string;
  csrf: string;
  /** Reference of the sign-in record the session points to. */
  signInRef: string;
}

/**
 * Signs a principal in by writing the records a completed sign-in leaves, through the
 * session-store port and the app's own SignInRecords (issue 3 allows this; no production
 * path exists for it). `times` backdates the session.
 */
export async function signIn(
  gatehouse: SignInTarget,
  claims: Array<[string, string]>,
  options: { scheme?: string; provider?: string; times?: { createdAt: number; lastSeenAt: number } } = {},
): Promise<SignedIn> {
  const scheme = options.scheme ?? 'OpenIdConnect';
  const token = newSessionToken();
  const now = Date.now();
  const principal: Principal = {
    scheme,
    claims: claims.map(([type, value]): Claim => ({ type, value, issuer: scheme })),
  };
  const { ref, csrf } = await new SignInRecords(gatehouse.stores.sessions, gatehouse.settings).create(
    principal,
    options.provider ?? scheme,
  );
  const session = { signIn: ref, ...(options.times ?? { createdAt: now, lastSeenAt: now }) };
  await gatehouse.stores.sessions.create(sessionStoreKey(token), session, 60_000);
  return { cookie: `gatehouse.sid=${token}`, token, csrf, signInRef: ref };
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
