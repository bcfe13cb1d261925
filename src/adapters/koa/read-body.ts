import type { Context } from 'koa';

/**
 * The request's body as bytes, of at most `limitBytes`: a declared larger body is refused
 * before a byte is read (`tooLarge` is thrown), and reading stops as soon as the limit is
 * passed, whatever the body claimed.
 */
export async function readBody(ctx: Context, limitBytes: number, tooLarge: () => Error): Promise<Buffer> {
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > limitBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limitBytes) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
