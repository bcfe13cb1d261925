import { sha256 } from '@oslojs/crypto/sha2';
import { encodeHexLowerCase } from '@oslojs/encoding';
import { inject, injectable } from 'tsyringe';
import type { ProviderKey } from '../../domain/settings/settings.js';
import type { LogoutNames, LogoutNotice } from '../ports/identity-provider.js';
import { SessionStoreToken, type SessionStore } from '../ports/session-store.js';

/**
 * The sessions of each user, by the provider that signed them in and their subject: what
 * "sign out everywhere", the sessions page and an administrator's call find sessions by.
 * One index per user, written with the sign-in, each session listed until its absolute
 * lifetime ends (the index goes with its last session). Named by a hash of the subject,
 * so the store's key names carry no user identifier.
 */
@injectable()
export class SessionIndex {
  constructor(@inject(SessionStoreToken) private readonly store: SessionStore) {}

  add(provider: ProviderKey, subject: string, handle: string, endsAt: number): Promise<void> {
    return this.store.addToIndex(key(provider, subject), handle, endsAt);
  }

  /** The handles of the user's sessions, the soonest ending first. */
  sessionsOf(provider: ProviderKey, subject: string): Promise<string[]> {
    return this.store.indexMembers(key(provider, subject));
  }

  remove(provider: ProviderKey, subject: string, handle: string): Promise<void> {
    return this.store.removeFromIndex(key(provider, subject), handle);
  }

  /** Lists a session under the names its provider may end it by (back-channel logout), until it can live no longer. */
  async addNamed(provider: ProviderKey, names: LogoutNames, handle: string, endsAt: number): Promise<void> {
    for (const named of namesOf(names)) await this.store.addToIndex(namedKey(provider, named), handle, endsAt);
  }

  /** The handles of the sessions a provider's logout notice names. */
  sessionsNamed(provider: ProviderKey, notice: LogoutNotice): Promise<string[]> {
    return this.store.indexMembers(namedKey(provider, notice));
  }

  async removeNamed(provider: ProviderKey, names: LogoutNames | LogoutNotice, handle: string): Promise<void> {
    for (const named of namesOf(names)) await this.store.removeFromIndex(namedKey(provider, named), handle);
  }
}

function key(provider: ProviderKey, subject: string): string {
  const hash = encodeHexLowerCase(sha256(new TextEncoder().encode(`${provider}\n${subject}`)));
  return `sessions-of:${hash.slice(0, 40)}`;
}

/** Each name on its own: a session is found by either. */
function namesOf(names: Partial<LogoutNames>): LogoutNotice[] {
  return [
    ...(names.session === undefined ? [] : [{ session: names.session }]),
    ...(names.user === undefined ? [] : [{ user: names.user }]),
  ];
}

/** A provider's session and a user are apart even when the provider's names happen to be equal. */
function namedKey(provider: ProviderKey, notice: LogoutNotice): string {
  const name = 'session' in notice ? `session\n${notice.session}` : `user\n${notice.user}`;
  const hash = encodeHexLowerCase(sha256(new TextEncoder().encode(`${provider}\n${name}`)));
  return `sessions-named:${hash.slice(0, 40)}`;
}
