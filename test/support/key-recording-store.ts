import type { SessionStore, StoredRecord } from '../../src/application/ports/session-store.js';

/**
 * A session store that remembers every key written to it, so that a test can ask which of
 * them still hold a record, through `get` as any caller would: "nothing was stored",
 * "only the flow and the client's count". The records themselves live in the store it wraps.
 */
export class KeyRecordingStore implements SessionStore {
  private readonly written = new Set<string>();

  constructor(private readonly inner: SessionStore) {}

  /** The keys ever written that hold a record now, in the order first written. */
  async held(): Promise<string[]> {
    const held: string[] = [];
    for (const key of this.written) if ((await this.inner.get(key)) !== undefined) held.push(key);
    return held;
  }

  get(key: string): Promise<StoredRecord | undefined> {
    return this.inner.get(key);
  }

  create(key: string, record: StoredRecord, ttlMs: number): Promise<boolean> {
    this.written.add(key);
    return this.inner.create(key, record, ttlMs);
  }

  replace(key: string, record: StoredRecord, ttlMs: number): Promise<boolean> {
    this.written.add(key);
    return this.inner.replace(key, record, ttlMs);
  }

  destroy(key: string): Promise<void> {
    return this.inner.destroy(key);
  }

  take(key: string): Promise<StoredRecord | undefined> {
    return this.inner.take(key);
  }

  increment(key: string, windowMs: number, amount?: number): Promise<{ count: number; resetsInMs: number }> {
    this.written.add(key);
    return this.inner.increment(key, windowMs, amount);
  }

  addToIndex(key: string, member: string, expiresAt: number): Promise<void> {
    this.written.add(key);
    return this.inner.addToIndex(key, member, expiresAt);
  }

  indexMembers(key: string): Promise<string[]> {
    return this.inner.indexMembers(key);
  }

  removeFromIndex(key: string, member: string): Promise<void> {
    return this.inner.removeFromIndex(key, member);
  }
}
