/**
 * The `sub` of an ID token we received and validated earlier (it comes from our own
 * session, not from the network), or undefined when it cannot be read.
 */
export function subjectOfIdToken(idToken: string): string | undefined {
  const payload = idToken.split('.')[1];
  if (payload === undefined) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    return typeof claims === 'object' && claims !== null && 'sub' in claims && typeof claims.sub === 'string'
      ? claims.sub
      : undefined;
  } catch {
    return undefined;
  }
}
