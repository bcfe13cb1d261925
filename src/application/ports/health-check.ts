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

/**
 * `degraded`: an optional dependency out of reach whose loss the instance works around (the
 * connection catalog: the connections in force keep signing people in), reported, never
 * taking the instance out of rotation.
 */
export type HealthStatus = 'up' | 'down' | 'degraded';

export const HealthChecksToken = Symbol('HealthCheck[]');
