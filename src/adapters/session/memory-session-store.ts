import type { Clock } from '../../application/ports/clock.js';
import type { SessionStore, StoredRecord } from '../../application/ports/session-store.js';
import { GatehouseError } from '../../domain/errors.js';
import { decodeRecord, encodeRecord } from './record-json.js';
import { checkAmount } from './counter-amount.js';
import { checkTimeToLive } from './time-to-live.js';

/** A stored record: its JSON text, the clock time from which it no longer exists, and how recently it moved to the newest end. */
interface Entry {
  json: string;
  expiresAt: number;
  position: number;
  /**
   * An index's members and when each ends, kept as a Map: adding one costs no copy of the
   * others. Present (undefined) on every entry, so that all entries share one shape and the
   * lookups of every request stay monomorphic.
   */
  members: Map<string, number> | undefined;
}

/**
 * Entries the incremental sweep inspects per write. More than one, so the sweep moves
 * faster than writes add entries and every expired entry is eventually reached.
 */
const SWEEP_STEPS_PER_WRITE = 4;

/**
 * For a store whose records must not be forgotten before they expire (replay records): a
 * new record past `maxEntries` is refused instead of evicting an older one.
 */
export interface RefuseWhenFull {
  /** The setting that bounds the store, named in the log line. */
  setting: string;
  logger: { warn(fields: object, msg: string): void };
}

/**
 * Sessions in this process only: for development, tests and single-instance hosting.
 * Bounded twice over: at most `maxEntries` records (the least recently used is evicted
 * first) and each record only until its time-to-live ends. No timer runs: an expired
 * entry is invisible from that moment, removed when it is next looked up, and a few
 * entries are swept on every write, so nothing keeps the process alive.
 *
 * With `refuseWhenFull` nothing is ever evicted: once `maxEntries` live records are held,
 * a write of a new key fails with `session.store_full` (503, with the time until the
 * soonest record expires) and changes nothing, logged once per episode. A replay record
 * forgotten early would let a used message be used again; a refusal fails closed.
 */
export class MemorySessionStore implements SessionStore {
  // A Map iterates in insertion order; re-inserting an entry when it moves to the newest
  // end keeps the least recently used one first: LRU eviction without a linked list.
  private readonly entries = new Map<string, Entry>();
  private readonly maxEntries: number;
  private readonly clock: Clock;
  // A live Map iterator: it survives deletions and insertions, so the sweep resumes
  // where it stopped instead of rescanning from the start.
  private sweepCursor: Iterator<[string, Entry]> | undefined;
  // Where eviction resumes, for the same reason: every entry before it has been evicted
  // or moved to the newest end, so the next key it yields is the oldest. A fresh
  // `keys().next()` would step over the slots of every entry deleted since the Map was
  // last rehashed, on every eviction.
  private evictCursor: Iterator<string> | undefined;
  // Moves to the newest end so far: an entry's position is this counter when it last moved.
  private moves = 0;
  private readonly refuseWhenFull: RefuseWhenFull | undefined;
  // With refuseWhenFull, full: no record expires before this time (at most the soonest
  // expiry seen by the last full scan, or of any record written since), so a refusal
  // before it needs no scan; and whether this episode of refusals has been logged.
  private fullUntil = 0;
  private fullReported = false;

