import { expect } from 'chai';
import { MemorySessionStore } from '../../../src/adapters/session/memory-session-store.js';
import { isGatehouseError } from '../../../src/domain/errors.js';
import { FixedClock } from '../../support/fixed-clock.js';
import { checkAgainstRecencyModel } from '../../support/recency-model.js';
import { sessionStoreContract } from './session-store-contract.js';

const MINUTE = 60_000;

sessionStoreContract('MemorySessionStore that refuses when full (replay records)', async () => {
  const clock = new FixedClock();
  const store = new MemorySessionStore({
    maxEntries: 1_000,
    clock,
    refuseWhenFull: { setting: 'ProjectTemplate:Session:MaxReplayRecords', logger: { warn() {} } },
  });
  return {
    store,
    elapse: async (ms) => clock.advance(ms),
    now: () => clock.now(),
    close: () => store.close(),
  };
});

sessionStoreContract('MemorySessionStore', async () => {
  const clock = new FixedClock();
  const store = new MemorySessionStore({ maxEntries: 1_000, clock });
  return {
    store,
    elapse: async (ms) => clock.advance(ms),
    now: () => clock.now(),
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

    expect(await present(store, ['a', 'b', 'c', 'd', 'e'])).to.deep.equal(['c', 'd', 'e']);
  });

  it('never evicts a record read more often than once per half of maxEntries writes, however many others come and go', async function () {
    const store = new MemorySessionStore({ maxEntries: 10, clock });
    await store.create('hot', { name: 'hot' }, MINUTE);
    const cold = Array.from({ length: 1000 }, (_, i) => `cold-${i}`);
    for (const [i, key] of cold.entries()) {
      await store.create(key, { i }, MINUTE);
      if (i % 4 === 0) expect(await store.get('hot'), `after ${i}`).to.deep.equal({ name: 'hot' });
    }
    expect(await present(store, ['hot', ...cold])).to.deep.equal(['hot', ...cold.slice(-9)]);
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

    expect(await store.get('a')).to.deep.equal({ version: 2 });
    expect(await present(store, ['a', 'b', 'c'])).to.deep.equal(['a', 'c']);
  });

  it('never holds more than maxEntries records', async function () {
    const store = new MemorySessionStore({ maxEntries: 100, clock });
    const keys = Array.from({ length: 1_000 }, (_, index) => `key-${index}`);
    for (const [index, key] of keys.entries()) {
      await store.create(key, { index }, MINUTE);
      // The record written 100 writes ago is gone as soon as the 101st arrives, so at no
      // point are more than the last 100 held. (A missing key's lookup moves nothing.)
      if (index >= 100) expect(await store.get(keys[index - 100]!), `after ${key}`).to.equal(undefined);
    }
    expect(await present(store, keys)).to.deep.equal(keys.slice(900));
    expect(await store.get('key-900')).to.deep.equal({ index: 900 });
  });

  it('treats an expired record as absent: lookups miss it, remove it, and replace cannot revive it', async function () {
    const store = new MemorySessionStore({ maxEntries: 2, clock });
    await store.create('long', { name: 'long' }, 10 * MINUTE);
    await store.create('short', { name: 'short' }, MINUTE);
    clock.advance(MINUTE);

    // Expiry is exact: at the expiry time the record is already gone.
    expect(await store.replace('short', { name: 'revived' }, 10 * MINUTE)).to.equal(false);
    expect(await store.get('short')).to.equal(undefined);
    expect(await store.take('short')).to.equal(undefined);
    // Removed, not merely hidden: a new record takes its place without evicting the older live one.
    await store.create('new', { name: 'new' }, MINUTE);
    expect(await store.get('long')).to.deep.equal({ name: 'long' });
    expect(await store.get('new')).to.deep.equal({ name: 'new' });
  });

  it('sweeps expired records on later writes without them being looked up, so they never push out a live one', async function () {
    const store = new MemorySessionStore({ maxEntries: 60, clock });
    await store.create('live', { name: 'live' }, 10 * MINUTE);
    for (let index = 0; index < 50; index++) await store.create(`old-${index}`, { index }, MINUTE);
    clock.advance(2 * MINUTE);
    // 101 records written to a store of 60: left in place, the 50 expired ones would make
    // room by evicting the oldest record, the live one, at the tenth new write.
    const fresh = Array.from({ length: 50 }, (_, index) => `new-${index}`);
    for (const [index, key] of fresh.entries()) await store.create(key, { index }, MINUTE);

    expect(await present(store, ['live', ...fresh])).to.deep.equal(['live', ...fresh]);
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

  describe('refusing when full (replay records)', function () {
    const warnings: object[] = [];
    const newStore = (maxEntries: number) =>
      new MemorySessionStore({
        maxEntries,
        clock,
        refuseWhenFull: {
          setting: 'ProjectTemplate:Session:MaxReplayRecords',
          logger: { warn: (fields: object, msg: string) => void warnings.push({ ...fields, msg }) },
        },
      });
    beforeEach(() => {
      warnings.length = 0;
    });
    async function refusal(promise: Promise<unknown>): Promise<{ code: string; retryAfterMs: number | undefined }> {
      const error = await promise.then(
        () => expect.fail('expected a refusal'),
        (thrown: unknown) => thrown,
      );
      if (!isGatehouseError(error)) return expect.fail(`not a GatehouseError: ${String(error)}`);
      return { code: error.code, retryAfterMs: error.retryAfterMs };
    }

    it('never evicts a record before it expires: a new one past maxEntries is refused and changes nothing', async function () {
      const store = newStore(3);
      await store.create('a', {}, 10 * MINUTE);
      await store.create('b', {}, 2 * MINUTE);
      await store.create('c', {}, 5 * MINUTE);
      for (let attempt = 0; attempt < 100; attempt++)
        expect(await refusal(store.create(`new-${attempt}`, {}, MINUTE))).to.deep.equal({
          code: 'session.store_full',
          retryAfterMs: 2 * MINUTE,
        });
      // Every record still there, and still used once only; reads and replacements go on.
      expect(await store.create('a', {}, MINUTE), 'a used record stays used').to.equal(false);
      expect(await present(store, ['a', 'b', 'c', 'new-0', 'new-99'])).to.deep.equal(['a', 'b', 'c']);
      expect(await store.replace('c', { n: 1 }, 5 * MINUTE)).to.equal(true);
    });

    it('takes new records again once the soonest expires, or one is removed', async function () {
      const store = newStore(2);
      await store.create('soon', {}, MINUTE);
      await store.create('later', {}, 10 * MINUTE);
      clock.advance(MINUTE - 1);
      expect((await refusal(store.create('x', {}, MINUTE))).retryAfterMs).to.equal(1);
      clock.advance(1);
      expect(await store.create('x', {}, MINUTE), 'the soonest has expired').to.equal(true);
      expect((await refusal(store.create('y', {}, MINUTE))).code).to.equal('session.store_full');
      expect(await store.take('x')).to.deep.equal({});
      expect(await store.create('y', {}, 30_000), 'one was taken').to.equal(true);
      // The record written last expires first: the next refusal says so.
      expect((await refusal(store.create('z', {}, MINUTE))).retryAfterMs).to.equal(30_000);
      await store.destroy('later');
      expect(await store.create('z', {}, MINUTE), 'one was destroyed').to.equal(true);
    });

    it('logs one line per episode of refusals, naming the setting, not one per refusal', async function () {
      const store = newStore(1);
      await store.create('a', {}, MINUTE);
      for (let attempt = 0; attempt < 5; attempt++) await refusal(store.create(`b-${attempt}`, {}, MINUTE));
      expect(warnings).to.have.length(1);
      expect(warnings[0]).to.include({ setting: 'ProjectTemplate:Session:MaxReplayRecords', max: 1 });
      clock.advance(MINUTE);
      await store.create('c', {}, MINUTE);
      for (let attempt = 0; attempt < 5; attempt++) await refusal(store.create(`d-${attempt}`, {}, MINUTE));
      expect(warnings, 'a new episode after a record was taken in').to.have.length(2);
    });
  });

  it('lists every session of an index, past a thousand (a connection of many users)', async function () {
    const store = new MemorySessionStore({ maxEntries: 5_000, clock });
    const handles = Array.from({ length: 1_010 }, (_, n) => `session:${n}`);
    for (const [n, handle] of handles.entries()) {
      await store.create(handle, { n }, MINUTE);
      // Each later one ends sooner: a cap that drops the soonest ending would drop the newest.
      await store.addToIndex('sessions-by-logout:connection', handle, clock.now() + MINUTE - n);
    }
    const listed = await store.indexMembers('sessions-by-logout:connection');
    expect(listed).to.have.length(1_010);
    expect(new Set(listed)).to.deep.equal(new Set(handles));
  });

  it('keeps an index within the store’s bound by dropping members naming no record first, never a live session', async function () {
    const store = new MemorySessionStore({ maxEntries: 10, clock });
    const live = ['session:a', 'session:b', 'session:c'];
    for (const handle of live) {
      await store.create(handle, {}, MINUTE);
      await store.addToIndex('index', handle, clock.now() + MINUTE / 2); // the soonest ending of all
    }
    for (let n = 0; n < 30; n++) await store.addToIndex('index', `session:gone-${n}`, clock.now() + MINUTE);
    const listed = await store.indexMembers('index');
    expect(listed.length).to.be.at.most(10);
    expect(listed).to.include.members(live);
  });

  it('answers ping and forgets everything on close', async function () {
    const store = new MemorySessionStore({ maxEntries: 10, clock });
    await store.create('a', { name: 'a' }, MINUTE);
    expect(await store.ping()).to.equal(true);
    await store.close();
    expect(await store.get('a')).to.equal(undefined);
  });
});
