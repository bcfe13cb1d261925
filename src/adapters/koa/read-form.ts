import type { Context } from 'koa';
import { GatehouseError } from '../../domain/errors.js';

const LIMIT_BYTES = 8 * 1024;

/**
 * Reads an `application/x-www-form-urlencoded` body of at most 8 KiB. The only forms
 * Gatehouse posts are tiny; anything else is refused rather than buffered. Other content
 * types yield no fields (the caller's checks then refuse the request).
 */
export async function readForm(ctx: Context): Promise<URLSearchParams> {
  if (!ctx.is('application/x-www-form-urlencoded')) return new URLSearchParams();
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > LIMIT_BYTES) throw new GatehouseError('request.too_large', 'The form is too large.', { safe: true });
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > LIMIT_BYTES) throw new GatehouseError('request.too_large', 'The form is too large.', { safe: true });
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/** The single value of a form field; a repeated field is refused like a repeated query parameter. */
export function singleField(form: URLSearchParams, name: string): string | undefined {
  const values = form.getAll(name);
  if (values.length > 1)
    throw new GatehouseError('request.repeated_parameter', `The form field "${name}" must appear at most once.`, {
      safe: true,
    });
  return values[0];
}
