import type { Context } from 'koa';
import { GatehouseError } from '../../domain/errors.js';
import { readBody } from './read-body.js';

/** A connection with its certificates and keys is a few KiB: 256 KiB leaves room and bounds the work. */
export const JSON_BODY_LIMIT_BYTES = 256 * 1024;

const refused = (code: string, detail: string) => new GatehouseError(code, detail, { safe: true });

/**
 * Reads an `application/json` body of at most `limitBytes` into a value: a declared larger
 * body is refused before a byte is read, reading stops once the limit is passed, and text
 * that is not JSON is refused without quoting it (it may hold a secret).
 */
export async function readJsonBody(ctx: Context, limitBytes: number = JSON_BODY_LIMIT_BYTES): Promise<unknown> {
  if (!ctx.is('application/json')) {
    throw refused('request.unsupported_type', 'Send the body as application/json.');
  }
  const tooLarge = () => refused('request.too_large', `The body is larger than ${limitBytes / 1024} KiB.`);
  const body = await readBody(ctx, limitBytes, tooLarge);
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw refused('request.invalid_json', 'The body is not valid JSON.');
  }
}
