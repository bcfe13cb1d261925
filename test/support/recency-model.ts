/**
 * The eviction rule of Gatehouse's bounded maps, written the slow and obvious way: an
 * array in recency order. A use (a read or a rewrite) moves an entry to the newest end
 * only once at least half the capacity's worth of moves happened since it last moved;
 * a new key goes to the newest end and the oldest go once the map is over capacity.
 * Tests run the same operations on a map and on this model: every read must find exactly
 * what the model holds, and the sizes must agree after every step.
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

/** The same pseudo-random operations every run (a test that fails, fails again). */
export function* recencyOperations(
  count: number,
  keySpace: number,
): Generator<{ kind: 'add' | 'use' | 'delete'; key: string }> {
  // mulberry32: small, and its low bits are as random as its high ones.
  let seed = 20261123;
  const next = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (t ^ (t >>> 14)) >>> 0;
  };
  for (let i = 0; i < count; i++) {
    const roll = next() % 10;
    const key = `k${next() % keySpace}`;
    yield { kind: roll < 5 ? 'add' : roll < 9 ? 'use' : 'delete', key };
  }
}
