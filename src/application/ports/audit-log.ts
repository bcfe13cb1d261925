import type { ProviderKey } from '../../domain/settings/settings.js';

/** The fixed vocabulary of audit events. */
export const AUDIT_EVENT_TYPES = [
  'signin.succeeded',
  'signin.failed',
  'signin.rate_limited',
  'signout',
  'sessions.ended',
  'access.denied',
  'tokens.refresh_failed',
] as const;

export type AuditEventType = (typeof AUDIT_EVENT_TYPES)[number];

/** Who ended a session. */
export type SignOutActor = 'user' | 'provider' | 'administrator' | 'system';

/** The request an event happened in, when it happened in one. */
export interface AuditRequest {
  /** The request id every log line of the request carries. */
  id: string;
  /** The client address as `Hosting:TrustProxy` defines it. */
  clientAddress: string;
  /**
   * The request's trace when telemetry recorded it (W3C trace context ids, hexadecimal): an
   * application's own AuditLog links an event to its trace with it. Gatehouse's log-line
   * audit gets the same ids from the log line itself (`trace_id`, `span_id`).
   */
  trace?: { traceId: string; spanId: string };
}

/**
 * One audit event. Its fields are the only ones an event can carry: identifiers and codes,
 * never a token, code, assertion, cookie, URL or message text (the adapter writes these
 * fields and nothing else).
 */
export interface AuditEvent {
  type: AuditEventType;
  request?: AuditRequest;
  provider?: ProviderKey;
  /** The connection (an organization's identity provider) it happened through, and its organization. */
  connection?: string;
  organization?: string;
  /** The signed-in user's subject (`application:subject`). */
  subject?: string;
  /** The public identifier of the session, never its cookie value or store key. */
  session?: string;
  /** The `idp.*` / `auth.*` code of a refusal. */
  code?: string;
  /** Who signed out. */
  by?: SignOutActor;
  /** Sessions ended at once, and why; on a sign-in, `idp_initiated` when the provider started it. */
  count?: number;
  cause?: string;
  /** The policies an access decision failed. */
  policies?: readonly string[];
}

/**
 * Where audit events go. Recording never blocks or fails the request that causes it:
 * an adapter that cannot write drops the event (and says so in the log), it never throws.
 */
export interface AuditLog {
  record(event: AuditEvent): void;
}

export const AuditLogToken = Symbol('AuditLog');
