import { sha256 } from '@oslojs/crypto/sha2';
import { encodeHexLowerCase } from '@oslojs/encoding';
import { inject, injectable } from 'tsyringe';
import type { ProviderKey } from '../../domain/settings/settings.js';
import { SessionStoreToken, type SessionStore } from '../ports/session-store.js';
import { FLOW_LIFETIME_MS } from './flow-records.js';

/**
 * How long a provider's ended session is remembered: as long as a sign-in started before
 * the ending can still complete (a flow lives 15 minutes), and a minute more.
 */
export const ENDED_SESSION_MEMORY_MS = FLOW_LIFETIME_MS + 60_000;

/**
 * The provider sessions a logout notice ended, remembered for a while in the shared
 * store: a sign-in of such a session whose answer completes after the notice was
 * accepted (its code redeemed before the provider ended the session, its callback late)
 * must not establish a session that no later notice would end. The notice marks first and
 * then ends the listed sessions; a sign-in lists its session first and then looks for the
 * mark: whichever comes second sees the other, on any instance.
 */
@injectable()
export class EndedProviderSessions {
  constructor(@inject(SessionStoreToken) private readonly store: SessionStore) {}

  /** Marks the provider session named by this logout key (`ProviderIdentity.logoutKeys`) as ended. */
  async mark(provider: ProviderKey, logoutKey: string): Promise<void> {
    // false: marked already by an earlier notice, which is as good.
    await this.store.create(key(provider, logoutKey), {}, ENDED_SESSION_MEMORY_MS);
  }

  async isEnded(provider: ProviderKey, logoutKey: string): Promise<boolean> {
    return (await this.store.get(key(provider, logoutKey))) !== undefined;
  }
}

function key(provider: ProviderKey, logoutKey: string): string {
  const hash = encodeHexLowerCase(sha256(new TextEncoder().encode(`${provider}\n${logoutKey}`)));
  return `ended-provider-session:${hash.slice(0, 40)}`;
}
