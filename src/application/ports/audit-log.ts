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
  'connection.created',
  'connection.changed',
  'connection.removed',
  'domain.added',
  'domain.verified',
  'domain.unverified',
  'domain.removed',
  'setup_link.created',
  'setup_link.used',
  'setup_link.revoked',
  'connection.tested',
  'connection.activated',
  'connection.certificate_expiring',
  'directory.user_created',
  'directory.user_updated',
  'directory.user_deactivated',
  'directory.user_reactivated',
  'directory.user_deleted',
  'directory.group_created',
  'directory.group_updated',
  'directory.group_deleted',
  'directory.group_membership',
  'scim_token.created',
  'scim_token.revoked',
] as const;

export type AuditEventType = (typeof AUDIT_EVENT_TYPES)[number];

/** Who ended a session. */
export type SignOutActor = 'user' | 'provider' | 'administrator' | 'directory' | 'system';

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
  /**
   * Sessions ended at once, and why; on a sign-in, `idp_initiated` when the provider started
   * it; on `connection.certificate_expiring`, the days left (0: expired).
   */
  count?: number;
  cause?: string;
  /** The policies an access decision failed. */
  policies?: readonly string[];
  /**
   * Who changed a connection through the administration API: `staff:<SHA-256 of the
   * subject, base64url>` or `api-key:<the key's id>`; `system` for the domains' re-check.
   */
  actor?: string;
  /** The names of the keys a connection change set or changed (a secret's name, never its value). */
  fields?: readonly string[];
  /** The e-mail domain a `domain.*` event is about. */
  domain?: string;
  /** The id of the setup link a `setup_link.*` event is about (never its token). */
  link?: string;
  /**
   * The directory's id of the user or group a `directory.*` event is about (a UUID of
   * Gatehouse's, no personal value), or of the token a `scim_token.*` event is about.
   */
  resource?: string;
}

/**
 * Where audit events go. Recording never blocks or fails the request that causes it:
 * an adapter that cannot write drops the event (and says so in the log), it never throws.
 */
export interface AuditLog {
  record(event: AuditEvent): void;
}

export const AuditLogToken = Symbol('AuditLog');
