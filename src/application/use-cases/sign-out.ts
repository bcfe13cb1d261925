import { inject, injectable } from 'tsyringe';
import type { Principal } from '../../domain/claims/principal.js';
import { IdentityProvidersToken, type IdentityProvider, type SessionTokens } from '../ports/identity-provider.js';
import { LoggerToken, type Logger } from '../ports/logger.js';

/**
 * Where to send the browser after the local session is destroyed: the provider's
 * end-session endpoint (RP-initiated logout) when the user signed in there and it
 * supports it, otherwise the start page. A provider that cannot be reached does not
 * keep anyone signed in locally.
 */
@injectable()
export class SignOut {
  constructor(
    @inject(IdentityProvidersToken) private readonly providers: IdentityProvider[],
    @inject(LoggerToken) private readonly logger: Logger,
  ) {}

  async execute(input: { principal: Principal; tokens?: SessionTokens }): Promise<{ redirectUrl: string }> {
    const provider = this.providers.find((candidate) => candidate.info.scheme === input.principal.scheme);
    if (!provider?.signOutUrl) return { redirectUrl: '/' };
    try {
      return { redirectUrl: (await provider.signOutUrl(input.tokens)) ?? '/' };
    } catch (error) {
      const code = error instanceof Error && 'code' in error ? String(error.code) : 'unknown';
      this.logger.warn({ code, provider: provider.info.key }, 'provider sign-out unavailable; signed out locally only');
      return { redirectUrl: '/' };
    }
  }
}
