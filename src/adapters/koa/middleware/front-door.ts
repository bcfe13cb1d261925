import type { Middleware } from 'koa';
import type { Logger } from '../../../application/ports/logger.js';
import type { Endpoint } from '../endpoint.js';
import { beforeSession } from './before-session.js';
import { errorAnswers } from './error-handler.js';
import { requestLog } from './request-log.js';
import { securityHeaders, type SecurityHeaderOptions } from './security-headers.js';

/**
 * What every request goes through first: the request log around it, the security headers
 * on it, the error page for whatever fails below it, and what answers before any session
 * (probes, static files). One async layer rather than four: they always run together and
 * in this order, and each layer of an async pipeline costs every request a promise and a
 * turn of the event loop (docs/performance.md).
 */
export function frontDoor(options: {
  logger: Logger;
  showStackTraces: boolean;
  headers: SecurityHeaderOptions;
  probes: readonly Endpoint[];
  publicDir: string;
  production: boolean;
}): Middleware {
  const log = requestLog(options.logger);
  const headers = securityHeaders(options.headers);
  const errors = errorAnswers(options.logger, options.showStackTraces);
  const answerBeforeSession = beforeSession(options);
  return async function frontDoor(ctx, next) {
    const started = log.start(ctx);
    // Straight onto the response: nothing has been sent this early, and ctx.set() would
    // build and normalize a new list of the same constant headers on every request.
    for (const [name, value] of headers) ctx.res.setHeader(name, value);
    try {
      const early = answerBeforeSession(ctx);
      await (early ? early(ctx, next) : next());
      const completing = errors.completeEmpty(ctx);
      if (completing) await completing;
    } catch (thrown) {
      await errors.answer(ctx, thrown);
    } finally {
      log.finish(ctx, started);
    }
  };
}
