import { createPublicKey, X509Certificate, type JsonWebKey } from 'node:crypto';
import { instant, quoteShort } from './preflight-context.js';

/** The key types an ID token can be verified with (RFC 7518 6, RFC 8037): `oct` is a shared secret, never published. */
const SIGNATURE_KEY_TYPES = new Set(['RSA', 'EC', 'OKP']);

/**
 * What is wrong with a provider's JSON Web Key Set (RFC 7517 5) for verifying its ID
 * tokens, as sentences: not a key set, no key usable for signatures (an RSA, EC or OKP
 * public key whose `use` is `sig` or absent, RFC 7517 4.2), or a signing key whose
 * certificate (`x5c`, RFC 7517 4.7: the first one holds the key) cannot be read or has
 * expired. A key is named by its `kid` when it has a short one, otherwise by its place.
 */
export function keySetProblems(text: string, now: number): string[] {
  const keys = keysOf(text);
  if (keys === undefined) return ['is not a JSON Web Key Set (an object with a "keys" array)'];
  const problems: string[] = [];
  let signingKeys = 0;
  keys.forEach((key, index) => {
    if (!isSigningKey(key)) return;
    signingKeys += 1;
    const certificates = key.x5c;
    if (certificates === undefined) return;
    const name = typeof key.kid === 'string' && key.kid !== '' ? quoteShort(key.kid) : `number ${index + 1}`;
    const first = Array.isArray(certificates) ? certificates[0] : undefined;
    const notAfter = typeof first === 'string' ? certificateExpiry(first) : undefined;
    if (notAfter === undefined) problems.push(`holds signing key ${name}, whose certificate (x5c) cannot be read`);
    else if (notAfter < now)
      problems.push(`holds signing key ${name}, whose certificate (x5c) expired on ${instant(notAfter)}`);
  });
  if (signingKeys === 0) {
    problems.unshift('holds no key for signatures (an RSA, EC or OKP public key whose "use" is "sig" or absent)');
  }
  return problems;
}

function keysOf(text: string): Array<Record<string, unknown>> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || !('keys' in parsed) || !Array.isArray(parsed.keys)) {
    return undefined;
  }
  return parsed.keys.filter(
    (key): key is Record<string, unknown> => typeof key === 'object' && key !== null && !Array.isArray(key),
  );
}

/** A public key for signatures that Node can read (the way jose will when a token arrives). */
function isSigningKey(key: Record<string, unknown>): boolean {
  if (typeof key.kty !== 'string' || !SIGNATURE_KEY_TYPES.has(key.kty)) return false;
  if (key.use !== undefined && key.use !== 'sig') return false;
  try {
    // Node reads every member and throws on any it cannot use: the type is what it checks, not what it trusts.
    createPublicKey({ key: key as JsonWebKey, format: 'jwk' });
    return true;
  } catch {
    return false;
  }
}

/** The certificate's end of validity (milliseconds), from its base64 DER (not base64url: RFC 7517 4.7). */
function certificateExpiry(der: string): number | undefined {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(der)) return undefined;
  try {
    return Date.parse(new X509Certificate(Buffer.from(der, 'base64')).validTo);
  } catch {
    return undefined;
  }
}
