import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { DemoIdentityProvider } from '../../../scripts/demo-identity-provider.js';
import { sessionStoreKey } from '../../../src/adapters/koa/session/session-token.js';
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

if (!redisUrl) it.skip('sign out everywhere on Redis (skipped: REDIS_URL is not set)');
else
  describe('sign out everywhere: two instances sharing one Redis (real oidc-provider)', function () {
    this.timeout(30_000);
    let idp: DemoIdentityProvider;
    let a: OidcApp;
    let b: OidcApp;
    let bUrl: string;

    before(async () => {
      const [portA, portB] = [await freePort(), await freePort()];
      const publicOrigin = `http://127.0.0.1:${portA}`;
      idp = await startIdentityProvider([publicOrigin]);
      const shared = {
        ProjectTemplate__Session__Store: 'Redis',
        ProjectTemplate__Session__Redis__Url: redisUrl,
        ProjectTemplate__Session__Redis__KeyPrefix: `gatehouse-test:${randomUUID()}:`,
        ProjectTemplate__Hosting__PublicOrigin: publicOrigin,
      };
      a = await startOidcApp(idp.issuer, portA, shared);
      b = await startOidcApp(idp.issuer, portB, shared);
      bUrl = `http://127.0.0.1:${portB}`;
    });
    after(async () => {
      await a.close();
      await b.close();
      await idp.close();
    });

    /** Signs `login` in through A and makes the same cookie work on B (one public origin). */
    async function signedIn(login: 'admin' | 'user'): Promise<{ browser: TestBrowser; cookie: string }> {
      const browser = new TestBrowser();
      await browser.signIn(a.url, login);
      return { browser, cookie: browser.jar.header(a.url) ?? '' };
    }
    const statusOn = async (url: string, cookie: string) =>
      (await fetch(`${url}/api/app-info`, { headers: { cookie, accept: 'application/json' } })).status;
    const post = (browser: TestBrowser, form: Record<string, string>) =>
      browser.post(`${a.url}/Account/Sessions`, form, { origin: a.url });

    it("lists the user's sessions on every instance by public id, ends the others at once on every instance, and refuses what is not theirs", async () => {
      const x = await signedIn('admin');
      const y = await signedIn('admin');
      const z = await signedIn('user');
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

      const all = await post(x.browser, { _csrf: page.csrf, end: 'all' });
      expect(all.headers.get('location')).to.equal('/Account/Login');
      expect(await statusOn(bUrl, x.cookie)).to.equal(401);
      expect((await sessionsPage(x.browser, a.url)).status, 'the page itself needs a sign-in').to.equal(302);
    });

    it('lets the application end every session of a user (an account change), on every instance', async () => {
      const x = await signedIn('admin');
      const y = await signedIn('admin');
      const z = await signedIn('user');
      expect(await statusOn(bUrl, x.cookie)).to.equal(200);
      expect(await b.gatehouse.endAllSessions('OpenIdConnect', 'admin')).to.be.at.least(2);
      expect(await statusOn(a.url, x.cookie)).to.equal(401);
      expect(await statusOn(bUrl, y.cookie)).to.equal(401);
      expect(await statusOn(a.url, z.cookie)).to.equal(200);
      expect(await b.gatehouse.endAllSessions('OpenIdConnect', 'admin'), 'nothing left to end').to.equal(0);
    });
  });
