/**
 * A map bounded to `capacity` entries that forgets the least recently used one first.
 * A Map iterates in insertion order, so moving an entry to the newest end keeps the oldest
 * first. A hit moves the entry only once it has drifted into the older half: an entry in
 * use is still never forgotten while half the map is older than it, and a hot entry costs
 * a lookup, not a delete and a set, per hit.
 */
export class RecentlyUsed<K, V> {
  private readonly entries = new Map<K, { value: V; position: number }>();
  // Moves to the newest end so far: an entry's position is this counter when it last moved.
  private moves = 0;
  // Where eviction resumes: every entry before it has been evicted or moved to the newest
  // end, so the next key it yields is the oldest. A fresh `keys().next()` would step over
  // the slot of every entry deleted since the Map was last rehashed, on every eviction.
  private evictCursor: Iterator<K> | undefined;

  constructor(private readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`capacity must be a positive integer, not ${capacity}.`);
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.markUsed(key, entry);
    return entry.value;
  }

  /**
   * A key already here is changed in place and moves as a hit does: deleting and setting
   * it again would leave a dead copy in its bucket's chain, which V8 walks on every lookup
   * until the Map is next rehashed.
   */
  set(key: K, value: V): void {
    const existing = this.entries.get(key);
    if (existing !== undefined) {
      existing.value = value;
      this.markUsed(key, existing);
      return;
    }
    this.entries.set(key, { value, position: ++this.moves });
    while (this.entries.size > this.capacity) {
      this.evictCursor ??= this.entries.keys();
      const oldest = this.evictCursor.next();
      // Never while entries remain after it; a spent iterator stays spent, so start anew.
      if (oldest.done === true) this.evictCursor = undefined;
      else this.entries.delete(oldest.value);
    }
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  private markUsed(key: K, entry: { value: V; position: number }): void {
    if (this.moves - entry.position < this.capacity / 2) return;
    this.entries.delete(key);
    entry.position = ++this.moves;
    this.entries.set(key, entry);
  }
}
