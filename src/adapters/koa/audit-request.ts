import type { Context } from 'koa';
import type { AuditRequest } from '../../application/ports/audit-log.js';

/**
 * The request an audit event happens in: its id (the request log's) and the client
 * address (`TrustProxy` decides whose). Read when an event is written, not before: every
 * signed-in request hands one to the authenticate step, which records an event only when
 * a provider refuses a refresh, and reading the address parses X-Forwarded-For.
 */
export function auditRequest(ctx: Context): AuditRequest {
  return new RequestOfContext(ctx);
}

/** A class, so that its getters live on the prototype: a request allocates one small object, no closures. */
class RequestOfContext implements AuditRequest {
  constructor(private readonly ctx: Context) {}

  get id(): string {
    const id: unknown = this.ctx.state.requestId;
    return typeof id === 'string' ? id : '';
  }

  get clientAddress(): string {
    return this.ctx.ip;
  }

  get trace(): { traceId: string; spanId: string } | undefined {
    return this.ctx.state.trace;
  }
}
