/**
 * A JSON-serializable record kept server-side: a session, a sign-in, a provider session, a
 * pending sign-in flow. It is stored as JSON, so it comes back as JSON would: a `Date` as
 * a string, an `undefined` property not at all.
 */
export type StoredRecord = Record<string, unknown>;

/**
 * Server-side storage for sessions and everything that hangs off them. Keys arrive
 * already derived (a hash of the cookie token, never the token itself). Every write is
 * conditional, so that a record removed by one request (a logout, on any instance) is
 * never brought back by another request that loaded it earlier, and carries a
 * time-to-live in milliseconds; one that is not positive and finite is a bug and rejects
 * with a `RangeError`. An unreachable store fails fast with the error code
 * `session.store_unavailable`: it never hangs a request and never silently forgets. A
 * store of records that must not be forgotten early (`ReplayRecordStoreToken`) that is
 * full refuses a new record with `session.store_full` rather than evict one.
 */
export interface SessionStore {
  /** A fresh copy of the record, or `undefined` if it never existed, was removed or expired. */
  get(key: string): Promise<StoredRecord | undefined>;
  /**
   * Writes a record under a key that holds none, in one atomic step: true for the one
   * caller that created it, across every process sharing the store; false, writing
   * nothing, when the key exists. `create(key, {}, ttl)` is a claim that ends with its
   * time-to-live.
   */
  create(key: string, record: StoredRecord, ttlMs: number): Promise<boolean>;
  /** Replaces an existing record and its time-to-live; false, writing nothing, when the key no longer exists. */
  replace(key: string, record: StoredRecord, ttlMs: number): Promise<boolean>;
  /** Removes the record; removing a missing key is not an error. */
  destroy(key: string): Promise<void>;
  /** Reads and deletes in one atomic step: a single-use record can be taken once only. */
  take(key: string): Promise<StoredRecord | undefined>;
  /**
   * Counts one more event under the key (or `amount` more, a positive integer: an event
   * that weighs more), in one atomic step: the count and how long until the window ends.
   * The first event of a window starts it with `windowMs`; later events do not extend it.
   */
  increment(key: string, windowMs: number, amount?: number): Promise<{ count: number; resetsInMs: number }>;
  /**
   * Adds `member` to the index under `key` until `expiresAt` (milliseconds since the
   * epoch), in one atomic step that also forgets the members whose time has passed; the
   * index itself lasts as long as its latest member, so no index grows for ever.
   */
  addToIndex(key: string, member: string, expiresAt: number): Promise<void>;
  /** The members of an index whose time has not passed, oldest first. */
  indexMembers(key: string): Promise<string[]>;
  /** Removes a member from an index; a missing one is not an error. */
  removeFromIndex(key: string, member: string): Promise<void>;
}

/** Signed-in state: sessions, sign-in records, provider sessions, the indexes of sessions, refresh claims. */
export const SessionStoreToken = Symbol('SessionStore');

/**
 * Records that exist for security and must outlive any burst of traffic: the messages used
 * once (SAML assertion IDs, OpenID Connect logout token `jti`s, SAML LogoutRequest IDs) and
 * the provider sessions a provider's logout ended. Kept apart in memory (its own bound,
 * `MaxReplayRecords`, and a refusal rather than an eviction when full), so that sign-ins
 * can never push one out before it expires and let a used message be used again; on
 * Redis, the same server as the sessions.
 */
export const ReplayRecordStoreToken = Symbol('ReplayRecordStore');

/**
 * Pre-sign-in state: pending sign-in flows and the per-client challenge counts. Kept
 * apart (in memory, its own bound) so that anonymous challenges can never evict a
 * signed-in user; on Redis, the same server with short time-to-lives.
 */
export const PendingSignInStoreToken = Symbol('PendingSignInStore');
