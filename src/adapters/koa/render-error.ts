import type { Context } from 'koa';
import { sendProblem, statusTitle, wantsJson } from './problem-details.js';

export interface ErrorView {
  status: number;
  /** Stable error code, shown so that operators can match the page to the log line. */
  code?: string;
  /** Only messages marked safe for users; everything else stays in the log. */
  detail?: string;
  /** Development only, and only for a server error (5xx): a refusal is expected, not a crash. */
  stack?: string;
  /** A refusal that ends by itself (a rate limit): when, also sent as `Retry-After`. */
  retryAfterMs?: number;
  /** A refusal a new attempt can mend (a step-up): the local URL that starts one. */
  retryUrl?: string;
}

/**
 * Refusals a person meets by choice rather than by fault, each with a page of its own
 * (still with the code's status, and problem details for JSON clients): cancelling at
 * the identity provider is a change of mind, not an error to report.
 */
const PAGE_BY_CODE: Readonly<Record<string, string>> = {
  'idp.sign_in_cancelled': 'sign-in-cancelled',
};

/** The terminal error response: a page for browsers, problem details for JSON clients. */
export async function renderError(ctx: Context, view: ErrorView): Promise<void> {
  const title = statusTitle(view.status);
  ctx.set('Cache-Control', 'no-store');
  // RFC 9110 10.2.3: a refusal that ends by itself says when (a rate limit's 429).
  if (view.retryAfterMs !== undefined) ctx.set('Retry-After', String(retryAfterSeconds(view.retryAfterMs)));
  if (wantsJson(ctx)) {
    sendProblem(ctx, view.status, title, view.detail, view.code);
    return;
  }
  await ctx.render((view.code && PAGE_BY_CODE[view.code]) ?? 'error', {
    status: view.status,
    title,
    detail: view.detail,
    code: view.code,
    stack: view.stack,
    retryAfterMinutes:
      view.retryAfterMs === undefined ? undefined : Math.ceil(retryAfterSeconds(view.retryAfterMs) / 60),
    requestId: ctx.state.requestId,
    retryUrl: view.retryUrl,
  });
  ctx.status = view.status;
}

function retryAfterSeconds(retryAfterMs: number): number {
  return Math.max(1, Math.ceil(retryAfterMs / 1000));
}
