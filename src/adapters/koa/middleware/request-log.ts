import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import type { Logger } from '../../../application/ports/logger.js';
import { redactUrl } from '../../logging/redaction.js';

export interface RequestLog {
  /** Names the request (`ctx.state.requestId`) and notes when it began. */
  start(ctx: Context): number;
  /** One line once the request has ended: method, redacted URL, status and duration. */
  finish(ctx: Context, started: number): void;
}

/**
 * One log line per request, after it ends. Headers and bodies are never logged; the
 * query is redacted (redaction.ts). Probes log at debug so they do not drown the log.
 */
export function requestLog(logger: Logger): RequestLog {
  const bootId = randomBytes(4).toString('hex');
  let counter = 0;
  return {
    start(ctx) {
      ctx.state.requestId = `${bootId}-${(++counter).toString(36)}`;
      return performance.now();
    },
    finish(ctx, started) {
      const fields = {
        reqId: ctx.state.requestId,
        method: ctx.method,
        url: redactUrl(ctx.originalUrl),
        status: ctx.status,
        ms: Math.round((performance.now() - started) * 10) / 10,
      };
      if (ctx.path.startsWith('/health')) logger.debug(fields, 'request');
      else logger.info(fields, 'request');
    },
  };
}
