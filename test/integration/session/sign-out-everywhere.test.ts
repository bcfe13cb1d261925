import 'reflect-metadata';
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { signingKey, type DemoIdentityProvider } from '../../../scripts/demo-identity-provider.js';
import { sessionStoreKey } from '../../../src/adapters/koa/session/session-token.js';
import { SessionIndex } from '../../../src/application/sign-in/session-index.js';
import { signLogoutToken } from '../../support/logout-tokens.js';
import { freePort, startIdentityProvider, startOidcApp, TestBrowser, type OidcApp } from '../../support/oidc-app.js';

const redisUrl = process.env.REDIS_URL ?? '';

/** A browser's view of the sessions page: its anti-forgery token, and the public ids of its sessions. */
async function sessionsPage(browser: TestBrowser, url: string) {
  const response = await browser.get(`${url}/Account/Sessions`);
  const html = await response.text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
  const rows = [...html.matchAll(/<tr>([\s\S]*?)<\/tr>/g)]
    .filter((row) => (row[1] ?? '').includes('name="end"'))
    .map((row) => ({
      id: /name="end" value="([^"]+)"/.exec(row[1] ?? '')?.[1] ?? '',
      current: (row[1] ?? '').includes('this session'),
    }));
  return { status: response.status, html, csrf, rows, others: rows.filter((row) => !row.current) };
}

/**
 * The user's sessions: listed, ended one by one, all but this one, all of them, by the
 * application and by the provider. Each ending leaves the user's index listing exactly the
 * sessions still signed in (an ended one left there would be found again by every later
 * ending and listing). On the memory store, one instance; on Redis, two sharing it, each
 * ending seen on the other at its next request.
 */
