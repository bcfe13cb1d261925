import type { SessionStore, StoredRecord } from '../../application/ports/session-store.js';
import { GatehouseError } from '../../domain/errors.js';

/**
 * The window a connection's share is counted in. Longer than a logout message's record
 * lives (a logout token's is at most a few minutes past its `iat`), so such a record
 * counts once.
 */
export const REPLAY_SHARE_WINDOW_MS = 10 * 60 * 1000;

/**
 * Each connection's share of the replay records, per window: a twentieth of
 * `MaxReplayRecords`. Records that live one window or less then hold at most a tenth of
 * the store per connection at once, and records that live as long as they may (a day)
 * about a third in the worst case: no single organization can fill the memory store alone.
 */
export function connectionReplayShare(maxReplayRecords: number): number {
  return Math.max(1, Math.floor(maxReplayRecords / 20));
}

export interface ReplayShareOptions {
  /** Record-windows the owner may create per window. */
  share: number;
  windowMs: number;
  /** Who spends it (a connection's name), in the log line. */
  owner: string;
  logger: { warn(fields: object, msg: string): void };
}

/** Where the owner's count is kept, in the store it wraps (already scoped to the owner). */
const SHARE_COUNTER_KEY = 'replay-share';

/**
 * One connection's share of the replay-record store, which every organization's identity
 * provider writes to (used logout tokens, SAML assertion and logout request IDs). Each new
 * record is counted, in windows of `windowMs`, once per window it lives (a record of a few
 * minutes once; one kept an hour six times with ten-minute windows); once the window's
 * count passes `share`, a new record is refused with `session.store_full` (503, Retry-After
 * until the window ends) and nothing is written (the attempt still counts: a flood keeps
 * its share spent until the window ends, never longer). However many messages one organization's
 * provider signs, it spends its own share and refuses its own messages; every other
 * organization's logouts go on. The count lives in the shared store, so every instance
 * spends the same share. Everything but `create` passes through.
 */
export class ReplayShareSessionStore implements SessionStore {
  constructor(
    private readonly store: SessionStore,
    private readonly options: ReplayShareOptions,
  ) {}

  async create(key: string, record: StoredRecord, ttlMs: number): Promise<boolean> {
    const { share, windowMs, owner, logger } = this.options;
    const weight = Math.max(1, Math.ceil(ttlMs / windowMs));
    const { count, resetsInMs } = await this.store.increment(SHARE_COUNTER_KEY, windowMs, weight);
    if (count > share) {
      // Once per window: the first record past the share.
      if (count - weight <= share) {
        logger.warn(
          { connection: owner, share, windowSeconds: windowMs / 1000 },
          "A connection's identity provider spent its share of the replay records: its messages are refused (503) until the window ends. Other connections are not affected.",
        );
      }
      throw new GatehouseError(
        'session.store_full',
        "This organization's identity provider sent more messages than it may at once; try again later.",
        { retryAfterMs: Math.max(1, resetsInMs) },
      );
    }
    return this.store.create(key, record, ttlMs);
  }

  get = (key: string): Promise<StoredRecord | undefined> => this.store.get(key);
  replace = (key: string, record: StoredRecord, ttlMs: number): Promise<boolean> =>
    this.store.replace(key, record, ttlMs);
  destroy = (key: string): Promise<void> => this.store.destroy(key);
  take = (key: string): Promise<StoredRecord | undefined> => this.store.take(key);
  increment = (key: string, windowMs: number, amount?: number): Promise<{ count: number; resetsInMs: number }> =>
    this.store.increment(key, windowMs, amount);
  addToIndex = (key: string, member: string, expiresAt: number): Promise<void> =>
    this.store.addToIndex(key, member, expiresAt);
  indexMembers = (key: string): Promise<string[]> => this.store.indexMembers(key);
  removeFromIndex = (key: string, member: string): Promise<void> => this.store.removeFromIndex(key, member);
}
