import type { Middleware } from 'koa';
import type { Logger } from '../../../application/ports/logger.js';
import { errorHandler } from './error-handler.js';
import { requestLog } from './request-log.js';
import { securityHeaders, type SecurityHeaderOptions } from './security-headers.js';

/**
 * What every request goes through first: the request log around it, the security headers
 * on it, and the error page for whatever fails below it. One layer rather than three: they
 * always run together and in this order, and each layer of an async pipeline costs every
 * request a promise and a turn of the event loop (README, Performance).
 */
export function frontDoor(options: {
  logger: Logger;
  showStackTraces: boolean;
  headers: SecurityHeaderOptions;
}): Middleware {
  const log = requestLog(options.logger);
  const headers = securityHeaders(options.headers);
  const handleErrors = errorHandler(options.logger, options.showStackTraces);
  return async function frontDoor(ctx, next) {
    const started = log.start(ctx);
    // Straight onto the response: nothing has been sent this early, and ctx.set() would
    // build and normalize a new list of the same constant headers on every request.
    for (const [name, value] of headers) ctx.res.setHeader(name, value);
    try {
      await handleErrors(ctx, next);
    } finally {
      log.finish(ctx, started);
    }
  };
}
