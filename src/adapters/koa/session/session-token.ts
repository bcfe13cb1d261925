import { sha256 } from '@oslojs/crypto/sha2';
import { encodeBase64urlNoPadding, encodeHexLowerCase } from '@oslojs/encoding';

/**
 * The session cookie carries only an opaque token of 256 random bits (koa-session's
 * default randomUUID() has 122). The store key is a SHA-256 hash of the token, so a dump
 * of the store yields no usable cookie.
 */
export function newSessionToken(): string {
  const bytes = randomBytes32();
  const token = encodeBase64urlNoPadding(bytes);
  bytes.fill(0); // a used slice of the pool never lingers
  return token;
}

// koa-session generates an id for every request without a cookie, saved or not, and one
// getRandomValues call per id (a system call) was 4% of the anonymous path's time (npm run
// bench). The bytes are drawn from the OS in blocks instead, as crypto.randomUUID() does.
const TOKENS_PER_REFILL = 128;
const pool = new Uint8Array(32 * TOKENS_PER_REFILL);
let offset = pool.length;

function randomBytes32(): Uint8Array {
  if (offset === pool.length) {
    crypto.getRandomValues(pool);
    offset = 0;
  }
  const bytes = pool.subarray(offset, offset + 32);
  offset += 32;
  return bytes;
}

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** Anything else in the cookie is ignored without a store lookup. */
export function isSessionToken(value: string): boolean {
  return TOKEN_SHAPE.test(value);
}

const utf8 = new TextEncoder();

/** SHA-256 of the token (through @oslojs/crypto), hex. */
function tokenHash(token: string): string {
  return encodeHexLowerCase(sha256(utf8.encode(token)));
}

export function sessionStoreKey(token: string): string {
  return `session:${tokenHash(token)}`;
}
