import { clientKeyOf } from '../../domain/client-key.js';
import { GatehouseError } from '../../domain/errors.js';
import type { SessionStore } from '../ports/session-store.js';

/** The window both limits count in. */
export const ADMINISTRATION_WINDOW_MS = 10 * 60_000;
/** Requests one client may make in a window: a provisioning job writing a few hundred connections fits. */
export const REQUESTS_PER_CLIENT = 600;
/** Refused credentials (no key, a wrong one) one client may present in a window; past it, a refusal is a 429. */
export const REFUSALS_PER_CLIENT = 20;

/**
 * The administration API's rate limits, counted per client (an IPv6 client by its network)
 * in the pending-sign-in store, as the sign-in limits are: so a flood costs each instance
 * one counter per client, and is refused alike by every instance sharing the store. A
 * client past a limit gets 429 until its window ends: a write makes the instance fetch a
 * provider's metadata and ask the DNS, which nobody may make it do at will.
 */
export class AdministrationLimits {
  constructor(
    private readonly store: SessionStore,
    private readonly ipv6PrefixLength: number,
  ) {}

  /** Counts a request; refuses it when the client is past either limit. */
  async countRequest(address: string): Promise<void> {
    const client = clientKeyOf(address, this.ipv6PrefixLength);
    const requests = await this.store.increment(`admin:${client}`, ADMINISTRATION_WINDOW_MS);
    if (requests.count > REQUESTS_PER_CLIENT) throw tooMany(requests.resetsInMs);
  }

  /** Counts credentials refused to the client; past the limit, refuses with 429 rather than 401. */
  async countRefusal(address: string): Promise<void> {
    const client = clientKeyOf(address, this.ipv6PrefixLength);
    const refusals = await this.store.increment(`admin-refused:${client}`, ADMINISTRATION_WINDOW_MS);
    if (refusals.count > REFUSALS_PER_CLIENT) throw tooMany(refusals.resetsInMs);
  }
}

function tooMany(resetsInMs: number): GatehouseError {
  return new GatehouseError(
    'admin.too_many_requests',
    'Too many requests to the administration API from here. Try again later.',
    {
      safe: true,
      retryAfterMs: resetsInMs,
    },
  );
}
