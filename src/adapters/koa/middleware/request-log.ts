import { randomBytes } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from '../../../application/ports/logger.js';
import { redactUrl } from '../../logging/redaction.js';

/**
 * One log line per request, after it ends: method, redacted URL, status and duration.
 * Headers and bodies are never logged. Probes log at debug so they do not drown the log.
 */
export function requestLog(logger: Logger): Middleware {
  const bootId = randomBytes(4).toString('hex');
  let counter = 0;
  return async function logRequest(ctx, next) {
    const started = performance.now();
    ctx.state.requestId = `${bootId}-${(++counter).toString(36)}`;
    try {
      await next();
    } finally {
      const fields = {
        reqId: ctx.state.requestId,
        method: ctx.method,
        url: redactUrl(ctx.originalUrl),
        status: ctx.status,
        ms: Math.round((performance.now() - started) * 10) / 10,
      };
      if (ctx.path.startsWith('/health')) logger.debug(fields, 'request');
      else logger.info(fields, 'request');
    }
  };
}
