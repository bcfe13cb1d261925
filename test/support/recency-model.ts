import { expect } from 'chai';

/**
 * The eviction rule of Gatehouse's bounded maps, written the slow and obvious way: an
 * array in recency order. A use (a read or a rewrite) moves an entry to the newest end
 * only once at least half the capacity's worth of moves happened since it last moved;
 * a new key goes to the newest end and the oldest go once the map is over capacity.
 * `checkAgainstRecencyModel` runs the same operations on a map and on this model.
 */
export class RecencyModel {
  private order: Array<{ key: string; position: number }> = [];
  private moves = 0;

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.order.length;
  }

  has(key: string): boolean {
    return this.order.some((entry) => entry.key === key);
  }

  use(key: string): void {
    const entry = this.order.find((candidate) => candidate.key === key);
    if (entry === undefined || this.moves - entry.position < this.capacity / 2) return;
    this.order = this.order.filter((candidate) => candidate !== entry);
    entry.position = ++this.moves;
    this.order.push(entry);
  }

  add(key: string): void {
    if (this.order.some((entry) => entry.key === key)) return this.use(key);
    this.order.push({ key, position: ++this.moves });
    while (this.order.length > this.capacity) this.order.shift();
  }

  delete(key: string): void {
    this.order = this.order.filter((entry) => entry.key !== key);
  }
}

/** A bounded map as the model check drives it. */
export interface BoundedMapUnderTest {
  /** Writes `key`: a new entry, or a rewrite of one it holds (`held`). */
  write(key: string, step: number, held: boolean): Promise<void> | void;
  /** Reads `key`, which counts as a use; true when found. */
  read(key: string): Promise<boolean> | boolean;
  delete(key: string): Promise<void> | void;
  /** Entries held, when the map can say (a session store cannot: its reads show what it holds). */
  size?(): number;
}

/**
 * Thousands of seeded writes, reads and deletions (the same every run: a test that
 * fails, fails again) on `map` and on the model: every read must find exactly what the
 * model holds, and the sizes (where the map tells its own) must agree after every step.
 */
export async function checkAgainstRecencyModel(map: BoundedMapUnderTest, capacity: number): Promise<void> {
  const model = new RecencyModel(capacity);
  // mulberry32: small, and its low bits are as random as its high ones.
  let seed = 20261123;
  const next = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (t ^ (t >>> 14)) >>> 0;
  };
  // Half again as many keys as the map holds: most reads hit, many writes evict.
  const keySpace = Math.ceil(capacity * 1.5);
  for (let step = 1; step <= 5_000; step++) {
    const roll = next() % 10;
    const key = `k${next() % keySpace}`;
    const at = `step ${step} (${roll < 5 ? 'write' : roll < 9 ? 'read' : 'delete'} ${key})`;
    if (roll < 5) {
      await map.write(key, step, model.has(key));
      model.add(key);
    } else if (roll < 9) {
      expect(await map.read(key), at).to.equal(model.has(key));
      model.use(key);
    } else {
      await map.delete(key);
      model.delete(key);
    }
    if (map.size) expect(map.size(), at).to.equal(model.size);
  }
}
