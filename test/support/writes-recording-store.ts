import type { SessionStore, StoredRecord } from '../../src/application/ports/session-store.js';

/**
 * A session store that keeps a copy of every key and record written to it, as the store
 * would hold them (JSON), so that a test can look through everything ever stored for a
 * value that must never be there (a raw token). The records live in the store it wraps.
 */
export class WritesRecordingStore implements SessionStore {
  /** Every write, in order: the key and the record's JSON. */
  readonly writes: Array<{ key: string; json: string }> = [];

  constructor(private readonly inner: SessionStore) {}

  /** Whether `text` is in any key or record ever written. */
  holds(text: string): boolean {
    return this.writes.some(({ key, json }) => key.includes(text) || json.includes(text));
  }

  get(key: string): Promise<StoredRecord | undefined> {
    return this.inner.get(key);
  }

  create(key: string, record: StoredRecord, ttlMs: number): Promise<boolean> {
    this.writes.push({ key, json: JSON.stringify(record) });
    return this.inner.create(key, record, ttlMs);
  }

  replace(key: string, record: StoredRecord, ttlMs: number): Promise<boolean> {
    this.writes.push({ key, json: JSON.stringify(record) });
    return this.inner.replace(key, record, ttlMs);
  }

  destroy(key: string): Promise<void> {
    return this.inner.destroy(key);
  }

  take(key: string): Promise<StoredRecord | undefined> {
    return this.inner.take(key);
  }

  increment(key: string, windowMs: number, amount?: number): Promise<{ count: number; resetsInMs: number }> {
    this.writes.push({ key, json: '' });
    return this.inner.increment(key, windowMs, amount);
  }

  addToIndex(key: string, member: string, expiresAt: number): Promise<void> {
    this.writes.push({ key, json: JSON.stringify(member) });
    return this.inner.addToIndex(key, member, expiresAt);
  }

  indexMembers(key: string): Promise<string[]> {
    return this.inner.indexMembers(key);
  }

  removeFromIndex(key: string, member: string): Promise<void> {
    return this.inner.removeFromIndex(key, member);
  }
}
