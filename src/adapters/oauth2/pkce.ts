import { hash } from 'node:crypto';

/**
 * The PKCE S256 code challenge (RFC 7636 4.2): BASE64URL(SHA-256(ASCII(code_verifier))),
 * computed synchronously with Node's native hash. openid-client's own goes through Web
 * Crypto's asynchronous digest, which measured the largest single cost of a challenge,
 * the request a flood of anonymous visitors can make (docs/performance.md).
 */
export function pkceChallenge(codeVerifier: string): string {
  return hash('sha256', codeVerifier, 'base64url');
}
