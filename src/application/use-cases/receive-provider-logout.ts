import { inject, injectable } from 'tsyringe';
import { GatehouseError } from '../../domain/errors.js';
import type { ProviderKey } from '../../domain/settings/settings.js';
import type { AuditRequest } from '../ports/audit-log.js';
import type { IdentityProviders } from '../identity-providers.js';
import { IdentityProvidersToken, type CallbackMessage, type LogoutEndpoint } from '../ports/identity-provider.js';
import { EndedProviderSessions } from '../sign-in/ended-provider-sessions.js';
import { EndSessions } from './end-sessions.js';

export interface ReceiveProviderLogoutInput {
  /** The provider whose logout path the message arrived at. */
  provider: ProviderKey;
  /** Which of its logout paths (one per channel). */
  endpoint: LogoutEndpoint;
  message: CallbackMessage;
  request?: AuditRequest;
}

/**
 * A logout message from a provider, whatever its protocol and channel (OpenID Connect
 * back- and front-channel logout, SAML Single Logout): the adapter verifies it whole and
 * uses it up before anything changes. A provider's logout request first marks the provider sessions
 * it ended (`EndedProviderSessions`: a sign-in of one of them completing later is
 * refused), then ends every session it names, on every instance (`EndSessions`, by the
 * provider, cause `provider_logout`; none is no error: the user may have signed out here
 * already). The browser, when the message came through one, goes on to the provider's
 * answer. A message that proves nothing of its origin (a front-channel `sid`) ends what it
 * names and records nothing when that is nothing. The provider's answer to a logout
 * started here changes nothing more (the
 * session ended before the browser left), and the browser goes on to the signed-out login
 * page (`redirectUrl` undefined).
 */
@injectable()
export class ReceiveProviderLogout {
  constructor(
    @inject(IdentityProvidersToken) private readonly providers: IdentityProviders,
    @inject(EndedProviderSessions) private readonly endedAtProvider: EndedProviderSessions,
    @inject(EndSessions) private readonly endSessions: EndSessions,
  ) {}

  async execute(input: ReceiveProviderLogoutInput): Promise<{ redirectUrl: string | undefined }> {
    const provider = await this.providers.byKey(input.provider);
    if (!provider?.logoutEndpoints?.includes(input.endpoint) || !provider.receiveLogout) {
      throw new GatehouseError('auth.unknown_provider', 'This provider sends no logout messages here.', {
        safe: true,
      });
    }
    const logout = await provider.receiveLogout(input.message, input.endpoint);
    if (logout.kind === 'response') return { redirectUrl: undefined };
    // Marks are writes: never for a message anyone could have made up.
    const marked = logout.unauthenticated === true ? [] : logout.endedSessions;
    for (const ended of marked) await this.endedAtProvider.mark(provider.info.key, ended);
    await this.endSessions.execute(
      { provider: provider.info.key, logoutKeys: logout.logoutKeys, silentWhenNone: logout.unauthenticated === true },
      { by: 'provider', cause: 'provider_logout', request: input.request },
    );
    return { redirectUrl: logout.replyUrl };
  }
}
