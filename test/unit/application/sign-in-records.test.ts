import 'reflect-metadata';
import { builtInProviders } from '../../../src/bootstrap/provider-catalogue.js';
import { expect } from 'chai';
import { SignInRecords } from '../../../src/application/sign-in/sign-in-records.js';
import { MemorySessionStore } from '../../../src/adapters/session/memory-session-store.js';
import type { Principal } from '../../../src/domain/claims/principal.js';
import { defaultSettings } from '../../../src/domain/settings/default-settings.js';
import { FixedClock } from '../../support/fixed-clock.js';

const ada: Principal = {
  scheme: 'OpenIdConnect',
  claims: [
    { type: 'application:subject', value: 'ada-1', issuer: 'OpenIdConnect' },
    { type: 'application:name', value: 'Ada Lovelace', issuer: 'OpenIdConnect' },
    { type: 'application:role', value: 'Administrator', issuer: 'OpenIdConnect' },
  ],
};

/** Settings whose absolute lifetime (the records' time-to-live) is one minute. */
function oneMinuteSessions() {
  const settings = defaultSettings(builtInProviders);
  settings.Session.AbsoluteLifetime = 60;
  return settings;
}

describe('SignInRecords (the principal in a write-once record the session points to)', () => {
  let clock: FixedClock;
  let store: MemorySessionStore;
  let records: SignInRecords;
  beforeEach(() => {
    clock = new FixedClock();
    store = new MemorySessionStore({ maxEntries: 100, clock });
    records = new SignInRecords(store, oneMinuteSessions());
  });

  it('writes the principal and a fresh anti-forgery token under a fresh random reference', async () => {
    const created = await records.create(ada, 'OpenIdConnect');
    expect(created.ref).to.match(/^[A-Za-z0-9_-]{22}$/);
    expect(created.csrf).to.match(/^[A-Za-z0-9_-]{43}$/);
    expect(created.principal).to.deep.equal(ada);
    expect(created.userName).to.equal('Ada Lovelace');
    const stored = await store.get(`signin:${created.ref}`);
    expect(stored?.csrf).to.equal(created.csrf);
    expect(JSON.stringify(stored)).to.include('Ada Lovelace');
    const other = await records.create(ada, 'OpenIdConnect');
    expect(other.csrf).to.not.equal(created.csrf);
    expect(other.ref).to.not.equal(created.ref);
  });

  it('reads a sign-in written by another process from the store, field by field', async () => {
    const created = await records.create(ada, 'OpenIdConnect');
    const elsewhere = new SignInRecords(store, oneMinuteSessions());
    expect(await elsewhere.read(created.ref)).to.deep.equal(created);
  });

  it('hands every request the same frozen sign-in, so no request can change what another sees', async () => {
    const { ref } = await records.create(ada, 'OpenIdConnect');
    const elsewhere = new SignInRecords(store, oneMinuteSessions());
    const first = await elsewhere.read(ref);
    const second = await elsewhere.read(ref);
    expect(second).to.equal(first);
    expect(Object.isFrozen(first?.principal)).to.equal(true);
    expect(Object.isFrozen(first?.principal.claims)).to.equal(true);
    expect(Object.isFrozen(first?.principal.claims[0])).to.equal(true);
    expect(() => ((first!.principal.claims[0] as { value: string }).value = 'mallory')).to.throw(TypeError);
  });

  it('keeps a read sign-in decoded: a later read does not ask the store', async () => {
    const created = await records.create(ada, 'OpenIdConnect');
    const elsewhere = new SignInRecords(store, oneMinuteSessions());
    await elsewhere.read(created.ref);
    // The store forgets it (as Redis would at its time-to-live); the decoded copy still answers.
    await store.destroy(`signin:${created.ref}`);
    expect(await elsewhere.read(created.ref)).to.deep.equal(created);
    expect(await new SignInRecords(store, oneMinuteSessions()).read(created.ref)).to.equal(undefined);
  });

  it('reads nothing for a session without a sign-in, a missing record or a malformed one', async () => {
    expect(await records.read(undefined)).to.equal(undefined);
    expect(await records.read('never-written')).to.equal(undefined);
    await store.create('signin:no-csrf', { principal: { scheme: 'OpenIdConnect', claims: [] } }, 60_000);
    expect(await records.read('no-csrf')).to.equal(undefined);
    await store.create('signin:no-principal', { csrf: 'x' }, 60_000);
    expect(await records.read('no-principal')).to.equal(undefined);
  });

  it('release removes the record, in this process at once', async () => {
    const { ref } = await records.create(ada, 'OpenIdConnect');
    await records.read(ref);
    await records.release(ref);
    expect(await store.get(`signin:${ref}`)).to.equal(undefined);
    expect(await records.read(ref)).to.equal(undefined);
  });

  it('releaseFor removes the record a stored session points to', async () => {
    const { ref } = await records.create(ada, 'OpenIdConnect');
    await records.releaseFor({ signIn: ref });
    expect(await store.get(`signin:${ref}`)).to.equal(undefined);
    await records.releaseFor({ signIn: 42 });
  });

  it('keeps the record for the absolute lifetime of a session', async () => {
    const { ref } = await records.create(ada, 'OpenIdConnect');
    clock.advance(59_000);
    expect(await store.get(`signin:${ref}`)).to.not.equal(undefined);
    clock.advance(2_000);
    expect(await store.get(`signin:${ref}`)).to.equal(undefined);
  });
});
