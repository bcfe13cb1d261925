/**
 * The names an OpenID provider's logout messages give a sign-in (`ProviderIdentity.logoutKeys`):
 * the provider's issuer with the ID token's `sub`, and with its `sid` (the provider
 * session) when it has one. Back-channel logout tokens name one or the other; front-channel
 * logout names the `sid` only. Opaque to the application; unambiguous whatever characters
 * the values hold.
 */
export function logoutKey(issuer: string, kind: 'sid' | 'sub', value: string): string {
  return JSON.stringify([issuer, kind, value]);
}

/** The logout keys of a sign-in whose ID token carried these (already validated) claims. */
export function logoutKeysOf(idClaims: { iss: string; sub: string; sid?: unknown }): string[] {
  const user = logoutKey(idClaims.iss, 'sub', idClaims.sub);
  return typeof idClaims.sid === 'string' && idClaims.sid !== ''
    ? [user, logoutKey(idClaims.iss, 'sid', idClaims.sid)]
    : [user];
}
