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
    if (this.moves - entry.position >= this.capacity / 2) {
      this.entries.delete(key);
      entry.position = ++this.moves;
      this.entries.set(key, entry);
    }
    return entry.value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, { value, position: ++this.moves });
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
  }

  delete(key: K): void {
    this.entries.delete(key);
  }
}
