/**
 * A JSON-serializable record kept server-side: a session, or a pending sign-in flow.
 * It is stored as JSON, so it comes back as JSON would: a `Date` as a string, an
 * `undefined` property not at all.
 */
export type StoredRecord = Record<string, unknown>;

/**
 * Server-side storage for sessions and single-use sign-in flow records. Keys arrive
 * already derived (a hash of the cookie token, never the token itself). Every write
 * carries a time-to-live in milliseconds; one that is not positive and finite is a bug
 * and rejects with a `RangeError`. An unreachable store fails fast with the error code
 * `session.store_unavailable`: it never hangs a request and never silently forgets.
 */
export interface SessionStore {
  /** A fresh copy of the record, or `undefined` if it never existed, was removed or expired. */
  get(key: string): Promise<StoredRecord | undefined>;
  /** Stores the record, replacing any earlier one under the key and its time-to-live. */
  set(key: string, record: StoredRecord, ttlMs: number): Promise<void>;
  /** Extends the time-to-live of an existing record without rewriting it; a missing key stays missing. */
  touch(key: string, ttlMs: number): Promise<void>;
  /** Removes the record; removing a missing key is not an error. */
  destroy(key: string): Promise<void>;
  /** Reads and deletes in one atomic step: a single-use record can be taken once only. */
  take(key: string): Promise<StoredRecord | undefined>;
  /**
   * Creates an empty record under the key only if none exists, in one atomic step, with
   * a time-to-live: true for the one caller that created it, across every process
   * sharing the store. A claim is never released early; it ends with its time-to-live.
   */
  claim(key: string, ttlMs: number): Promise<boolean>;
}

export const SessionStoreToken = Symbol('SessionStore');
