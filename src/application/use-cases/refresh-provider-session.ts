import { sha256 } from '@oslojs/crypto/sha2';
import { encodeHexLowerCase } from '@oslojs/encoding';
import { inject, injectable } from 'tsyringe';
import { isGatehouseError } from '../../domain/errors.js';
import type { ProjectTemplateSettings, ProviderKey } from '../../domain/settings/settings.js';
import { ClockToken, type Clock } from '../ports/clock.js';
import type { IdentityProviders } from '../identity-providers.js';
import { IdentityProvidersToken, type ProviderSession } from '../ports/identity-provider.js';
import { LoggerToken, type Logger } from '../ports/logger.js';
import { SessionStoreToken, type SessionStore } from '../ports/session-store.js';
import { SettingsToken } from '../settings-token.js';

/** Refresh a little before the adapter's time, so that what it keeps is never about to lapse. */
const EXPIRY_SKEW_MS = 30_000;
/** The longest a request waits for another process's refresh of its session before going on without it. */
const MAX_WAIT_FOR_OTHER_MS = 5_000;
const POLL_EVERY_MS = 50;
/**
 * The failure that says the provider session can never be refreshed (an adapter's
 * translation of OAuth's `invalid_grant`, a refreshed ID token for another subject ...).
 * Anything else (a time-out, an unreachable provider, a 5xx) may pass, and must not cost
 * every session whose tokens expired during an outage what it keeps.
 */
const DEFINITE_REFUSAL = 'idp.refresh_refused';

/** What became of a refresh. */
export type RefreshOutcome =
  /** Refreshed (by the provider, or saved by the process that refreshed it): keep it. */
  | { outcome: 'refreshed'; session: ProviderSession }
  /** The provider refused for good (`code`), or the record is gone: drop it. */
  | { outcome: 'refused'; code?: string }
  /** Not now (the provider failed with `code`, or another process is still refreshing): keep what is kept. */
  | { outcome: 'kept'; code?: string };

/**
 * Refreshes a sign-in's provider session (its adapter's record: OAuth tokens), once per
 * record across every process sharing the session store. Providers that rotate refresh tokens accept each one once,
 * and many treat a second use as theft and revoke the whole grant, so two instances must
 * never both spend it:
 * - within a process, concurrent requests of the sign-in share the running refresh;
 * - across processes, the refresh is claimed in the store (an atomic create with a
 *   time-to-live); the winner reads the record again first (another process may have
 *   just refreshed it) and only then calls the provider; the others wait for the record
 *   it saves, for at most 5 s on the clock.
 * The claim names (a hash of) the record it spends, so it never stands in the way of the
 * next refresh. It is not released after a refresh or a refusal: the caller saves the new
 * record after this returns, and a process seeing the claim gone before that would refresh
 * with a spent token. It lapses after the longest the winning refresh can take (discovery,
 * the token call and the signing keys, each bounded by HttpTimeoutSeconds), or is released
 * at once when an outage ended the attempt, so that the next request tries again.
 */
@injectable()
export class RefreshProviderSession {
  readonly #inFlight = new Map<string, Promise<RefreshOutcome>>();
  readonly #claimMs: number;
  readonly #waitForOtherMs: number;

  constructor(
    @inject(IdentityProvidersToken) private readonly providers: IdentityProviders,
    @inject(ClockToken) private readonly clock: Clock,
    @inject(LoggerToken) private readonly logger: Logger,
    @inject(SessionStoreToken) private readonly store: SessionStore,
    @inject(SettingsToken) settings: ProjectTemplateSettings,
  ) {
    const longestRefreshMs = 3 * settings.Authentication.HttpTimeoutSeconds * 1000;
    this.#claimMs = longestRefreshMs + 5_000;
    this.#waitForOtherMs = Math.min(longestRefreshMs, MAX_WAIT_FOR_OTHER_MS);
  }

  /** True when the adapter's time to refresh has come (or is about to). */
  needsRefresh(refreshAt: number | undefined): boolean {
    return refreshAt !== undefined && refreshAt - EXPIRY_SKEW_MS <= this.clock.now();
  }

  /**
   * Refreshes the provider session of the sign-in `signInRef`, made by the provider
   * `provider` (its key: a renamed Scheme still finds it; a provider no longer enabled
   * cannot refresh, and what it kept is dropped). `load` reads what is kept for it now
   * (another process may have replaced it since this request began).
   */
  execute(
    signInRef: string,
    provider: ProviderKey | undefined,
    load: () => Promise<ProviderSession | undefined>,
  ): Promise<RefreshOutcome> {
    const running = this.#inFlight.get(signInRef);
    if (running) return running;
    const refresh = this.#refreshOnce(signInRef, provider, load).finally(() => this.#inFlight.delete(signInRef));
    this.#inFlight.set(signInRef, refresh);
    return refresh;
  }

  async #refreshOnce(
    signInRef: string,
    provider: ProviderKey | undefined,
    load: () => Promise<ProviderSession | undefined>,
  ): Promise<RefreshOutcome> {
    const loaded = await load();
    if (!loaded) return { outcome: 'refused' };
    const spent = JSON.stringify(loaded.record);
    const claim = refreshClaimKey(signInRef, spent);
    if (!(await this.store.create(claim, {}, this.#claimMs))) return this.#waitForOther(spent, load);
    const current = await load();
    if (!current) return { outcome: 'refused' };
    if (JSON.stringify(current.record) !== spent) return { outcome: 'refreshed', session: current };
    const result = await this.#refresh(provider, current);
    // An outage ended this attempt: the next request may try again at once, rather than
    // every instance waiting out a claim nobody is using any more.
    if (result.outcome === 'kept') await this.store.destroy(claim);
    return result;
  }

  /** Another process holds the claim: its record, once saved; the kept one kept if it takes too long. */
  async #waitForOther(spent: string, load: () => Promise<ProviderSession | undefined>): Promise<RefreshOutcome> {
    const deadline = this.clock.now() + this.#waitForOtherMs;
    while (this.clock.now() < deadline) {
      await this.clock.sleep(POLL_EVERY_MS);
      const current = await load();
      if (!current) return { outcome: 'refused' };
      if (JSON.stringify(current.record) !== spent) return { outcome: 'refreshed', session: current };
    }
    return { outcome: 'kept' };
  }

  async #refresh(key: ProviderKey | undefined, kept: ProviderSession): Promise<RefreshOutcome> {
    try {
      // A connection whose adapter cannot be built right now is an outage (kept), like a provider that does not answer.
      const provider = key === undefined ? undefined : await this.providers.byKey(key);
      if (!provider?.refreshSession) return { outcome: 'refused' };
      return { outcome: 'refreshed', session: await provider.refreshSession(kept.record) };
    } catch (error) {
      const code = isGatehouseError(error) ? error.code : 'unknown';
      if (code === DEFINITE_REFUSAL) {
        this.logger.warn({ code, provider: key }, 'provider session refresh refused; it is dropped');
        return { outcome: 'refused', code };
      }
      this.logger.warn({ code, provider: key }, 'provider session refresh failed; it is kept for a later try');
      return { outcome: 'kept', code };
    }
  }
}

/** The claim on spending one kept record of a sign-in: named by a hash, never by what it holds. */
function refreshClaimKey(signInRef: string, spent: string): string {
  return `refreshing:${signInRef}:${encodeHexLowerCase(sha256(new TextEncoder().encode(spent))).slice(0, 32)}`;
}
