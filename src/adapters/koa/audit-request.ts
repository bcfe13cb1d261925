import type { Context } from 'koa';
import type { AuditRequest } from '../../application/ports/audit-log.js';

/** The request an audit event happens in: its id (the request log's) and the client address (`TrustProxy` decides whose). */
export function auditRequest(ctx: Context): AuditRequest {
  return { id: typeof ctx.state.requestId === 'string' ? ctx.state.requestId : '', clientAddress: ctx.ip };
}
