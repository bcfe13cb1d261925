import { expect } from 'chai';
import { MemorySessionStore } from '../../../src/adapters/session/memory-session-store.js';
import { FixedClock } from '../../support/fixed-clock.js';
import { checkAgainstRecencyModel } from '../../support/recency-model.js';
import { sessionStoreContract } from './session-store-contract.js';

const MINUTE = 60_000;

sessionStoreContract('MemorySessionStore', async () => {
  const clock = new FixedClock();
  const store = new MemorySessionStore({ maxEntries: 1_000, clock });
  return {
    store,
    elapse: async (ms) => clock.advance(ms),
    close: () => store.close(),
  };
});

describe('MemorySessionStore', function () {
  let clock: FixedClock;

  beforeEach(function () {
    clock = new FixedClock();
  });

  async function present(store: MemorySessionStore, keys: string[]): Promise<string[]> {
    const found: string[] = [];
    // get() counts as use, so tests call this last, after the order under test is settled.
    for (const key of keys) if ((await store.get(key)) !== undefined) found.push(key);
    return found;
  }

  it('evicts the least recently used record first, where get and replace count as use', async function () {
    const store = new MemorySessionStore({ maxEntries: 3, clock });
    await store.create('a', { name: 'a' }, MINUTE);
    await store.create('b', { name: 'b' }, MINUTE);
    await store.create('c', { name: 'c' }, MINUTE);

    await store.get('a'); // order now b, c, a
    await store.create('d', { name: 'd' }, MINUTE); // evicts b
    await store.replace('c', { name: 'c' }, MINUTE); // order now a, d, c
    await store.create('e', { name: 'e' }, MINUTE); // evicts a

    expect(store.size).to.equal(3);
    expect(await present(store, ['a', 'b', 'c', 'd', 'e'])).to.deep.equal(['c', 'd', 'e']);
  });

  it('never evicts a record read more often than once per half of maxEntries writes, however many others come and go', async function () {
    const store = new MemorySessionStore({ maxEntries: 10, clock });
    await store.create('hot', { name: 'hot' }, MINUTE);
    for (let i = 0; i < 1000; i++) {
      await store.create(`cold-${i}`, { i }, MINUTE);
      if (i % 4 === 0) expect(await store.get('hot'), `after ${i}`).to.deep.equal({ name: 'hot' });
    }
    expect(store.size).to.equal(10);
  });

  it('evicts oldest first through thousands of evictions, with reads, rewrites, counts and deletions in between', async function () {
    const store = new MemorySessionStore({ maxEntries: 16, clock });
    await checkAgainstRecencyModel(
      {
        async write(key, step, held) {
          // A rewrite of a held key: half by replace, half by a counter's increment (the
          // per-client challenge count, rewritten on every challenge).
          if (!held) expect(await store.create(key, { step }, MINUTE)).to.equal(true);
          else if (step % 2 === 0) expect(await store.replace(key, { step }, MINUTE)).to.equal(true);
          else await store.increment(key, MINUTE);
        },
        read: async (key) => (await store.get(key)) !== undefined,
        delete: (key) => store.destroy(key),
        size: () => store.size,
      },
      16,
    );
  });

  it('replacing a record counts as use and does not grow the store', async function () {
    const store = new MemorySessionStore({ maxEntries: 2, clock });
    await store.create('a', { version: 1 }, MINUTE);
    await store.create('b', { version: 1 }, MINUTE);
    await store.replace('a', { version: 2 }, MINUTE); // order now b, a
    await store.create('c', { version: 1 }, MINUTE); // evicts b

    expect(store.size).to.equal(2);
    expect(await store.get('a')).to.deep.equal({ version: 2 });
    expect(await store.get('b')).to.equal(undefined);
  });

  it('never holds more than maxEntries records', async function () {
    const store = new MemorySessionStore({ maxEntries: 100, clock });
    for (let index = 0; index < 1_000; index++) {
      await store.create(`key-${index}`, { index }, MINUTE);
      expect(store.size).to.be.at.most(100);
    }
    expect(store.size).to.equal(100);
    expect(await store.get('key-899')).to.equal(undefined);
    expect(await store.get('key-900')).to.deep.equal({ index: 900 });
    expect(await store.get('key-999')).to.deep.equal({ index: 999 });
  });

  it('treats an expired record as absent: lookups miss it, remove it, and replace cannot revive it', async function () {
    const store = new MemorySessionStore({ maxEntries: 10, clock });
    await store.create('short', { name: 'short' }, MINUTE);
    await store.create('long', { name: 'long' }, 10 * MINUTE);
    clock.advance(MINUTE);

    // Expiry is exact: at the expiry time the record is already gone.
    expect(await store.replace('short', { name: 'revived' }, 10 * MINUTE)).to.equal(false);
    expect(await store.get('short')).to.equal(undefined);
    expect(await store.take('short')).to.equal(undefined);
    expect(store.size).to.equal(1);
    expect(await store.get('long')).to.deep.equal({ name: 'long' });
  });

  it('sweeps expired records on later writes without them being looked up', async function () {
    const store = new MemorySessionStore({ maxEntries: 1_000, clock });
    for (let index = 0; index < 50; index++) await store.create(`old-${index}`, { index }, MINUTE);
    clock.advance(2 * MINUTE);
    for (let index = 0; index < 50; index++) await store.create(`new-${index}`, { index }, MINUTE);

    expect(store.size).to.equal(50);
  });

  it('keeps a stored record independent of the key string passed in', async function () {
    // Keys built with += are ropes in V8; the store keeps a flat copy, which must be equal.
    let key = '';
    for (const character of 'f'.repeat(64)) key += character;
    const store = new MemorySessionStore({ maxEntries: 10, clock });
    await store.create(key, { name: 'rope' }, MINUTE);
    expect(await store.get('f'.repeat(64))).to.deep.equal({ name: 'rope' });
  });

  it('rejects a maxEntries that is not a positive integer', function () {
    for (const maxEntries of [0, -1, 1.5, Number.NaN]) {
      expect(() => new MemorySessionStore({ maxEntries, clock }), String(maxEntries)).to.throw(RangeError);
    }
  });

  it('answers ping and forgets everything on close', async function () {
    const store = new MemorySessionStore({ maxEntries: 10, clock });
    await store.create('a', { name: 'a' }, MINUTE);
    expect(await store.ping()).to.equal(true);
    await store.close();
    expect(store.size).to.equal(0);
    expect(await store.get('a')).to.equal(undefined);
  });
});
