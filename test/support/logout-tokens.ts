import { randomUUID } from 'node:crypto';
import { importJWK, SignJWT, type JWTPayload } from 'jose';

export const BACKCHANNEL_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

/** What a test's logout token says: the claims of a valid one, then `claims` over them (`undefined` removes one). */
export interface LogoutTokenSpec {
  issuer: string;
  audience: string;
  claims?: Record<string, unknown>;
  /** The protected header beyond `alg` and `kid`: `typ` defaults to `logout+jwt`; `undefined` removes it. */
  header?: Record<string, unknown>;
}

/**
 * Signs a logout token as a provider would (OpenID Connect Back-Channel Logout 1.0, 2.4),
 * with jose, independently of Gatehouse's own code: RS256 with the private JWK given (the
 * test provider's own key, or a foreign one).
 */
export async function signLogoutToken(key: JsonWebKey & { kid: string }, spec: LogoutTokenSpec): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const payload: Record<string, unknown> = {
    iss: spec.issuer,
    aud: spec.audience,
    iat: now,
    exp: now + 120,
    jti: randomUUID(),
    events: { [BACKCHANNEL_EVENT]: {} },
    ...spec.claims,
  };
  for (const [name, value] of Object.entries(payload)) if (value === undefined) delete payload[name];
  const header: Record<string, unknown> = { alg: 'RS256', kid: key.kid, typ: 'logout+jwt', ...spec.header };
  for (const [name, value] of Object.entries(header)) if (value === undefined) delete header[name];
  // Claims set whole: SignJWT's setters would add or check what a hostile token must be free to break.
  return new SignJWT(payload as JWTPayload)
    .setProtectedHeader(header as { alg: string })
    .sign(await importJWK(key, 'RS256'));
}

/** An unsecured JWT (`alg: none`) with the claims of a valid logout token. */
export function unsecuredLogoutToken(spec: LogoutTokenSpec): string {
  const now = Math.floor(Date.now() / 1000);
  const payload = {
    iss: spec.issuer,
    aud: spec.audience,
    iat: now,
    exp: now + 120,
    jti: randomUUID(),
    events: { [BACKCHANNEL_EVENT]: {} },
    ...spec.claims,
  };
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${encode({ alg: 'none', typ: 'logout+jwt' })}.${encode(payload)}.`;
}

/** The claims of a JWT we received (read, not verified: the test's own token). */
export function claimsOf(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
}
