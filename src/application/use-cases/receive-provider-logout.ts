import { inject, injectable } from 'tsyringe';
import { GatehouseError } from '../../domain/errors.js';
import type { ProviderKey } from '../../domain/settings/settings.js';
import type { AuditRequest } from '../ports/audit-log.js';
import { IdentityProvidersToken, type CallbackMessage, type IdentityProvider } from '../ports/identity-provider.js';
import { EndSessions } from './end-sessions.js';

export interface ReceiveProviderLogoutInput {
  /** The provider whose logout path the message arrived at. */
  provider: ProviderKey;
  message: CallbackMessage;
  request?: AuditRequest;
}

/**
 * A logout message from a provider (SAML Single Logout), whatever its protocol: the
 * adapter verifies it whole before anything changes. A provider's logout request ends
 * every session it names, on every instance (`EndSessions`, by the provider, cause
 * `single_logout`), and the browser goes on to the provider's answer; the provider's
 * answer to a logout started here changes nothing more (the session ended before the
 * browser left) and the browser goes on to the signed-out login page (`redirectUrl`
 * undefined).
 */
@injectable()
export class ReceiveProviderLogout {
  constructor(
    @inject(IdentityProvidersToken) private readonly providers: IdentityProvider[],
    @inject(EndSessions) private readonly endSessions: EndSessions,
  ) {}

  async execute(input: ReceiveProviderLogoutInput): Promise<{ redirectUrl: string | undefined }> {
    const provider = this.providers.find((candidate) => candidate.info.key === input.provider);
    if (!provider?.receiveLogout) {
      throw new GatehouseError('auth.unknown_provider', 'This provider sends no logout messages here.', {
        safe: true,
      });
    }
    const logout = await provider.receiveLogout(input.message);
    if (logout.kind === 'response') return { redirectUrl: undefined };
    await this.endSessions.execute(
      { provider: provider.info.key, logoutKeys: logout.logoutKeys },
      { by: 'provider', cause: 'single_logout', request: input.request },
    );
    return { redirectUrl: logout.replyUrl };
  }
}
