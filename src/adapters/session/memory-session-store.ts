import type { Clock } from '../../application/ports/clock.js';
import type { SessionStore, StoredRecord } from '../../application/ports/session-store.js';
import { decodeRecord, encodeRecord } from './record-json.js';
import { checkTimeToLive } from './time-to-live.js';

/** A stored record: its JSON text, the clock time from which it no longer exists, and how recently it moved to the newest end. */
interface Entry {
  json: string;
  expiresAt: number;
  position: number;
}

/**
 * Entries the incremental sweep inspects per write. More than one, so the sweep moves
 * faster than writes add entries and every expired entry is eventually reached.
 */
const SWEEP_STEPS_PER_WRITE = 4;

/**
 * Sessions in this process only: for development, tests and single-instance hosting.
 * Bounded twice over: at most `maxEntries` records (the least recently used is evicted
 * first) and each record only until its time-to-live ends. No timer runs: an expired
 * entry is invisible from that moment, removed when it is next looked up, and a few
 * entries are swept on every write, so nothing keeps the process alive.
 */
export class MemorySessionStore implements SessionStore {
  // A Map iterates in insertion order; re-inserting an entry on every use keeps the
  // least recently used one first, which makes LRU eviction O(1) without a linked list.
  private readonly entries = new Map<string, Entry>();
  private readonly maxEntries: number;
  private readonly clock: Clock;
  // A live Map iterator: it survives deletions and insertions, so the sweep resumes
  // where it stopped instead of rescanning from the start.
  private sweepCursor: Iterator<[string, Entry]> | undefined;
  // Moves to the newest end so far: an entry's position is this counter when it last moved.
  private moves = 0;

  constructor(options: { maxEntries: number; clock: Clock }) {
    if (!Number.isInteger(options.maxEntries) || options.maxEntries < 1) {
      throw new RangeError(`maxEntries must be a positive integer, not ${options.maxEntries}.`);
    }
    this.maxEntries = options.maxEntries;
    this.clock = options.clock;
  }

  /** Entries held, including expired ones not reached yet: the memory actually in use. */
  get size(): number {
    return this.entries.size;
  }

  async get(key: string): Promise<StoredRecord | undefined> {
    const entry = this.live(key);
    if (entry === undefined) return undefined;
    this.markUsed(key, entry);
    return decodeRecord(entry.json);
  }

  // Each write below runs without an await between its lookup and its write: two
  // concurrent calls on one key cannot both see it absent, or both see it present.
  async create(key: string, record: StoredRecord, ttlMs: number): Promise<boolean> {
    const expiresAt = this.clock.now() + checkTimeToLive(ttlMs);
    if (this.live(key) !== undefined) return false;
    this.insert(key, compactCopy(encodeRecord(record)), expiresAt);
    return true;
  }

  async replace(key: string, record: StoredRecord, ttlMs: number): Promise<boolean> {
    const expiresAt = this.clock.now() + checkTimeToLive(ttlMs);
    if (this.live(key) === undefined) return false;
    this.insert(key, compactCopy(encodeRecord(record)), expiresAt);
    return true;
  }

  async destroy(key: string): Promise<void> {
    this.entries.delete(key);
  }

  async take(key: string): Promise<StoredRecord | undefined> {
    const entry = this.live(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    return decodeRecord(entry.json);
  }

  async increment(key: string, windowMs: number): Promise<{ count: number; resetsInMs: number }> {
    const now = this.clock.now();
    const window = checkTimeToLive(windowMs);
    const entry = this.live(key);
    const count = entry === undefined ? 1 : countOf(entry.json) + 1;
    const expiresAt = entry === undefined ? now + window : entry.expiresAt;
    this.insert(key, `{"count":${count}}`, expiresAt);
    return { count, resetsInMs: expiresAt - now };
  }

  /** The store lives in this process: if the process answers, so does the store. */
  async ping(): Promise<boolean> {
    return true;
  }

  /** Forgets every record. There is no timer or connection to stop. */
  async close(): Promise<void> {
    this.entries.clear();
    this.sweepCursor = undefined;
  }

  /** The entry if it exists and has not expired; an expired one is removed on the spot. */
  private live(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.clock.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  /** Stores an entry as the most recently used, then keeps the store within its bounds. */
  private insert(key: string, json: string, expiresAt: number): void {
    // Delete first so an overwrite also moves the key to the most recently used end.
    this.entries.delete(key);
    this.entries.set(compactCopy(key), { json, expiresAt, position: ++this.moves });
    this.evictOverflow();
    this.sweep();
  }

  /**
   * Moving an entry to the newest end on every read costs a Map delete and set per
   * request. An entry among the newest half is nowhere near eviction, so only one that has
   * drifted into the older half moves back: a record in use is still never evicted while
   * half the store is older than it, at a fraction of the cost (README, Performance).
   */
  private markUsed(key: string, entry: Entry): void {
    if (this.moves - entry.position < this.maxEntries / 2) return;
    this.entries.delete(key);
    entry.position = ++this.moves;
    this.entries.set(key, entry);
  }

  private evictOverflow(): void {
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done === true) return;
      this.entries.delete(oldest.value);
    }
  }

  /** Inspects a few entries from where the last sweep stopped and drops the expired ones. */
  private sweep(): void {
    const now = this.clock.now();
    for (let step = 0; step < SWEEP_STEPS_PER_WRITE; step++) {
      this.sweepCursor ??= this.entries.entries();
      const next = this.sweepCursor.next();
      if (next.done === true) {
        // Start a new pass at the next write, not now: an empty or fully live map
        // would otherwise be walked again within the same call.
        this.sweepCursor = undefined;
        return;
      }
      const [key, entry] = next.value;
      if (entry.expiresAt <= now) this.entries.delete(key);
    }
  }
}

/** The count a counter entry holds (written by `increment` only). */
function countOf(json: string): number {
  const count = decodeRecord(json).count;
  return typeof count === 'number' ? count : 0;
}

/**
 * A flat copy of a string the store is about to keep. V8 represents a string built with
 * `+=` (as oslo's hex and base64 encoders build theirs) as a tree of fragments, and a
 * Map keeps the whole tree: measured at 1.7 KB for a 64-character key instead of about
 * 120 bytes. JSON.stringify's result is such a tree too, about 200 bytes over its length
 * for an 830-character session record (npm run bench). A JSON round trip yields one flat
 * string and is exact for every string.
 */
function compactCopy(text: string): string {
  const copy: unknown = JSON.parse(JSON.stringify(text));
  return typeof copy === 'string' ? copy : text;
}
