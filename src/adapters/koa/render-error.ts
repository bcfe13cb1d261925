import type { Context } from 'koa';
import { sendProblem, statusTitle, wantsJson } from './problem-details.js';

export interface ErrorView {
  status: number;
  /** Stable error code, shown so that operators can match the page to the log line. */
  code?: string;
  /** Only messages marked safe for users; everything else stays in the log. */
  detail?: string;
  /** Development only. */
  stack?: string;
}

/** The terminal error response: a page for browsers, problem details for JSON clients. */
export async function renderError(ctx: Context, view: ErrorView): Promise<void> {
  const title = statusTitle(view.status);
  ctx.set('Cache-Control', 'no-store');
  if (wantsJson(ctx)) {
    sendProblem(ctx, view.status, title, view.detail, view.code);
    return;
  }
  await ctx.render('error', {
    status: view.status,
    title,
    detail: view.detail,
    code: view.code,
    stack: view.stack,
    requestId: ctx.state.requestId,
  });
  ctx.status = view.status;
}
