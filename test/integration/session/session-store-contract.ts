import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { SessionStore, StoredRecord } from '../../../src/application/ports/session-store.js';

/** A store under test, and how time passes for it. */
export interface SessionStoreSubject {
  store: SessionStore;
  /** Lets `ms` of store time pass: a fake clock moves at once, a real Redis is waited for. */
  elapse(ms: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * A time-to-live short enough to wait for against a real Redis, long enough that the
 * "still there" checks keep a margin of at least 100 ms on a busy machine.
 */
const TTL = 200;
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

    it('returns what was set', async function () {
      const record = sessionRecord();
      await store.set(key, record, LONG_TTL);
      expect(await store.get(key)).to.deep.equal(record);
    });

    it('returns undefined for a key never set', async function () {
      expect(await store.get(`unknown-${randomUUID()}`)).to.equal(undefined);
    });

    it('hands out copies: changing a record written or read does not change the store', async function () {
      const roles = ['User'];
      const record: StoredRecord = { principal: { claims: { sub: 'alice', role: roles } }, csrfToken: 'original' };
      const original = structuredClone(record);
      await store.set(key, record, LONG_TTL);
      roles.push('Administrator');
      record.csrfToken = 'changed after set';

      const read = await store.get(key);
      if (read === undefined) expect.fail('the record was not stored');
      read.csrfToken = 'changed after get';
      read.principal = 'replaced after get';

      expect(await store.get(key)).to.deep.equal(original);
    });

    it('forgets a record once its time-to-live has passed', async function () {
      await store.set(key, sessionRecord(), TTL);
      expect(await store.get(key)).to.not.equal(undefined);
      await subject.elapse(TTL + 50);
      expect(await store.get(key)).to.equal(undefined);
      expect(await store.take(key)).to.equal(undefined);
    });

    it('touch extends the time-to-live of an existing record', async function () {
      await store.set(key, sessionRecord(), TTL);
      await subject.elapse(TTL / 2);
      await store.touch(key, 3 * TTL);
      await subject.elapse(TTL); // past the original expiry
      expect(await store.get(key)).to.not.equal(undefined);
      await subject.elapse(3 * TTL); // past the extended expiry
      expect(await store.get(key)).to.equal(undefined);
    });

    it('touch of a missing key creates nothing', async function () {
      await store.touch(key, LONG_TTL);
      expect(await store.get(key)).to.equal(undefined);
    });

    it('destroy removes a record, and destroying a missing key is harmless', async function () {
      await store.set(key, sessionRecord(), LONG_TTL);
      await store.destroy(key);
      expect(await store.get(key)).to.equal(undefined);
      await store.destroy(key);
    });

    it('take returns a record once, then undefined', async function () {
      const record = sessionRecord();
      await store.set(key, record, LONG_TTL);
      expect(await store.take(key)).to.deep.equal(record);
      expect(await store.take(key)).to.equal(undefined);
      expect(await store.get(key)).to.equal(undefined);
    });

    it('two concurrent takes of one record yield it exactly once', async function () {
      await store.set(key, sessionRecord(), LONG_TTL);
      const results = await Promise.all([store.take(key), store.take(key)]);
      expect(results.filter((result) => result !== undefined)).to.have.length(1);
    });

    it('set overwrites the whole record and its time-to-live', async function () {
      await store.set(key, { first: true, shared: 'a' }, TTL);
      await store.set(key, { shared: 'b' }, LONG_TTL);
      await subject.elapse(TTL + 50);
      expect(await store.get(key)).to.deep.equal({ shared: 'b' });
    });

    it('claim: of concurrent claims exactly one wins, and a claimed key stays claimed until its time-to-live ends', async function () {
      const results = await Promise.all([1, 2, 3, 4, 5].map(() => store.claim(key, TTL)));
      expect(results.filter((won) => won)).to.have.length(1);
      expect(await store.claim(key, TTL)).to.equal(false);
      await subject.elapse(TTL + 50);
      expect(await store.claim(key, LONG_TTL)).to.equal(true);
    });

    it('claim does not win over an existing record, and leaves it as it was', async function () {
      const record = sessionRecord();
      await store.set(key, record, LONG_TTL);
      expect(await store.claim(key, LONG_TTL)).to.equal(false);
      expect(await store.get(key)).to.deep.equal(record);
    });

    it('refuses a time-to-live that would keep a record forever', async function () {
      for (const ttl of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
        const setError = await store.set(key, sessionRecord(), ttl).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(setError, `set with ${ttl}`).to.be.instanceOf(RangeError);
        const touchError = await store.touch(key, ttl).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(touchError, `touch with ${ttl}`).to.be.instanceOf(RangeError);
        const claimError = await store.claim(key, ttl).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(claimError, `claim with ${ttl}`).to.be.instanceOf(RangeError);
      }
      expect(await store.get(key)).to.equal(undefined);
    });
  });
}