for (const [storeName, storeEnv] of [
  ['the memory store, one instance', undefined],
  ['two instances sharing one Redis', redisUrl === '' ? undefined : { ProjectTemplate__Session__Store: 'Redis' }],
] as const) {
  if (storeName.includes('Redis') && storeEnv === undefined) {
    it.skip('sign out everywhere on Redis (skipped: REDIS_URL is not set)');
    continue;
  }
  describe(`sign out everywhere: ${storeName} (real oidc-provider)`, function () {
    this.timeout(30_000);
    const providerKey = signingKey();
    let idp: DemoIdentityProvider;
    let a: OidcApp;
    let b: OidcApp;
    let bUrl: string;

    before(async () => {
      const [portA, portB] = [await freePort(), await freePort()];
      const publicOrigin = `http://127.0.0.1:${portA}`;
      idp = await startIdentityProvider([publicOrigin], providerKey);
      const shared = {
        ...(storeEnv === undefined
          ? {}
          : {
              ...storeEnv,
              ProjectTemplate__Session__Redis__Url: redisUrl,
              ProjectTemplate__Session__Redis__KeyPrefix: `gatehouse-test:${randomUUID()}:`,
            }),
        ProjectTemplate__Hosting__PublicOrigin: publicOrigin,
      };
      a = await startOidcApp(idp.issuer, portA, shared);
      // In memory sessions are per process: the "other instance" is the same one.
      b = storeEnv === undefined ? a : await startOidcApp(idp.issuer, portB, shared);
      bUrl = b.url;
    });
    after(async () => {
      await a.close();
      if (b !== a) await b.close();
      await idp.close();
    });

    /** Signs `login` in through A and makes the same cookie work on B (one public origin). */
    async function signedIn(
      login: 'admin' | 'user',
    ): Promise<{ browser: TestBrowser; cookie: string; handle: string }> {
      const browser = new TestBrowser();
      await browser.signIn(a.url, login);
      return {
        browser,
        cookie: browser.jar.header(a.url) ?? '',
        handle: sessionStoreKey(browser.sessionToken(a.url) ?? ''),
      };
    }
    const statusOn = async (url: string, cookie: string) =>
      (await fetch(`${url}/api/app-info`, { headers: { cookie, accept: 'application/json' } })).status;
    const post = (browser: TestBrowser, form: Record<string, string>) =>
      browser.post(`${a.url}/Account/Sessions`, form, { origin: a.url });
    /** The handles the user's index lists now, in no particular order. */
    const indexed = async (login: 'admin' | 'user') =>
      (await new SessionIndex(a.gatehouse.stores.sessions).sessionsOf('OpenIdConnect', login)).sort();
    const only = (...sessions: Array<{ handle: string }>) => sessions.map((session) => session.handle).sort();

    beforeEach(async () => {
      // Each test starts with no session of either user.
      for (const login of ['admin', 'user']) await a.gatehouse.endAllSessions('OpenIdConnect', login);
    });

    it("lists the user's sessions on every instance by public id, ends the others at once on every instance, and refuses what is not theirs", async () => {
      const x = await signedIn('admin');
      const y = await signedIn('admin');
      const z = await signedIn('user');
      expect(await indexed('admin')).to.deep.equal(only(x, y));
      // B decodes and keeps Y's sign-in: the cache must not outlive the ending.
      expect(await statusOn(bUrl, y.cookie)).to.equal(200);

      const page = await sessionsPage(x.browser, a.url);
      expect(page.status).to.equal(200);
      expect(page.rows).to.have.length(2);
      expect(page.rows.filter((row) => row.current)).to.have.length(1);
      const xToken = x.browser.sessionToken(a.url) ?? 'x';
      expect(page.html).not.to.contain(xToken);
      expect(page.html).not.to.contain(sessionStoreKey(xToken).slice('session:'.length));
      const zId = (await sessionsPage(z.browser, a.url)).rows[0]?.id ?? '';

      // Refused, changing nothing: no anti-forgery token, a malformed choice, another user's session.
      expect((await post(x.browser, { end: 'others' })).status).to.equal(400);
      expect((await post(x.browser, { _csrf: page.csrf, end: '<script>' })).status).to.equal(400);
      expect((await post(x.browser, { _csrf: page.csrf, end: zId })).status).to.equal(404);
      for (const { cookie } of [x, y, z]) expect(await statusOn(bUrl, cookie)).to.equal(200);

      const ended = await post(x.browser, { _csrf: page.csrf, end: 'others' });
      expect(ended.status).to.equal(302);
      expect(ended.headers.get('location')).to.equal('/Account/Sessions?ended=1');
      expect(await statusOn(bUrl, y.cookie), 'ended on the other instance at its next request').to.equal(401);
      expect(await statusOn(a.url, y.cookie)).to.equal(401);
      expect(await statusOn(bUrl, x.cookie), 'this session kept').to.equal(200);
      expect(await statusOn(bUrl, z.cookie), "another user's session kept").to.equal(200);
      expect(await indexed('admin'), 'the ended session left the index').to.deep.equal(only(x));
      expect(await indexed('user')).to.deep.equal(only(z));
      const audit = a.logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.audit);
      expect(audit.at(-1)).to.include({ event: 'sessions.ended', count: 1, cause: 'sign_out_others', by: 'user' });
    });

    it('ends one named session, and with "everywhere" this one too', async () => {
      const x = await signedIn('admin');
      const w = await signedIn('admin');
      const page = await sessionsPage(x.browser, a.url);
      const wId = (await sessionsPage(w.browser, a.url)).rows.find((row) => row.current)?.id ?? '';
      expect(page.others.map((row) => row.id)).to.include(wId);
      expect((await post(x.browser, { _csrf: page.csrf, end: wId })).headers.get('location')).to.equal(
        '/Account/Sessions?ended=1',
      );
      expect(await statusOn(bUrl, w.cookie)).to.equal(401);
      expect(await statusOn(bUrl, x.cookie)).to.equal(200);
      expect(await indexed('admin'), 'the ended session left the index').to.deep.equal(only(x));

      // The page says what signing out here cannot do: the provider's own sign-in stays open.
      expect(page.html).to.contain('a click there signs them straight back in');
      const all = await post(x.browser, { _csrf: page.csrf, end: 'all' });
      // This browser leaves through the provider's end-session, as /Account/Logout does:
      // otherwise the provider's session signs it straight back in at the next click.
      const location = new URL(all.headers.get('location') ?? expect.fail('no redirect'));
      expect(`${location.origin}${location.pathname}`).to.equal(`${idp.issuer}/session/end`);
      expect(location.searchParams.get('post_logout_redirect_uri')).to.equal(`${a.url}/`);
      expect(location.searchParams.get('id_token_hint')).to.be.a('string');
      expect(await statusOn(bUrl, x.cookie)).to.equal(401);
      expect((await sessionsPage(x.browser, a.url)).status, 'the page itself needs a sign-in').to.equal(302);
      expect(await indexed('admin')).to.deep.equal([]);
    });

    it("ending this browser's own session by its name signs this browser out, as a logout does", async () => {
      const x = await signedIn('admin');
      const y = await signedIn('admin');
      const page = await sessionsPage(x.browser, a.url);
      const own = page.rows.find((row) => row.current)?.id ?? expect.fail('no current session listed');

      const ended = await post(x.browser, { _csrf: page.csrf, end: own });
      expect(ended.status).to.equal(302);
      expect(ended.headers.get('location'), 'to the login page, not back to the sessions').to.equal('/Account/Login');
      expect(x.browser.sessionToken(a.url), 'the session cookie is cleared').to.equal(undefined);
      const login = await (await x.browser.get(`${a.url}/Account/Login`)).text();
      expect(login, 'the login page says so').to.match(/signed out/i);
      expect(await statusOn(bUrl, x.cookie), 'the old cookie is anonymous everywhere').to.equal(401);
      expect(await statusOn(bUrl, y.cookie), 'the other session goes on').to.equal(200);
      expect(await indexed('admin')).to.deep.equal(only(y));
    });

    it('lets the application end every session of a user (an account change), on every instance', async () => {
      const x = await signedIn('admin');
      const y = await signedIn('admin');
      const z = await signedIn('user');
      expect(await statusOn(bUrl, x.cookie)).to.equal(200);
      expect(await b.gatehouse.endAllSessions('OpenIdConnect', 'admin')).to.equal(2);
      expect(await statusOn(a.url, x.cookie)).to.equal(401);
      expect(await statusOn(bUrl, y.cookie)).to.equal(401);
      expect(await statusOn(a.url, z.cookie)).to.equal(200);
      expect(await indexed('admin'), 'nothing left listed').to.deep.equal([]);
      expect(await indexed('user')).to.deep.equal(only(z));
      expect(await b.gatehouse.endAllSessions('OpenIdConnect', 'admin'), 'nothing left to end').to.equal(0);
    });

    it("leaves the index of every session the provider's logout ended, the user's and the provider's own", async () => {
      const x = await signedIn('admin');
      const y = await signedIn('admin');
      const z = await signedIn('user');
      const byLogoutKey = () =>
        new SessionIndex(a.gatehouse.stores.sessions).sessionsByLogoutKey(
          'OpenIdConnect',
          JSON.stringify([idp.issuer, 'sub', 'admin']),
        );
      // Sessions ended otherwise stay listed here until a logout drops them (SessionIndex).
      expect(await byLogoutKey()).to.include.members(only(x, y));
      const token = await signLogoutToken(providerKey, {
        issuer: idp.issuer,
        audience: 'gatehouse-test',
        claims: { sub: 'admin' },
      });
      const logout = await fetch(`${a.url}/backchannel-logout-oidc`, {
        method: 'POST',
        body: new URLSearchParams({ logout_token: token }),
      });
      expect(logout.status).to.equal(200);
      expect(await statusOn(bUrl, x.cookie)).to.equal(401);
      expect(await statusOn(bUrl, y.cookie)).to.equal(401);
      expect(await byLogoutKey()).to.deep.equal([]);
      expect(await indexed('admin'), "the user's index too").to.deep.equal([]);
      expect(await indexed('user')).to.deep.equal(only(z));
    });
  });
}
