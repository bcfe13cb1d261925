import type { HealthCheck, HealthStatus } from '../../application/ports/health-check.js';

/** What a session store offers readiness: an answer within its own time-out, never a throw. */
export interface PingableSessionStore {
  ping(): Promise<boolean>;
}

/**
 * Readiness of the session store, memory or Redis alike. Required: without its store
 * an instance can neither sign anyone in nor recognise anyone signed in.
 */
export class SessionStoreHealthCheck implements HealthCheck {
  readonly name = 'sessionStore';
  readonly required = true;

  constructor(private readonly store: PingableSessionStore) {}

  async check(): Promise<HealthStatus> {
    try {
      return (await this.store.ping()) ? 'up' : 'down';
    } catch {
      return 'down';
    }
  }
}
