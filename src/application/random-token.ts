import { encodeBase64urlNoPadding } from '@oslojs/encoding';

/**
 * An unguessable token: `bytes` random bytes from the platform's cryptographic source,
 * base64url without padding (256 bits make 43 characters).
 */
export function randomToken(bytes: number = 32): string {
  return encodeBase64urlNoPadding(crypto.getRandomValues(new Uint8Array(bytes)));
}
