import { sha256 } from '@oslojs/crypto/sha2';
import { encodeBase64urlNoPadding } from '@oslojs/encoding';
import { AUDIT_EVENT_TYPES, type AuditEvent, type AuditLog } from '../../application/ports/audit-log.js';
import type { Clock } from '../../application/ports/clock.js';
import type { Logger } from '../../application/ports/logger.js';

/** The longest `subject` a line carries; `subjectSha256` tells apart two that share their first this many characters. */
export const AUDIT_SUBJECT_MAX_LENGTH = 256;
/** The most policy names one `access.denied` line lists. */
const MAX_POLICIES = 16;

/** An identifier, code or name as an audit field: a string of bounded length, or nothing. */
function text(value: unknown, maxLength: number): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value.slice(0, maxLength) : undefined;
}

/** A dotted lower-case code (`idp.state_mismatch`): anything else is no code. */
function code(value: unknown): string | undefined {
  return typeof value === 'string' && value.length <= 64 && /^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$/.test(value)
    ? value
    : undefined;
}

/** A word of the vocabulary (`user`, `sign_out_everywhere`): anything else is none. */
function word(value: unknown): string | undefined {
  return typeof value === 'string' && /^[a-z][a-z_]{0,39}$/.test(value) ? value : undefined;
}

const EVENT_TYPES: ReadonlySet<string> = new Set(AUDIT_EVENT_TYPES);

/** An event type of the vocabulary; anything else is written as `unknown` rather than lost. */
function eventType(value: unknown): string {
  return typeof value === 'string' && EVENT_TYPES.has(value) ? value : 'unknown';
}

/** The SHA-256 of the whole subject, base64url: the same for every line of one user, however long their identifier. */
function subjectHash(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0
    ? encodeBase64urlNoPadding(sha256(new TextEncoder().encode(value)))
    : undefined;
}

/**
 * Audit events as one JSON line each on the application log, marked `"audit":true` so a
 * log shipper can route them apart, with the UTC time. The line is built from an allow-list
 * of fields, each narrowed to what it may hold and bounded: whatever else an event object
 * carries never reaches the line. A subject longer than the line keeps is cut, and its
 * whole value's hash goes beside it (`subjectSha256`, on every line with a subject), so two
 * long NameIDs that share their beginning still read as two users. Writing never throws
 * into the request that caused the event.
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
        event: eventType(event.type),
        at: new Date(this.clock.now()).toISOString(),
        reqId: text(event.request?.id, 64),
        client: text(event.request?.clientAddress, 64),
        provider: text(event.provider, 64),
        connection: text(event.connection, 64),
        organization: text(event.organization, 200),
        subject: text(event.subject, AUDIT_SUBJECT_MAX_LENGTH),
        subjectSha256: subjectHash(event.subject),
        session: text(event.session, 64),
        code: code(event.code),
        by: word(event.by),
        count: Number.isSafeInteger(event.count) && Number(event.count) >= 0 ? event.count : undefined,
        cause: word(event.cause),
        policies: policies(event.policies),
        actor: text(event.actor, 80),
        fields: names(event.fields),
        domain: text(event.domain, 253),
        link: text(event.link, 32),
        resource: text(event.resource, 64),
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

/** The key names a connection change touched: key-shaped words only, at most 64 of them. */
function names(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value
    .slice(0, 64)
    .filter((item): item is string => typeof item === 'string' && /^[A-Za-z][A-Za-z0-9]{0,63}$/.test(item));
}

/** The policy names an access decision failed: strings only, each bounded, and no more than MAX_POLICIES of them. */
function policies(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const names: string[] = [];
  for (const item of value.slice(0, MAX_POLICIES)) {
    const name = text(item, 128);
    if (name !== undefined) names.push(name);
  }
  return names;
}
