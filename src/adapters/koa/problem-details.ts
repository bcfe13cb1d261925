import type { Context } from 'koa';

/** JSON clients and `/api/` paths get RFC 9457 problem details instead of pages and redirects. */
export function wantsJson(ctx: Context): boolean {
  return ctx.path.startsWith('/api/') || ctx.accepts('html', 'json') === 'json';
}

export function sendProblem(
  ctx: Context,
  status: number,
  title: string,
  detail: string | undefined,
  code: string | undefined,
): void {
  ctx.status = status;
  ctx.type = 'application/problem+json';
  ctx.body = JSON.stringify({
    type: 'about:blank',
    title,
    status,
    ...(detail ? { detail } : {}),
    ...(code ? { code } : {}),
  });
}

const TITLES: Record<number, string> = {
  400: 'Bad request',
  401: 'Sign-in required',
  403: 'Access denied',
  404: 'Page not found',
  405: 'Method not allowed',
  413: 'Request too large',
  500: 'Something went wrong',
  502: 'The identity provider answered unexpectedly',
  503: 'Service unavailable',
};

export function statusTitle(status: number): string {
  return TITLES[status] ?? (status >= 500 ? 'Something went wrong' : 'Request not processed');
}