  constructor(options: { maxEntries: number; clock: Clock; refuseWhenFull?: RefuseWhenFull }) {
    if (!Number.isInteger(options.maxEntries) || options.maxEntries < 1) {
      throw new RangeError(`maxEntries must be a positive integer, not ${options.maxEntries}.`);
    }
    this.maxEntries = options.maxEntries;
    this.clock = options.clock;
    this.refuseWhenFull = options.refuseWhenFull;
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

  /**
   * How many unexpired records have a key starting with `prefix` (the browser sessions, for
   * the `gatehouse.sessions.active` gauge). One pass over the map: read when a metrics reader
   * collects (once a minute, or a scrape), never on a request.
   */
  countLive(prefix: string): number {
    const now = this.clock.now();
    let count = 0;
    for (const [key, entry] of this.entries) if (entry.expiresAt > now && key.startsWith(prefix)) count++;
    return count;
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

  async increment(key: string, windowMs: number, amount = 1): Promise<{ count: number; resetsInMs: number }> {
    const now = this.clock.now();
    const window = checkTimeToLive(windowMs);
    checkAmount(amount);
    const entry = this.live(key);
    const count = entry === undefined ? amount : countOf(entry.json) + amount;
    const expiresAt = entry === undefined ? now + window : entry.expiresAt;
    this.insert(key, `{"count":${count}}`, expiresAt);
    return { count, resetsInMs: expiresAt - now };
  }

  // An index is an entry of its own, its members in a Map (one more costs no copy of the
  // others: a connection's index lists every session it signed in), living as long as its
  // latest member. It lists at most as many members as the store holds records: past that,
  // the members naming no record here go first (a session's handle is its record's key:
  // what ended or was evicted), then the one ending soonest. A live session is never
  // dropped so, since the store cannot hold more of them than that.
  async addToIndex(key: string, member: string, expiresAt: number): Promise<void> {
    const now = this.clock.now();
    if (!(expiresAt > now)) return;
    const entry = this.live(key);
    const members = entry?.members ?? new Map<string, number>();
    members.set(member, expiresAt);
    if (members.size > this.maxEntries) this.trimIndex(members, now);
    this.insert(key, INDEX_JSON, Math.max(entry?.members ? entry.expiresAt : 0, expiresAt), members);
  }

  async indexMembers(key: string): Promise<string[]> {
    const members = this.live(key)?.members;
    if (members === undefined) return [];
    const now = this.clock.now();
    for (const [member, endsAt] of members) if (endsAt <= now) members.delete(member);
    return [...members.entries()].sort((a, b) => a[1] - b[1]).map(([member]) => member);
  }

  async removeFromIndex(key: string, member: string): Promise<void> {
    const members = this.live(key)?.members;
    if (members === undefined || !members.delete(member)) return;
    if (members.size === 0) this.entries.delete(key);
  }

  /** The store lives in this process: if the process answers, so does the store. */
  async ping(): Promise<boolean> {
    return true;
  }

  /** Forgets every record. There is no timer or connection to stop. */
  async close(): Promise<void> {
    this.entries.clear();
    this.sweepCursor = undefined;
    this.evictCursor = undefined;
  }

  /** An index over its bound: its ended members go, then those naming no record here, then the soonest ending. */
  private trimIndex(members: Map<string, number>, now: number): void {
    for (const [member, endsAt] of members) {
      if (endsAt <= now || this.live(member) === undefined) members.delete(member);
    }
    while (members.size > this.maxEntries) members.delete(soonestEnding(members));
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

  /**
   * Stores a new key at the newest end, then keeps the store within its bounds; a key
   * already here is changed in place and moves as a read does (markUsed). Not deleted and
   * set again: V8 keeps a deleted key in its bucket's chain until the Map is next
   * rehashed, so a key rewritten on every request (a client's challenge counter) made
   * each lookup of it walk thousands of dead copies of itself (docs/performance.md).
   */
  private insert(key: string, json: string, expiresAt: number, members?: Map<string, number>): void {
    const existing = this.entries.get(key);
    if (existing === undefined) {
      if (this.refuseWhenFull) this.makeRoom(this.refuseWhenFull, expiresAt);
      this.entries.set(compactCopy(key), { json, expiresAt, position: ++this.moves, members });
      this.evictOverflow();
    } else {
      existing.json = json;
      existing.expiresAt = expiresAt;
      existing.members = members;
      this.markUsed(key, existing);
    }
    this.sweep();
  }

  /**
   * Moving an entry to the newest end on every read costs a Map delete and set per
   * request. An entry among the newest half is nowhere near eviction, so only one that has
   * drifted into the older half moves back: a record in use is still never evicted while
   * half the store is older than it, at a fraction of the cost (docs/performance.md).
   */
  private markUsed(key: string, entry: Entry): void {
    if (this.moves - entry.position < this.maxEntries / 2) return;
    this.entries.delete(key);
    entry.position = ++this.moves;
    this.entries.set(key, entry);
  }

  /**
   * Room for one more record (ending at `expiresAt`) in a store that must not forget, or
   * a refusal. A full store is scanned whole for expired records at most once until the
   * soonest of its records expires: a burst of refusals costs no scan each.
   */
  private makeRoom(refusal: RefuseWhenFull, expiresAt: number): void {
    const now = this.clock.now();
    if (this.entries.size >= this.maxEntries && now >= this.fullUntil) {
      let soonest = Number.POSITIVE_INFINITY;
      for (const [key, entry] of this.entries) {
        if (entry.expiresAt <= now) this.entries.delete(key);
        else soonest = Math.min(soonest, entry.expiresAt);
      }
      this.fullUntil = soonest;
    }
    if (this.entries.size < this.maxEntries) {
      this.fullUntil = Math.min(this.fullUntil, expiresAt);
      this.fullReported = false;
      return;
    }
    if (!this.fullReported) {
      this.fullReported = true;
      refusal.logger.warn(
        { setting: refusal.setting, max: this.maxEntries },
        'A store of records that must not be forgotten early is full: what needs a new one is refused (503) until the soonest expires. Raise the setting if this is ordinary traffic.',
      );
    }
    throw new GatehouseError('session.store_full', 'Too many records are kept at once; try again later.', {
      retryAfterMs: Math.max(1, this.fullUntil - now),
    });
  }

  private evictOverflow(): void {
    while (this.entries.size > this.maxEntries) {
      this.evictCursor ??= this.entries.keys();
      const oldest = this.evictCursor.next();
      // Never while entries remain after it; a spent iterator stays spent, so start anew.
      if (oldest.done === true) this.evictCursor = undefined;
      else this.entries.delete(oldest.value);
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

/** What `get` reads of an index entry: its members are in the entry's Map, not in JSON. */
const INDEX_JSON = '{}';

function soonestEnding(members: Map<string, number>): string {
  let soonest: [string, number] | undefined;
  for (const member of members) if (soonest === undefined || member[1] < soonest[1]) soonest = member;
  return soonest?.[0] ?? '';
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
