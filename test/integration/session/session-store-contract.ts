import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { SessionStore, StoredRecord } from '../../../src/application/ports/session-store.js';

/** A store under test, and how time passes for it. */
export interface SessionStoreSubject {
  store: SessionStore;
  /** Lets `ms` of store time pass at once: a fake clock moves, a real Redis's time-to-lives are shortened. */
  elapse(ms: number): Promise<void>;
  /** The store's own time (milliseconds since the epoch): index members end by it. */
  now(): number;
  close(): Promise<void>;
}

/**
 * A time-to-live that no store waits for (`elapse` moves its time), so long that the
 * "still there" checks hold on however busy a machine.
 */
const TTL = 10_000;
const LONG_TTL = 60_000;

function sessionRecord(): StoredRecord {
  return {
    principal: { scheme: 'OpenIdConnect', claims: { sub: 'alice', role: ['User', 'Administrator'] } },
    csrfToken: randomUUID(),
    createdAt: 1_767_225_600_000,
    lastSeenAt: 1_767_225_660_000,
    flags: { remember: false, mfa: null },
  };
}

/**
 * The behaviour every SessionStore promises, run against each adapter so that the
 * memory store used in development cannot drift from Redis used in production.
 */
export function sessionStoreContract(name: string, factory: () => Promise<SessionStoreSubject>): void {
  describe(`${name} (SessionStore contract)`, function () {
    let subject: SessionStoreSubject;
    let store: SessionStore;
    let key: string;

    beforeEach(async function () {
      subject = await factory();
      store = subject.store;
      key = `contract-${randomUUID()}`;
    });

    afterEach(async function () {
      await subject.close();
    });

    it('returns what was created', async function () {
      const record = sessionRecord();
      expect(await store.create(key, record, LONG_TTL)).to.equal(true);
      expect(await store.get(key)).to.deep.equal(record);
    });

    it('lists the members of an index that have not ended, the soonest ending first, and removes one', async function () {
      const now = subject.now();
      await store.addToIndex(key, 'later', now + 2 * LONG_TTL);
      await store.addToIndex(key, 'sooner', now + LONG_TTL);
      await store.addToIndex(key, 'ended', now - 1);
      expect(await store.indexMembers(key)).to.deep.equal(['sooner', 'later']);
      await store.removeFromIndex(key, 'sooner');
      await store.removeFromIndex(key, 'never-added');
      expect(await store.indexMembers(key)).to.deep.equal(['later']);
      await store.addToIndex(key, 'later', now + LONG_TTL); // a member added again takes its new end
      expect(await store.indexMembers(key)).to.deep.equal(['later']);
      expect(await store.indexMembers(`unknown-${randomUUID()}`)).to.deep.equal([]);
    });

    it('removes an index whole with destroy', async function () {
      await store.addToIndex(key, 'member', subject.now() + LONG_TTL);
      await store.destroy(key);
      expect(await store.indexMembers(key)).to.deep.equal([]);
    });

    it('returns undefined for a key never written', async function () {
      expect(await store.get(`unknown-${randomUUID()}`)).to.equal(undefined);
    });

    it('hands out copies: changing a record written or read does not change the store', async function () {
      const roles = ['User'];
      const record: StoredRecord = { principal: { claims: { sub: 'alice', role: roles } }, csrfToken: 'original' };
      const original = structuredClone(record);
      await store.create(key, record, LONG_TTL);
      roles.push('Administrator');
      record.csrfToken = 'changed after create';

      const read = await store.get(key);
      if (read === undefined) expect.fail('the record was not stored');
      read.csrfToken = 'changed after get';
      read.principal = 'replaced after get';

      expect(await store.get(key)).to.deep.equal(original);
    });

    it('forgets a record once its time-to-live has passed', async function () {
      await store.create(key, sessionRecord(), TTL);
      expect(await store.get(key)).to.not.equal(undefined);
      await subject.elapse(TTL + 50);
      expect(await store.get(key)).to.equal(undefined);
      expect(await store.take(key)).to.equal(undefined);
    });

    it('create: of concurrent creates exactly one wins, and the key stays taken until its time-to-live ends', async function () {
      const results = await Promise.all([1, 2, 3, 4, 5].map((n) => store.create(key, { n }, TTL)));
      expect(results.filter((won) => won)).to.have.length(1);
      const winner = results.indexOf(true) + 1;
      expect(await store.create(key, { n: 6 }, TTL)).to.equal(false);
      expect(await store.get(key)).to.deep.equal({ n: winner });
      await subject.elapse(TTL + 50);
      expect(await store.create(key, { n: 7 }, LONG_TTL)).to.equal(true);
    });

    it('replace overwrites the whole record and its time-to-live', async function () {
      await store.create(key, { first: true, shared: 'a' }, TTL);
      expect(await store.replace(key, { shared: 'b' }, LONG_TTL)).to.equal(true);
      await subject.elapse(TTL + 50);
      expect(await store.get(key)).to.deep.equal({ shared: 'b' });
    });

    it('replace writes nothing where the record is gone: a removed record stays removed', async function () {
      expect(await store.replace(key, sessionRecord(), LONG_TTL)).to.equal(false);
      expect(await store.get(key)).to.equal(undefined);
      await store.create(key, sessionRecord(), LONG_TTL);
      await store.destroy(key);
      expect(await store.replace(key, sessionRecord(), LONG_TTL)).to.equal(false);
      expect(await store.get(key)).to.equal(undefined);
    });

    it('destroy removes a record, and destroying a missing key is harmless', async function () {
      await store.create(key, sessionRecord(), LONG_TTL);
      await store.destroy(key);
      expect(await store.get(key)).to.equal(undefined);
      await store.destroy(key);
    });

    it('take returns a record once, then undefined', async function () {
      const record = sessionRecord();
      await store.create(key, record, LONG_TTL);
      expect(await store.take(key)).to.deep.equal(record);
      expect(await store.take(key)).to.equal(undefined);
      expect(await store.get(key)).to.equal(undefined);
    });

    it('two concurrent takes of one record yield it exactly once', async function () {
      await store.create(key, sessionRecord(), LONG_TTL);
      const results = await Promise.all([store.take(key), store.take(key)]);
      expect(results.filter((result) => result !== undefined)).to.have.length(1);
    });

    it('increment counts events in a window that starts with the first and is not extended by the others', async function () {
      const counts = await Promise.all([1, 2, 3, 4].map(() => store.increment(key, 4 * TTL)));
      expect(counts.map((c) => c.count).sort()).to.deep.equal([1, 2, 3, 4]);
      for (const { resetsInMs } of counts) expect(resetsInMs).to.be.within(1, 4 * TTL);
      await subject.elapse(2 * TTL);
      const later = await store.increment(key, 4 * TTL);
      expect(later.count).to.equal(5);
      expect(later.resetsInMs, 'the window was not extended').to.be.at.most(2 * TTL + 10);
      await subject.elapse(2 * TTL + 50);
      expect((await store.increment(key, 4 * TTL)).count, 'a new window').to.equal(1);
    });

    it('increment by an amount counts it whole, in the same window, and refuses what is not a positive integer', async function () {
      expect((await store.increment(key, 4 * TTL, 3)).count).to.equal(3);
      const second = await store.increment(key, 4 * TTL, 2);
      expect(second.count).to.equal(5);
      expect(second.resetsInMs).to.be.within(1, 4 * TTL);
      expect((await store.increment(key, 4 * TTL)).count).to.equal(6);
      for (const amount of [0, -1, 1.5, Number.NaN]) {
        const error = await store.increment(key, 4 * TTL, amount).then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
        expect(error, `amount ${amount}`).to.be.instanceOf(RangeError);
      }
      expect((await store.increment(key, 4 * TTL)).count, 'nothing counted by a refused amount').to.equal(7);
    });

    it('refuses a time-to-live that would keep a record forever', async function () {
      for (const ttl of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
        for (const [name, write] of [
          ['create', () => store.create(key, sessionRecord(), ttl)],
          ['replace', () => store.replace(key, sessionRecord(), ttl)],
          ['increment', () => store.increment(key, ttl)],
        ] as const) {
          const error = await write().then(
            () => undefined,
            (thrown: unknown) => thrown,
          );
          expect(error, `${name} with ${ttl}`).to.be.instanceOf(RangeError);
        }
      }
      expect(await store.get(key)).to.equal(undefined);
    });
  });
}
