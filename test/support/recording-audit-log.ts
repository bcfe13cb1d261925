import type { AuditEvent, AuditLog } from '../../src/application/ports/audit-log.js';

/** An audit log that keeps what it is given, for tests that check which events a use case records. */
export class RecordingAuditLog implements AuditLog {
  readonly events: AuditEvent[] = [];

  record(event: AuditEvent): void {
    this.events.push(event);
  }

  ofType(type: AuditEvent['type']): AuditEvent[] {
    return this.events.filter((event) => event.type === type);
  }
}
