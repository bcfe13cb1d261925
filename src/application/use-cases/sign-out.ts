import { inject, injectable } from 'tsyringe';
import type { ProviderKey } from '../../domain/settings/settings.js';
import {
  IdentityProvidersToken,
  type IdentityProvider,
  type ProviderSessionRecord,
} from '../ports/identity-provider.js';
import { LoggerToken, type Logger } from '../ports/logger.js';
import { ProviderSessions } from '../sign-in/provider-sessions.js';
import type { BrowserSession } from '../sign-in/session-fields.js';
import { SignInRecords } from '../sign-in/sign-in-records.js';

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
    @inject(IdentityProvidersToken) private readonly providers: IdentityProvider[],
    @inject(SignInRecords) private readonly signIns: SignInRecords,
    @inject(ProviderSessions) private readonly providerSessions: ProviderSessions,
    @inject(LoggerToken) private readonly logger: Logger,
  ) {}

  async execute(session: BrowserSession): Promise<{ providerSignOutUrl: string | undefined }> {
    const ref = session.fields.signIn;
    const signIn = await this.signIns.read(ref);
    const kept =
      ref !== undefined && session.fields.providerSession === true ? await this.providerSessions.load(ref) : undefined;
    const providerSignOutUrl = signIn ? await this.providerSignOut(signIn.provider, kept?.record) : undefined;
    // The session first: it is what every instance reads to know who is signed in. Once it
    // is gone the records below are unreachable, and one the store fails to remove expires.
    await session.end();
    if (ref !== undefined) {
      await this.providerSessions.drop(ref);
      await this.signIns.release(ref);
    }
    return { providerSignOutUrl };
  }

  private async providerSignOut(
    key: ProviderKey | undefined,
    record: ProviderSessionRecord | undefined,
  ): Promise<string | undefined> {
    // By the provider's key, not its Scheme: a renamed scheme still ends the provider session.
    const provider = this.providers.find((candidate) => candidate.info.key === key);
    if (!provider?.signOutUrl) return undefined;
    try {
      return await provider.signOutUrl(record);
    } catch (error) {
      const code = error instanceof Error && 'code' in error ? String(error.code) : 'unknown';
      this.logger.warn({ code, provider: provider.info.key }, 'provider sign-out unavailable; signed out locally only');
      return undefined;
    }
  }
}
