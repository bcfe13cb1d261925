import { createHash } from 'node:crypto';
import { encodeBase64urlNoPadding } from '@oslojs/encoding';

/**
 * The session cookie carries only an opaque token of 256 random bits (koa-session's
 * default randomUUID() has 122). The store key is a SHA-256 hash of the token, so a dump
 * of the store yields no usable cookie.
 */
export function newSessionToken(): string {
  return encodeBase64urlNoPadding(crypto.getRandomValues(new Uint8Array(32)));
}

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** Anything else in the cookie is ignored without a store lookup. */
export function isSessionToken(value: string): boolean {
  return TOKEN_SHAPE.test(value);
}

/**
 * SHA-256 of the token, hex: binds flows to a browser and derives the store key. Node's
 * native hash, not oslo's JavaScript one: this runs on every request with a session
 * cookie, and the native one takes a third of the time (npm run bench).
 */
export function sessionBinding(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export function sessionStoreKey(token: string): string {
  return `session:${sessionBinding(token)}`;
}
