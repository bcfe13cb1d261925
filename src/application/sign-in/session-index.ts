import { sha256 } from '@oslojs/crypto/sha2';
import { encodeHexLowerCase } from '@oslojs/encoding';
import { inject, injectable } from 'tsyringe';
import type { ProviderKey } from '../../domain/settings/settings.js';
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
    return this.store.addToIndex(userIndexKey(provider, subject), handle, endsAt);
  }

  /** The handles of the user's sessions, the soonest ending first. */
  sessionsOf(provider: ProviderKey, subject: string): Promise<string[]> {
    return this.store.indexMembers(userIndexKey(provider, subject));
  }

  remove(provider: ProviderKey, subject: string, handle: string): Promise<void> {
    return this.store.removeFromIndex(userIndexKey(provider, subject), handle);
  }

  /**
   * Lists a session under a name the provider's logout messages give it (a SAML NameID,
   * with or without its SessionIndex: `ProviderIdentity.logoutKeys`), until it can live no
   * longer. A session that ended otherwise stays listed until then: a logout finds its
   * record gone and drops it, and a handle is never given to another session.
   */
  addByLogoutKey(provider: ProviderKey, logoutKey: string, handle: string, endsAt: number): Promise<void> {
    return this.store.addToIndex(logoutIndexKey(provider, logoutKey), handle, endsAt);
  }

  sessionsByLogoutKey(provider: ProviderKey, logoutKey: string): Promise<string[]> {
    return this.store.indexMembers(logoutIndexKey(provider, logoutKey));
  }

  removeByLogoutKey(provider: ProviderKey, logoutKey: string, handle: string): Promise<void> {
    return this.store.removeFromIndex(logoutIndexKey(provider, logoutKey), handle);
  }
}

/**
 * The store key of the index of a provider's logout key. Hashed like the user's index: a
 * NameID is a user identifier, and key names carry none. Exported, as the user's is, for
 * whoever must know where an index lives (an operator's script, the failover suite).
 */
export function logoutIndexKey(provider: ProviderKey, logoutKey: string): string {
  const hash = encodeHexLowerCase(sha256(new TextEncoder().encode(`${provider}\n${logoutKey}`)));
  return `sessions-by-logout:${hash.slice(0, 40)}`;
}

/** The store key of a user's index: a hash of provider and subject. */
export function userIndexKey(provider: ProviderKey, subject: string): string {
  const hash = encodeHexLowerCase(sha256(new TextEncoder().encode(`${provider}\n${subject}`)));
  return `sessions-of:${hash.slice(0, 40)}`;
}
