import type { AuditEvent, AuditLog } from '../../application/ports/audit-log.js';
import type { Clock } from '../../application/ports/clock.js';
import type { Logger } from '../../application/ports/logger.js';

/** An identifier, code or name as an audit field: a string of bounded length, or nothing. */
function text(value: unknown, maxLength = 256): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value.slice(0, maxLength) : undefined;
}

/** A dotted lower-case code (`idp.state_mismatch`): anything else is no code. */
function code(value: unknown): string | undefined {
  return typeof value === 'string' && /^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$/.test(value) ? value : undefined;
}

/** A word of the vocabulary (`user`, `sign_out_everywhere`): anything else is none. */
function word(value: unknown): string | undefined {
  return typeof value === 'string' && /^[a-z][a-z_]{0,39}$/.test(value) ? value : undefined;
}

/**
 * Audit events as one JSON line each on the application log, marked `"audit":true` so a
 * log shipper can route them apart, with the UTC time. The line is built from an allow-list
 * of fields, each narrowed to what it may hold: whatever else an event object carries
 * never reaches the line. Writing never throws into the request that caused the event.
 */
export class LogLineAuditLog implements AuditLog {
  constructor(
    private readonly logger: Logger,
    private readonly clock: Clock,
  ) {}

  record(event: AuditEvent): void {
    try {
      const fields: Record<string, unknown> = {
        audit: true,
        event: event.type,
        at: new Date(this.clock.now()).toISOString(),
        reqId: text(event.request?.id, 64),
        client: text(event.request?.clientAddress, 64),
        provider: text(event.provider, 64),
        connection: text(event.connection, 64),
        organization: text(event.organization, 200),
        subject: text(event.subject),
        session: text(event.session, 64),
        code: code(event.code),
        by: word(event.by),
        count: typeof event.count === 'number' && Number.isInteger(event.count) ? event.count : undefined,
        cause: word(event.cause),
        policies: Array.isArray(event.policies) ? event.policies.map((policy) => text(policy, 128)) : undefined,
      };
      for (const [name, value] of Object.entries(fields)) if (value === undefined) delete fields[name];
      this.logger.info(fields, 'audit');
    } catch {
      // Auditing must not fail the request; the log line below is the trace of the loss.
      try {
        this.logger.warn({ audit: true, event: 'audit.dropped' }, 'an audit event could not be written');
      } catch {
        // Nothing is left to write with.
      }
    }
  }
}
