import type { Context } from 'koa';
import type { Logger } from '../../../application/ports/logger.js';
import { isGatehouseError } from '../../../domain/errors.js';
import { loggedWhereRaised, statusForCode } from '../error-status.js';
import { renderError } from '../render-error.js';

export interface ErrorAnswers {
  /**
   * After the pipeline: unmatched routes (404) and router answers such as 405 arrive
   * without a body and get one here. Undefined (synchronously) when the answer is
   * complete: the common case costs no promise.
   */
  completeEmpty(ctx: Context): Promise<void> | undefined;
  /** What the client gets for an error thrown anywhere below the front door. */
  answer(ctx: Context, thrown: unknown): Promise<void>;
}

/**
 * Maps every error to a status and the terminal error page (or problem details). Users
 * see only messages marked safe; the stack is shown in development only, and only for a
 * server error (5xx): a 4xx is a refusal the application meant (bad input, a rate limit,
 * a cancelled sign-in), not a crash to debug. 5xx errors are logged with their code, never
 * with library `cause` objects. Unmatched routes end here as 404, wrong methods as 405.
 */
export function errorAnswers(logger: Logger, showStack: boolean): ErrorAnswers {
  return {
    completeEmpty(ctx) {
      return ctx.status >= 400 && ctx.body == null ? renderError(ctx, { status: ctx.status }) : undefined;
    },
    async answer(ctx, thrown) {
      const { status, code, detail, retryUrl } = classify(thrown);
      const stack = thrown instanceof Error ? thrown.stack : undefined;
      if (status >= 500 && !loggedWhereRaised(code))
        logger.error({ reqId: ctx.state.requestId, err: thrown, code }, 'request failed');
      else logger.info({ reqId: ctx.state.requestId, code, status }, 'request refused');
      // Headers set by inner middleware (a half-written redirect, a cookie) must not survive.
      for (const name of ['location', 'set-cookie', 'content-disposition']) ctx.remove(name);
      await renderError(ctx, {
        status,
        code,
        detail,
        stack: showStack && status >= 500 ? stack : undefined,
        retryAfterMs: isGatehouseError(thrown) ? thrown.retryAfterMs : undefined,
        retryUrl,
      });
    },
  };
}

function classify(thrown: unknown): { status: number; code?: string; detail?: string; retryUrl?: string } {
  if (isGatehouseError(thrown)) {
    return {
      status: statusForCode(thrown.code),
      code: thrown.code,
      detail: thrown.safe ? thrown.message : undefined,
      // Only a local path: the page links to it.
      retryUrl: thrown.retryUrl !== undefined && /^\/(?![/\\])/.test(thrown.retryUrl) ? thrown.retryUrl : undefined,
    };
  }
  const httpError = thrown as { status?: unknown; expose?: unknown; message?: unknown };
  if (typeof httpError.status === 'number' && httpError.status >= 400 && httpError.status < 600) {
    const exposed = httpError.expose === true && typeof httpError.message === 'string';
    return { status: httpError.status, detail: exposed ? (httpError.message as string) : undefined };
  }
  return { status: 500 };
}
