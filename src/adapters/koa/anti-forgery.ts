import { constantTimeEqual } from '@oslojs/crypto/subtle';
import { encodeBase64urlNoPadding } from '@oslojs/encoding';
import type { Context } from 'koa';
import { GatehouseError } from '../../domain/errors.js';

/** A fresh synchronizer token (256 bits), kept in the server-side session. */
export function newAntiForgeryToken(): string {
  return encodeBase64urlNoPadding(crypto.getRandomValues(new Uint8Array(32)));
}

const refused = () =>
  new GatehouseError(
    'antiforgery.invalid',
    'This form has expired or did not come from this site. Reload the page and try again.',
    { safe: true },
  );

/**
 * Anti-forgery validation of an unsafe request: the submitted token must equal the
 * session's (compared in constant time), and the browser's own provenance headers must
 * not say the request came from another site (Origin, Sec-Fetch-Site).
 */
export function verifyAntiForgery(
  ctx: Context,
  expectedOrigin: string,
  sessionToken: unknown,
  submitted: string | undefined,
): void {
  const origin = ctx.get('origin');
  if (origin !== '' && origin !== expectedOrigin) throw refused();
  const fetchSite = ctx.get('sec-fetch-site');
  if (fetchSite !== '' && fetchSite !== 'same-origin' && fetchSite !== 'none') throw refused();
  if (typeof sessionToken !== 'string' || submitted === undefined) throw refused();
  const expected = new TextEncoder().encode(sessionToken);
  const actual = new TextEncoder().encode(submitted);
  if (expected.length !== actual.length || !constantTimeEqual(expected, actual)) throw refused();
}
