import type { SessionStore, StoredRecord } from '../../application/ports/session-store.js';

/**
 * A session store whose every key is under `scope`: what one connection's adapter records
 * (its replay records, used logout messages, outstanding logout requests) lives under the
 * connection's name, where no other connection's adapter can read or take it, whatever
 * identifiers two identity providers happen to share.
 */
export class ScopedSessionStore implements SessionStore {
  constructor(
    private readonly store: SessionStore,
    private readonly scope: string,
  ) {}

  get = (key: string): Promise<StoredRecord | undefined> => this.store.get(this.scope + key);
  create = (key: string, record: StoredRecord, ttlMs: number): Promise<boolean> =>
    this.store.create(this.scope + key, record, ttlMs);
  replace = (key: string, record: StoredRecord, ttlMs: number): Promise<boolean> =>
    this.store.replace(this.scope + key, record, ttlMs);
  destroy = (key: string): Promise<void> => this.store.destroy(this.scope + key);
  take = (key: string): Promise<StoredRecord | undefined> => this.store.take(this.scope + key);
  increment = (key: string, windowMs: number, amount?: number): Promise<{ count: number; resetsInMs: number }> =>
    this.store.increment(this.scope + key, windowMs, amount);
  addToIndex = (key: string, member: string, expiresAt: number): Promise<void> =>
    this.store.addToIndex(this.scope + key, member, expiresAt);
  indexMembers = (key: string): Promise<string[]> => this.store.indexMembers(this.scope + key);
  removeFromIndex = (key: string, member: string): Promise<void> =>
    this.store.removeFromIndex(this.scope + key, member);
}
