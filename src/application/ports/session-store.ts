/** A JSON-serializable record kept server-side: a session, or a pending sign-in flow. */
export type StoredRecord = Record<string, unknown>;

/**
 * Server-side storage for sessions and single-use sign-in flow records. Keys arrive
 * already derived (a hash of the cookie token, never the token itself). Every write
 * carries a time-to-live. An unreachable store fails fast with the error code
 * `session.store_unavailable`: it never hangs a request and never silently forgets.
 */
export interface SessionStore {
  get(key: string): Promise<StoredRecord | undefined>;
  set(key: string, record: StoredRecord, ttlMs: number): Promise<void>;
  /** Extends the time-to-live of an existing record without rewriting it. */
  touch(key: string, ttlMs: number): Promise<void>;
  destroy(key: string): Promise<void>;
  /** Reads and deletes in one atomic step: a single-use record can be taken once only. */
  take(key: string): Promise<StoredRecord | undefined>;
}

export const SessionStoreToken = Symbol('SessionStore');
