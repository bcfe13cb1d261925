/**
 * A dependency that readiness reports on: the session store, an identity provider's
 * metadata. `check` must answer within its own time-out and never throw.
 */
export interface HealthCheck {
  /** Short, stable and free of hosts or versions: `sessionStore`, `identityProvider:OpenIdConnect`. */
  readonly name: string;
  /** A required dependency that is down makes the instance not ready. */
  readonly required: boolean;
  check(): Promise<HealthStatus>;
}

export type HealthStatus = 'up' | 'down';

export const HealthChecksToken = Symbol('HealthCheck[]');
