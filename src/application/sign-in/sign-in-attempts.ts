import { clientKeyOf } from '../../domain/client-key.js';
import { GatehouseError } from '../../domain/errors.js';
import type { ProjectTemplateSettings } from '../../domain/settings/settings.js';
import type { AuditLog, AuditRequest } from '../ports/audit-log.js';
import type { SessionStore } from '../ports/session-store.js';
import type { Telemetry } from '../ports/telemetry.js';
import { FLOW_LIFETIME_MS } from './flow-records.js';

/**
 * What one client may start anonymously: `Session:PendingSignInsPerClient` sign-in
 * attempts per flow lifetime (a challenge, or a discovery by e-mail domain, found or not),
 * counted in the pending-sign-in store under the client's key (clientKeyOf: an IPv6
 * client by its network, `Session:ClientIpv6PrefixLength`), so that no one client can fill
 * that store and evict other people's sign-ins in progress, nor probe domains at will.
 */
export class SignInAttempts {
  private readonly perClient: number;
  private readonly ipv6PrefixLength: number;

  constructor(
    private readonly pending: SessionStore,
    settings: ProjectTemplateSettings,
    private readonly audit: AuditLog,
    private readonly telemetry: Telemetry,
  ) {
    this.perClient = settings.Session.PendingSignInsPerClient;
    this.ipv6PrefixLength = settings.Session.ClientIpv6PrefixLength;
  }

  /**
   * Counts one attempt of the client at `address`; past the limit, refuses it with
   * `auth.too_many_sign_ins` (429, with the time until the window ends).
   */
  async count(address: string, request: AuditRequest | undefined, provider?: string): Promise<void> {
    const client = clientKeyOf(address, this.ipv6PrefixLength);
    const { count, resetsInMs } = await this.pending.increment(`challenges:${client}`, FLOW_LIFETIME_MS);
    if (count <= this.perClient) return;
    // Once per client and window: a flood is one event, not one per refused request.
    if (count === this.perClient + 1) {
      this.audit.record({
        type: 'signin.rate_limited',
        request,
        ...(provider === undefined ? {} : { provider }),
        code: 'auth.too_many_sign_ins',
      });
    }
    this.telemetry.count('gatehouse.rate_limit.refusals', {
      limit: 'sign_ins_per_client',
      ...(provider === undefined ? {} : { provider }),
    });
    throw new GatehouseError('auth.too_many_sign_ins', 'Too many sign-ins were started from here. Try again later.', {
      safe: true,
      retryAfterMs: resetsInMs,
    });
  }
}
