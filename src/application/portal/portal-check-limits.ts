import type { SessionStore } from '../ports/session-store.js';
import type { PortalSession } from './portal-sessions.js';

/** The window the portal's checks are counted in. */
export const PORTAL_CHECK_WINDOW_MS = 10 * 60_000;
/** Checks and saves one portal session may ask for in a window: live checks while typing, debounced, fit. */
export const PORTAL_CHECKS_PER_WINDOW = 60;

/** Whether one more check may run now; when not, how long until the window ends. */
export type CheckAllowance = { allowed: true } | { allowed: false; retryAfterMs: number };

/**
 * A limit on what a portal session makes this server fetch: each live check and each save
 * of the identity provider's details fetches the addresses its admin typed (through the
 * guard against server-side request forgery, but still on this server's network and time).
 * Counted per portal session (by its link, which opened one session only) in the
 * pending-sign-in store, so every instance sharing the store counts together.
 */
export class PortalCheckLimits {
  constructor(private readonly store: SessionStore) {}

  async count(session: PortalSession): Promise<CheckAllowance> {
    const { count, resetsInMs } = await this.store.increment(`portal-checks:${session.linkId}`, PORTAL_CHECK_WINDOW_MS);
    return count > PORTAL_CHECKS_PER_WINDOW ? { allowed: false, retryAfterMs: resetsInMs } : { allowed: true };
  }
}
