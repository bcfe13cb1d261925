import type { CounterName, DurationName } from '../../application/ports/telemetry.js';

/** What each counter the application records means (the metric's description). */
export const COUNTERS: Readonly<Record<CounterName, string>> = {
  'gatehouse.authentication.challenges':
    'Sign-ins started: the browser sent to an identity provider, or refused before.',
  'gatehouse.authentication.sign_ins': 'Sign-ins completed at a callback, successful or refused.',
  'gatehouse.authentication.sign_outs': 'Sessions ended, by cause.',
  'gatehouse.authorization.attempts': 'Endpoint authorization decisions, by policy and result.',
  'gatehouse.rate_limit.refusals': 'Requests refused by a rate limit.',
  'gatehouse.directory.operations': "SCIM requests of organizations' directories, by resource, operation and outcome.",
};

/** The histograms of seconds: the application's, then the adapters' own. */
export const DURATIONS: Readonly<Record<DurationName | AdapterDurationName, string>> = {
  'gatehouse.authentication.callback.duration': 'Time to complete a sign-in at the callback, provider calls included.',
  'gatehouse.session_store.operation.duration': 'Time of one session-store operation.',
  'gatehouse.identity_provider.request.duration': 'Time of one outbound request to an identity provider.',
  'http.server.request.duration': 'Duration of HTTP server requests.',
};

export type AdapterDurationName =
  | 'gatehouse.session_store.operation.duration'
  | 'gatehouse.identity_provider.request.duration'
  | 'http.server.request.duration';

/** The OpenTelemetry semantic conventions' buckets for HTTP durations, used for every duration here (seconds). */
export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

/** The observable gauge of sessions held, where the store can count them cheaply (the memory store). */
export const ACTIVE_SESSIONS = 'gatehouse.sessions.active';

/** The observable gauge of seconds until each connection's earliest signing certificate expires (`provider`: its name). */
export const CERTIFICATE_EXPIRY = 'gatehouse.connection.certificate.expiry';

/**
 * Every attribute key any metric or span of Gatehouse may carry: a test fails when an
 * exported metric or span carries another (each value set is bounded: docs/operations.md).
 */
export const ALLOWED_ATTRIBUTE_KEYS: ReadonlySet<string> = new Set([
  'provider',
  'outcome',
  'error.type',
  'cause',
  'by',
  'policy',
  'result',
  'limit',
  'store',
  'operation',
  'resource',
  'endpoint',
  'http.request.method',
  'http.route',
  'http.response.status_code',
  'url.scheme',
  'server.address',
  'server.port',
  // The one set a counter folds further sets into past its cardinality limit (cumulative-counter.ts).
  'otel.metric.overflow',
]);
