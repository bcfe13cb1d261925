import type { Context } from 'koa';
import { GatehouseError } from '../../domain/errors.js';
import { readBody } from './read-body.js';

/** Gatehouse's own forms (logout) are tiny. */
const OWN_FORM_LIMIT_BYTES = 8 * 1024;

const tooLarge = () => new GatehouseError('request.too_large', 'The form is too large.', { safe: true });

/**
 * Reads an `application/x-www-form-urlencoded` body of at most `limitBytes`: a declared
 * larger body is refused before a byte is read, and reading stops as soon as the limit is
 * passed. Other content types yield no fields (the caller's checks then refuse the request).
 */
export async function readForm(ctx: Context, limitBytes: number = OWN_FORM_LIMIT_BYTES): Promise<URLSearchParams> {
  if (!ctx.is('application/x-www-form-urlencoded')) return new URLSearchParams();
  return new URLSearchParams((await readBody(ctx, limitBytes, tooLarge)).toString('utf8'));
}
