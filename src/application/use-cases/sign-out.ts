import { inject, injectable } from 'tsyringe';
import type { ProviderKey } from '../../domain/settings/settings.js';
import type { IdentityProviders } from '../identity-providers.js';
import { IdentityProvidersToken, type ProviderSessionRecord } from '../ports/identity-provider.js';
import type { AuditRequest } from '../ports/audit-log.js';
import { LoggerToken, type Logger } from '../ports/logger.js';
import { ProviderSessions } from '../sign-in/provider-sessions.js';
import type { BrowserSession } from '../sign-in/session-fields.js';
import { SignInRecords } from '../sign-in/sign-in-records.js';
import { EndSessions } from './end-sessions.js';

/**
 * Logout: the session, its sign-in record and its provider session are removed from the store
 * (so the old cookie is anonymous on every instance), and the browser is sent to the
 * provider's end-session endpoint (RP-initiated logout) when the user signed in there and
 * it supports it; otherwise there is no provider step. A provider that cannot be reached
 * does not keep anyone signed in locally.
 */
@injectable()
export class SignOut {
  constructor(
    @inject(IdentityProvidersToken) private readonly providers: IdentityProviders,
    @inject(SignInRecords) private readonly signIns: SignInRecords,
    @inject(ProviderSessions) private readonly providerSessions: ProviderSessions,
    @inject(EndSessions) private readonly endSessions: EndSessions,
    @inject(LoggerToken) private readonly logger: Logger,
  ) {}

  async execute(session: BrowserSession, request?: AuditRequest): Promise<{ providerSignOutUrl: string | undefined }> {
    const ref = session.fields.signIn;
    const signIn = await this.signIns.read(ref);
    // What the provider's logout needs is read before the session's records go.
    const kept =
      ref !== undefined && session.fields.providerSession === true ? await this.providerSessions.load(ref) : undefined;
    const providerSignOutUrl = signIn ? await this.providerSignOut(signIn.provider, kept?.record) : undefined;
    const handle = session.handle;
    if (handle !== undefined)
      await this.endSessions.execute({ session: handle }, { by: 'user', cause: 'signout', request });
    session.end();
    return { providerSignOutUrl };
  }

  private async providerSignOut(
    key: ProviderKey | undefined,
    record: ProviderSessionRecord | undefined,
  ): Promise<string | undefined> {
    // By the provider's key, not its Scheme: a renamed scheme still ends the provider session.
    try {
      const provider = key === undefined ? undefined : await this.providers.byKey(key);
      return provider?.signOutUrl ? await provider.signOutUrl(record) : undefined;
    } catch (error) {
      const code = error instanceof Error && 'code' in error ? String(error.code) : 'unknown';
      this.logger.warn({ code, provider: key }, 'provider sign-out unavailable; signed out locally only');
      return undefined;
    }
  }
}
