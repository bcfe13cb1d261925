import { expect } from 'chai';
import type { SessionFields } from '../../../src/adapters/koa/session/session-state.js';
import { SignInRecords } from '../../../src/adapters/koa/session/sign-in-records.js';
import { MemorySessionStore } from '../../../src/adapters/session/memory-session-store.js';
import type { Principal } from '../../../src/domain/claims/principal.js';
import { FixedClock } from '../../support/fixed-clock.js';

const ada: Principal = {
  scheme: 'OpenIdConnect',
  claims: [
    { type: 'application:subject', value: 'ada-1', issuer: 'OpenIdConnect' },
    { type: 'application:name', value: 'Ada Lovelace', issuer: 'OpenIdConnect' },
    { type: 'application:role', value: 'Administrator', issuer: 'OpenIdConnect' },
  ],
};

describe('SignInRecords (the principal in a write-once record the session points to)', () => {
  let clock: FixedClock;
  let store: MemorySessionStore;
  let records: SignInRecords;
  beforeEach(() => {
    clock = new FixedClock();
    store = new MemorySessionStore({ maxEntries: 100, clock });
    records = new SignInRecords(store, 60_000);
  });

  it('writes the principal and a fresh anti-forgery token under a random reference kept in the session', async () => {
    const session: SessionFields = {};
    const created = await records.create(session, ada);
    expect(session.signIn).to.match(/^[A-Za-z0-9_-]{22}$/);
    expect(created.ref).to.equal(session.signIn);
    expect(created.csrf).to.match(/^[A-Za-z0-9_-]{43}$/);
    expect(created.principal).to.deep.equal(ada);
    expect(created.userName).to.equal('Ada Lovelace');
    const stored = await store.get(`signin:${session.signIn}`);
    expect(stored?.csrf).to.equal(created.csrf);
    expect(JSON.stringify(stored)).to.include('Ada Lovelace');
    const other: SessionFields = {};
    expect((await records.create(other, ada)).csrf).to.not.equal(created.csrf);
    expect(other.signIn).to.not.equal(session.signIn);
  });

  it('reads a sign-in written by another process from the store, field by field', async () => {
    const session: SessionFields = {};
    const created = await records.create(session, ada);
    const elsewhere = new SignInRecords(store, 60_000);
    const read = await elsewhere.read({ signIn: session.signIn });
    expect(read).to.deep.equal(created);
  });

  it('hands every request the same frozen sign-in, so no request can change what another sees', async () => {
    const session: SessionFields = {};
    await records.create(session, ada);
    const elsewhere = new SignInRecords(store, 60_000);
    const first = await elsewhere.read(session);
    const second = await elsewhere.read(session);
    expect(second).to.equal(first);
    expect(Object.isFrozen(first?.principal)).to.equal(true);
    expect(Object.isFrozen(first?.principal.claims)).to.equal(true);
    expect(Object.isFrozen(first?.principal.claims[0])).to.equal(true);
    expect(() => ((first!.principal.claims[0] as { value: string }).value = 'mallory')).to.throw(TypeError);
  });

  it('keeps a read sign-in decoded: a later read does not ask the store', async () => {
    const session: SessionFields = {};
    const created = await records.create(session, ada);
    const elsewhere = new SignInRecords(store, 60_000);
    await elsewhere.read(session);
    // The store forgets it (as Redis would at its time-to-live); the decoded copy still answers.
    await store.destroy(`signin:${session.signIn}`);
    expect(await elsewhere.read(session)).to.deep.equal(created);
    expect(await new SignInRecords(store, 60_000).read(session)).to.equal(undefined);
  });

  it('reads nothing for a session without a sign-in, a missing record or a malformed one', async () => {
    expect(await records.read({})).to.equal(undefined);
    expect(await records.read({ signIn: 'never-written' })).to.equal(undefined);
    await store.set('signin:no-csrf', { principal: { scheme: 'OpenIdConnect', claims: [] } }, 60_000);
    expect(await records.read({ signIn: 'no-csrf' })).to.equal(undefined);
    await store.set('signin:no-principal', { csrf: 'x' }, 60_000);
    expect(await records.read({ signIn: 'no-principal' })).to.equal(undefined);
  });

  it('drop removes the record and the reference, in this process at once', async () => {
    const session: SessionFields = {};
    await records.create(session, ada);
    const ref = session.signIn;
    await records.read(session);
    await records.drop(session);
    expect(session.signIn).to.equal(undefined);
    expect(await store.get(`signin:${ref}`)).to.equal(undefined);
    expect(await records.read({ signIn: ref })).to.equal(undefined);
  });

  it('a new sign-in on the same session replaces the earlier record', async () => {
    const session: SessionFields = {};
    await records.create(session, ada);
    const earlier = session.signIn;
    await records.create(session, {
      scheme: 'OpenIdConnect',
      claims: [{ type: 'application:name', value: 'Bob', issuer: 'OpenIdConnect' }],
    });
    expect(session.signIn).to.not.equal(earlier);
    expect(await store.get(`signin:${earlier}`)).to.equal(undefined);
    expect((await records.read(session))?.userName).to.equal('Bob');
  });

  it('releaseFor removes the record a stored session points to', async () => {
    const session: SessionFields = {};
    await records.create(session, ada);
    await records.releaseFor({ ...session });
    expect(await store.get(`signin:${session.signIn}`)).to.equal(undefined);
    await records.releaseFor({ signIn: 42 });
  });

  it('keeps the record for the time-to-live it was given (the absolute lifetime)', async () => {
    const session: SessionFields = {};
    await records.create(session, ada);
    clock.advance(59_000);
    expect(await store.get(`signin:${session.signIn}`)).to.not.equal(undefined);
    clock.advance(2_000);
    expect(await store.get(`signin:${session.signIn}`)).to.equal(undefined);
  });
});
