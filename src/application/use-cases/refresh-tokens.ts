import { sha256 } from '@oslojs/crypto/sha2';
import { encodeHexLowerCase } from '@oslojs/encoding';
import { inject, injectable } from 'tsyringe';
import { ClockToken, type Clock } from '../ports/clock.js';
import { IdentityProvidersToken, type IdentityProvider, type SessionTokens } from '../ports/identity-provider.js';
import { LoggerToken, type Logger } from '../ports/logger.js';
import { SessionStoreToken, type SessionStore } from '../ports/session-store.js';
import { SettingsToken } from '../tokens.js';
import type { ProjectTemplateSettings } from '../../domain/settings/settings.js';

/** Refresh a little before expiry, so that a token handed to application code is not about to lapse. */
const EXPIRY_SKEW_MS = 30_000;
/** The longest a request waits for another process's refresh of its session before going on without it. */
const MAX_WAIT_FOR_OTHER_MS = 5_000;
const POLL_EVERY_MS = 50;

/** What became of a refresh. */
export type RefreshOutcome =
  /** New tokens (from the provider, or saved by the process that refreshed them): save them. */
  | { outcome: 'refreshed'; tokens: SessionTokens }
  /** The provider refused, or the tokens are gone: drop the saved tokens. */
  | { outcome: 'refused' }
  /** Another process is still refreshing: leave the saved tokens alone (the next request sees its result). */
  | { outcome: 'elsewhere' };

/**
 * Refreshes a session's saved access token when it has expired and a refresh token is
 * held, once per session across every process sharing the session store. Providers that
 * rotate refresh tokens accept each one once, and many treat a second use as theft and
 * revoke the whole grant, so two instances must never both spend it:
 * - within a process, concurrent requests of the session share the running refresh;
 * - across processes, the refresh is claimed in the store (an atomic set-if-absent with a
 *   time-to-live); the winner reads the saved tokens again first (another process may
 *   have just refreshed them) and only then calls the provider; the others wait for the
 *   tokens it saves.
 * The claim names the refresh token it spends, so it never stands in the way of the
 * next refresh. It is not released: the caller saves the new tokens after this returns,
 * and a process seeing the claim gone before that would refresh with a spent token. It
 * lapses after the longest a refresh can take (two provider calls bounded by
 * HttpTimeoutSeconds).
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
    const longestRefreshMs = 2 * settings.Authentication.HttpTimeoutSeconds * 1000;
    this.#claimMs = longestRefreshMs + 5_000;
    this.#waitForOtherMs = Math.min(longestRefreshMs, MAX_WAIT_FOR_OTHER_MS);
  }

  /** True when the saved access token has expired (or is about to) and a refresh token is held. */
  needsRefresh(expiresAt: number | undefined, refreshable: boolean): boolean {
    return refreshable && expiresAt !== undefined && expiresAt - EXPIRY_SKEW_MS <= this.clock.now();
  }

  /**
   * Refreshes the tokens of the sign-in `signInRef`. `reload` reads the tokens saved for
   * it now (another process may have replaced them since this request loaded them).
   */
  execute(
    signInRef: string,
    scheme: string,
    tokens: SessionTokens,
    reload: () => Promise<SessionTokens | undefined>,
  ): Promise<RefreshOutcome> {
    const running = this.#inFlight.get(signInRef);
    if (running) return running;
    const refresh = this.#refreshOnce(signInRef, scheme, tokens, reload).finally(() =>
      this.#inFlight.delete(signInRef),
    );
    this.#inFlight.set(signInRef, refresh);
    return refresh;
  }

  async #refreshOnce(
    signInRef: string,
    scheme: string,
    tokens: SessionTokens,
    reload: () => Promise<SessionTokens | undefined>,
  ): Promise<RefreshOutcome> {
    if (!(await this.store.claim(refreshClaimKey(signInRef, tokens), this.#claimMs)))
      return this.#waitForOther(tokens, reload);
    const current = await reload();
    if (!current) return { outcome: 'refused' };
    if (current.accessToken !== tokens.accessToken) return { outcome: 'refreshed', tokens: current };
    const fresh = await this.#refresh(scheme, current);
    return fresh ? { outcome: 'refreshed', tokens: fresh } : { outcome: 'refused' };
  }

  /** Another process holds the claim: its tokens, once saved; nothing if it takes too long. */
  async #waitForOther(
    tokens: SessionTokens,
    reload: () => Promise<SessionTokens | undefined>,
  ): Promise<RefreshOutcome> {
    for (let waited = 0; waited < this.#waitForOtherMs; waited += POLL_EVERY_MS) {
      await new Promise((resolve) => setTimeout(resolve, POLL_EVERY_MS));
      const current = await reload();
      if (!current) return { outcome: 'refused' };
      if (current.accessToken !== tokens.accessToken) return { outcome: 'refreshed', tokens: current };
    }
    return { outcome: 'elsewhere' };
  }

  async #refresh(scheme: string, tokens: SessionTokens): Promise<SessionTokens | undefined> {
    const provider = this.providers.find((candidate) => candidate.info.scheme === scheme);
    if (!provider?.refreshTokens) return undefined;
    try {
      return await provider.refreshTokens(tokens);
    } catch (error) {
      const code = error instanceof Error && 'code' in error ? String(error.code) : 'unknown';
      this.logger.warn({ code, provider: provider.info.key }, 'token refresh refused; saved tokens dropped');
      return undefined;
    }
  }
}

/** The claim on spending one refresh token of a sign-in: named by a hash, never by the token. */
function refreshClaimKey(signInRef: string, tokens: SessionTokens): string {
  const spent = tokens.refreshToken ?? tokens.accessToken;
  return `refreshing:${signInRef}:${encodeHexLowerCase(sha256(new TextEncoder().encode(spent))).slice(0, 32)}`;
}
