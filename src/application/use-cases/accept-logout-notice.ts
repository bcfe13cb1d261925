import { inject, injectable } from 'tsyringe';
import { GatehouseError } from '../../domain/errors.js';
import type { ProviderKey } from '../../domain/settings/settings.js';
import type { AuditRequest } from '../ports/audit-log.js';
import { IdentityProvidersToken, type CallbackMessage, type IdentityProvider } from '../ports/identity-provider.js';
import { EndedProviderSessions } from '../sign-in/ended-provider-sessions.js';
import { EndSessions } from './end-sessions.js';

/**
 * A provider says sessions ended on its side (OpenID Connect back-channel logout): the
 * adapter checks the notice whole and uses it up, then the sessions it names end through
 * `EndSessions`, by the provider. A notice naming a provider session is remembered for a
 * while first, so that a sign-in of that session completing later is refused
 * (`EndedProviderSessions`). Resolves to how many sessions ended: none is no error (the
 * user may have signed out here already).
 */
@injectable()
export class AcceptLogoutNotice {
  constructor(
    @inject(IdentityProvidersToken) private readonly providers: IdentityProvider[],
    @inject(EndedProviderSessions) private readonly endedAtProvider: EndedProviderSessions,
    @inject(EndSessions) private readonly endSessions: EndSessions,
  ) {}

  async execute(input: { provider: ProviderKey; message: CallbackMessage; request?: AuditRequest }): Promise<number> {
    const provider = this.providers.find((candidate) => candidate.info.key === input.provider);
    if (provider?.logoutNoticePath === undefined || !provider.readLogoutNotice) {
      throw new GatehouseError('idp.flow_wrong_provider', 'This provider sends no logout notices.', { safe: true });
    }
    const notice = await provider.readLogoutNotice(input.message);
    for (const ended of notice.endedSessions) await this.endedAtProvider.mark(provider.info.key, ended);
    return this.endSessions.execute(
      { provider: provider.info.key, logoutKeys: notice.logoutKeys },
      { by: 'provider', cause: 'provider_logout', request: input.request },
    );
  }
}
