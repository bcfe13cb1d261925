import { hash } from 'node:crypto';
import { randomToken } from '../../../application/random-token.js';

/**
 * The session cookie carries only an opaque token of 256 random bits (koa-session's
 * default randomUUID() has 122). The store key is a SHA-256 hash of the token, so a dump
 * of the store yields no usable cookie.
 */
export function newSessionToken(): string {
  return randomToken(32);
}

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** Anything else in the cookie is ignored without a store lookup. */
export function isSessionToken(value: string): boolean {
  return TOKEN_SHAPE.test(value);
}

/**
 * SHA-256 of the token, hex, through Node's native one-shot hash: it runs on every request
 * with a session cookie, and measured several times cheaper than a hash written in
 * JavaScript, and about half the cost of a Hash object (docs/performance.md).
 */
function tokenHash(token: string): string {
  return hash('sha256', token, 'hex');
}

/** What every browser session's store key starts with (the memory store counts them by it for telemetry). */
export const SESSION_KEY_PREFIX = 'session:';

export function sessionStoreKey(token: string): string {
  return `${SESSION_KEY_PREFIX}${tokenHash(token)}`;
}
