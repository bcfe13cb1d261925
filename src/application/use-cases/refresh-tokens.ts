import { sha256 } from '@oslojs/crypto/sha2';
import { encodeHexLowerCase } from '@oslojs/encoding';
import { inject, injectable } from 'tsyringe';
import { isGatehouseError } from '../../domain/errors.js';
import type { ProjectTemplateSettings, ProviderKey } from '../../domain/settings/settings.js';
import { ClockToken, type Clock } from '../ports/clock.js';
import { IdentityProvidersToken, type IdentityProvider, type SessionTokens } from '../ports/identity-provider.js';
import { LoggerToken, type Logger } from '../ports/logger.js';
import { SessionStoreToken, type SessionStore } from '../ports/session-store.js';
import { SettingsToken } from '../settings-token.js';

/** Refresh a little before expiry, so that a token handed to application code is not about to lapse. */
const EXPIRY_SKEW_MS = 30_000;
/** The longest a request waits for another process's refresh of its session before going on without it. */
const MAX_WAIT_FOR_OTHER_MS = 5_000;
const POLL_EVERY_MS = 50;
/**
 * Failures that say the refresh token (or what came back for it) is no good for ever:
 * RFC 6749 5.2 `invalid_grant`, and a refreshed ID token that fails validation. Anything
 * else (a time-out, an unreachable provider, a 5xx) may pass, and must not cost every
 * session whose access token expired during an outage its tokens.
 */
const DEFINITE_REFUSALS = new Set(['idp.refresh_refused', 'idp.id_token_invalid']);

/** What became of a refresh. */
export type RefreshOutcome =
  /** New tokens (from the provider, or saved by the process that refreshed them): save them. */
  | { outcome: 'refreshed'; tokens: SessionTokens }
  /** The provider refused for good, or the tokens are gone: drop the saved tokens. */
  | { outcome: 'refused' }
  /** Not now (the provider is unreachable, or another process is still refreshing): keep the saved tokens. */
  | { outcome: 'kept' };

/**
 * Refreshes a sign-in's saved access token, once per refresh token across every process
 * sharing the session store. Providers that rotate refresh tokens accept each one once,
 * and many treat a second use as theft and revoke the whole grant, so two instances must
 * never both spend it:
 * - within a process, concurrent requests of the sign-in share the running refresh;
 * - across processes, the refresh is claimed in the store (an atomic create with a
 *   time-to-live); the winner reads the saved tokens again first (another process may
 *   have just refreshed them) and only then calls the provider; the others wait for the
 *   tokens it saves, for at most 5 s on the clock.
 * The claim names the refresh token it spends, so it never stands in the way of the
 * next refresh. It is not released after a refresh or a refusal: the caller saves the new
 * tokens after this returns, and a process seeing the claim gone before that would refresh
 * with a spent token. It lapses after the longest the winning refresh can take (discovery,
 * the token call and the signing keys, each bounded by HttpTimeoutSeconds), or is released
 * at once when an outage ended the attempt, so that the next request tries again.
 */
@injectable()
export class RefreshTokens {
  readonly #inFlight = new Map<string, Promise<RefreshOutcome>>();
  readonly #claimMs: number;
  readonly #waitForOtherMs: number;

  constructor(
    @inject(IdentityProvidersToken) private readonly providers: IdentityProvider[],
    @inject(ClockToken) private readonly clock: Clock,
    @inject(LoggerToken) private readonly logger: Logger,
    @inject(SessionStoreToken) private readonly store: SessionStore,
    @inject(SettingsToken) settings: ProjectTemplateSettings,
  ) {
    const longestRefreshMs = 3 * settings.Authentication.HttpTimeoutSeconds * 1000;
    this.#claimMs = longestRefreshMs + 5_000;
    this.#waitForOtherMs = Math.min(longestRefreshMs, MAX_WAIT_FOR_OTHER_MS);
  }

  /** True when the saved access token has expired (or is about to) and a refresh token is held. */
  needsRefresh(expiresAt: number | undefined, refreshable: boolean): boolean {
    return refreshable && expiresAt !== undefined && expiresAt - EXPIRY_SKEW_MS <= this.clock.now();
  }

  /**
   * Refreshes the tokens of the sign-in `signInRef`, made by the provider `provider` (its
   * key: a renamed Scheme still finds it; a provider no longer enabled cannot refresh, and
   * its tokens are dropped). `load` reads the tokens saved for it now (another process may
   * have replaced them since this request began).
   */
  execute(
    signInRef: string,
    provider: ProviderKey | undefined,
    load: () => Promise<SessionTokens | undefined>,
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
    load: () => Promise<SessionTokens | undefined>,
  ): Promise<RefreshOutcome> {
    const tokens = await load();
    if (!tokens) return { outcome: 'refused' };
    const claim = refreshClaimKey(signInRef, tokens);
    if (!(await this.store.create(claim, {}, this.#claimMs))) return this.#waitForOther(tokens, load);
    const current = await load();
    if (!current) return { outcome: 'refused' };
    if (current.accessToken !== tokens.accessToken) return { outcome: 'refreshed', tokens: current };
    const result = await this.#refresh(provider, current);
    // An outage ended this attempt: the next request may try again at once, rather than
    // every instance waiting out a claim nobody is using any more.
    if (result.outcome === 'kept') await this.store.destroy(claim);
    return result;
  }

  /** Another process holds the claim: its tokens, once saved; the saved ones kept if it takes too long. */
  async #waitForOther(tokens: SessionTokens, load: () => Promise<SessionTokens | undefined>): Promise<RefreshOutcome> {
    const deadline = this.clock.now() + this.#waitForOtherMs;
    while (this.clock.now() < deadline) {
      await this.clock.sleep(POLL_EVERY_MS);
      const current = await load();
      if (!current) return { outcome: 'refused' };
      if (current.accessToken !== tokens.accessToken) return { outcome: 'refreshed', tokens: current };
    }
    return { outcome: 'kept' };
  }

  async #refresh(key: ProviderKey | undefined, tokens: SessionTokens): Promise<RefreshOutcome> {
    const provider = this.providers.find((candidate) => candidate.info.key === key);
    if (!provider?.refreshTokens) return { outcome: 'refused' };
    try {
      return { outcome: 'refreshed', tokens: await provider.refreshTokens(tokens) };
    } catch (error) {
      const code = isGatehouseError(error) ? error.code : 'unknown';
      if (DEFINITE_REFUSALS.has(code)) {
        this.logger.warn({ code, provider: provider.info.key }, 'token refresh refused; saved tokens dropped');
        return { outcome: 'refused' };
      }
      this.logger.warn(
        { code, provider: provider.info.key },
        'token refresh failed; saved tokens kept for a later try',
      );
      return { outcome: 'kept' };
    }
  }
}

/** The claim on spending one refresh token of a sign-in: named by a hash, never by the token. */
function refreshClaimKey(signInRef: string, tokens: SessionTokens): string {
  const spent = tokens.refreshToken ?? tokens.accessToken;
  return `refreshing:${signInRef}:${encodeHexLowerCase(sha256(new TextEncoder().encode(spent))).slice(0, 32)}`;
}
