import type { Context } from 'koa';

const JSON_TYPE = 'application/json; charset=utf-8';
export const PROBLEM_JSON_TYPE = 'application/problem+json; charset=utf-8';

/**
 * Answers `value` as JSON text with its type set by header. Koa would serialize an object
 * body itself, but its body setter first asks whether the object is a web stream, a Blob
 * or a fetch Response, and the first of those questions makes Node load its fetch
 * implementation: about 30 ms of CPU, paid by the first readiness probe at every start
 * (docs/performance.md). A string body skips those questions and Koa's type lookup.
 */
export function sendJson(ctx: Context, value: unknown, type: string = JSON_TYPE): void {
  // Lower case: the name Node keys its header table by (security-headers.ts).
  ctx.set('content-type', type);
  ctx.body = JSON.stringify(value);
}
