import type { Context } from 'koa';
import { PROBLEM_JSON_TYPE, sendJson } from './json-answer.js';

/** Requests answered with problem details whatever they accept: a server's call (a provider's back-channel logout) reads no pages. */
const machineCalls = new WeakSet<Context>();

/** Marks the request as a server-to-server call: its refusals are problem details, never a page. */
export function answerWithProblems(ctx: Context): void {
  machineCalls.add(ctx);
}

/** JSON clients and `/api/` paths get RFC 9457 problem details instead of pages and redirects. */
export function wantsJson(ctx: Context): boolean {
  return machineCalls.has(ctx) || ctx.path.startsWith('/api/') || ctx.accepts('html', 'json') === 'json';
}

export function sendProblem(
  ctx: Context,
  status: number,
  title: string,
  detail: string | undefined,
  code: string | undefined,
): void {
  ctx.status = status;
  sendJson(
    ctx,
    { type: 'about:blank', title, status, ...(detail ? { detail } : {}), ...(code ? { code } : {}) },
    PROBLEM_JSON_TYPE,
  );
}

const TITLES: Record<number, string> = {
  400: 'Bad request',
  401: 'Sign-in required',
  403: 'Access denied',
  404: 'Page not found',
  405: 'Method not allowed',
  413: 'Request too large',
  429: 'Too many requests',
  500: 'Something went wrong',
  502: 'The identity provider answered unexpectedly',
  503: 'Service unavailable',
};

export function statusTitle(status: number): string {
  return TITLES[status] ?? (status >= 500 ? 'Something went wrong' : 'Request not processed');
}
