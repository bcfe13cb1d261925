import { expect } from 'chai';
import { sessionStoreKey } from '../../../src/adapters/koa/session/session-token.js';
import { adminClaims, signIn } from '../../support/sign-in.js';
import { startGatehouse, type RunningGatehouse } from '../../support/start-gatehouse.js';

describe('session cookie and lifetime', () => {
  let running: RunningGatehouse;
  before(
    async () =>
      (running = await startGatehouse({
        ProjectTemplate__Session__IdleTimeout: '600',
        ProjectTemplate__Session__AbsoluteLifetime: '3600',
      })),
  );
  after(() => running.close());

  const sessionWith = (times: { createdAt: number; lastSeenAt: number }) =>
    signIn(running.gatehouse, [['application:name', 'Ada']], { times });
  const status = async (cookie: string) => (await fetch(`${running.url}/api/app-info`, { headers: { cookie } })).status;

  it('creates no session and sets no cookie for anonymous page views', async () => {
    for (const path of ['/Account/Login', '/', '/Account/AccessDenied', '/Home/Error/404']) {
      expect((await fetch(running.url + path, { redirect: 'manual' })).headers.get('set-cookie'), path).to.equal(null);
    }
  });

  it('ends a session idle for longer than IdleTimeout, and removes it and its sign-in record from the store', async () => {
    const now = Date.now();
    const { token, cookie, signInRef } = await sessionWith({ createdAt: now - 700_000, lastSeenAt: now - 601_000 });
    expect(await running.gatehouse.stores.sessions.get(`signin:${signInRef}`)).to.not.equal(undefined);
    expect(await status(cookie)).to.equal(401);
    expect(await running.gatehouse.stores.sessions.get(sessionStoreKey(token))).to.equal(undefined);
    expect(await running.gatehouse.stores.sessions.get(`signin:${signInRef}`)).to.equal(undefined);
  });

  it('removes the saved-tokens record of a session that ended by expiry', async () => {
    const now = Date.now();
    const { token, cookie, signInRef } = await sessionWith({ createdAt: now - 3_601_000, lastSeenAt: now - 1000 });
    const store = running.gatehouse.stores.sessions;
    const session = await store.get(sessionStoreKey(token));
    await store.create(`provider-session:${signInRef}`, { record: { accessToken: 'sentinel-access-token' } }, 60_000);
    await store.replace(sessionStoreKey(token), { ...session, providerSession: true }, 60_000);
    expect(await status(cookie)).to.equal(401);
    expect(await store.get(`provider-session:${signInRef}`)).to.equal(undefined);
  });

  it('ends a session older than AbsoluteLifetime however active it is', async () => {
    const now = Date.now();
    const { cookie } = await sessionWith({ createdAt: now - 3_601_000, lastSeenAt: now - 1000 });
    expect(await status(cookie)).to.equal(401);
  });

  it('slides the idle timeout: a request records lastSeenAt, at most once per interval', async () => {
    const now = Date.now();
    const { token, cookie } = await sessionWith({ createdAt: now - 500_000, lastSeenAt: now - 500_000 });
    expect(await status(cookie)).to.equal(200);
    const touched = (await running.gatehouse.stores.sessions.get(sessionStoreKey(token))) as {
      lastSeenAt: number;
      createdAt: number;
    };
    expect(touched.lastSeenAt).to.be.greaterThan(now - 1000);
    expect(touched.createdAt).to.equal(now - 500_000);
  });

  it('does not write the session on every request', async () => {
    const { cookie } = await signIn(running.gatehouse, adminClaims);
    const first = await fetch(`${running.url}/api/app-info`, { headers: { cookie } });
    expect(first.headers.get('set-cookie')).to.equal(null);
  });

  it('ignores a cookie that is not a session token without asking the store', async () => {
    expect(await status('gatehouse.sid=not-a-token')).to.equal(401);
    expect(await status(`gatehouse.sid=${'A'.repeat(43)}`)).to.equal(401);
  });
});
