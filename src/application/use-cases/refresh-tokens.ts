import { inject, injectable } from 'tsyringe';
import { ClockToken, type Clock } from '../ports/clock.js';
import { IdentityProvidersToken, type IdentityProvider, type SessionTokens } from '../ports/identity-provider.js';
import { LoggerToken, type Logger } from '../ports/logger.js';

/** Refresh a little before expiry, so that a token handed to application code is not about to lapse. */
const EXPIRY_SKEW_MS = 30_000;

/**
 * Refreshes a session's saved access token when it has expired and a refresh token is
 * held. One refresh at a time per session: concurrent requests of the same session wait
 * for the refresh already running instead of spending a rotating refresh token twice.
 * (Per process: with several instances, pin a session's requests or accept that the
 * provider may see a second, refused use.)
 */
@injectable()
export class RefreshTokens {
  readonly #inFlight = new Map<string, Promise<SessionTokens | undefined>>();

  constructor(
    @inject(IdentityProvidersToken) private readonly providers: IdentityProvider[],
    @inject(ClockToken) private readonly clock: Clock,
    @inject(LoggerToken) private readonly logger: Logger,
  ) {}

  /** True when the saved access token has expired (or is about to) and a refresh token is held. */
  needsRefresh(expiresAt: number | undefined, refreshable: boolean): boolean {
    return refreshable && expiresAt !== undefined && expiresAt - EXPIRY_SKEW_MS <= this.clock.now();
  }

  /** The fresh tokens, or undefined when the refresh was refused (the caller drops the saved tokens). */
  execute(sessionRef: string, scheme: string, tokens: SessionTokens): Promise<SessionTokens | undefined> {
    const running = this.#inFlight.get(sessionRef);
    if (running) return running;
    const refresh = this.#refresh(scheme, tokens).finally(() => this.#inFlight.delete(sessionRef));
    this.#inFlight.set(sessionRef, refresh);
    return refresh;
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
