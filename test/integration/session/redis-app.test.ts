import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { DemoIdentityProvider } from '../../../scripts/demo-identity-provider.js';
import { sessionStoreKey } from '../../../src/adapters/koa/session/session-token.js';
import {
  freePort,
  startIdentityProvider,
  startOidcApp,
  storedTokens,
  TestBrowser,
  type OidcApp,
} from '../../support/oidc-app.js';
import { adminClaims, signIn } from '../../support/sign-in.js';
import { startGatehouse, type RunningGatehouse } from '../../support/start-gatehouse.js';
import { TcpProxy } from '../../support/tcp-proxy.js';

const redisUrl = process.env.REDIS_URL ?? '';
const redisEnv = (url: string) => ({
  ProjectTemplate__Session__Store: 'Redis',
  ProjectTemplate__Session__Redis__Url: url,
  ProjectTemplate__Session__Redis__KeyPrefix: `gatehouse-test:${randomUUID()}:`,
});

async function eventually(condition: () => Promise<boolean>, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

if (!redisUrl) it.skip('Gatehouse on Redis (skipped: REDIS_URL is not set; e.g. REDIS_URL=redis://127.0.0.1:6379)');
else
  describe('Gatehouse on Redis', function () {
    this.timeout(20_000);

    describe('two instances sharing one Redis behind one public origin', () => {
      let idp: DemoIdentityProvider;
      let a: OidcApp;
      let b: OidcApp;
      let publicOrigin: string;

      before(async () => {
        const [portA, portB] = [await freePort(), await freePort()];
        publicOrigin = `http://127.0.0.1:${portA}`;
        idp = await startIdentityProvider([publicOrigin]);
        const shared = { ...redisEnv(redisUrl), ProjectTemplate__Hosting__PublicOrigin: publicOrigin };
        a = await startOidcApp(idp.issuer, portA, shared);
        b = await startOidcApp(idp.issuer, portB, shared);
      });
      after(async () => {
        await a.close();
        await b.close();
        await idp.close();
      });

      it('starts the challenge on A, completes it on B, uses the session on B, logs out on B: anonymous on A', async () => {
        const browser = new TestBrowser();
        const callback = await browser.startSignIn(a.url, 'admin', '/api/app-info');
        const cookieBefore = browser.jar.header(a.url) ?? '';
        const bUrl = `http://127.0.0.1:${new URL(b.url).port}`;

        const completed = await fetch(`${bUrl}${callback.pathname}${callback.search}`, {
          headers: { cookie: cookieBefore },
          redirect: 'manual',
        });
        expect(completed.status).to.equal(302);
        expect(completed.headers.get('location')).to.equal('/api/app-info');
        browser.jar.store(a.url, completed);
        const cookie = browser.jar.header(a.url) ?? '';
        expect(cookie).not.to.equal(cookieBefore);

        expect((await fetch(`${bUrl}/api/app-info/admin`, { headers: { cookie } })).status).to.equal(200);
        expect((await fetch(`${a.url}/api/app-info/admin`, { headers: { cookie } })).status).to.equal(200);

        const home = await (await fetch(`${bUrl}/`, { headers: { cookie } })).text();
        const csrf = /name="_csrf" value="([^"]+)"/.exec(home)?.[1] ?? '';
        const logout = await fetch(`${bUrl}/Account/Logout`, {
          method: 'POST',
          redirect: 'manual',
          headers: { cookie, origin: publicOrigin, 'content-type': 'application/x-www-form-urlencoded' },
          body: `_csrf=${encodeURIComponent(csrf)}`,
        });
        expect(logout.status).to.equal(302);
        expect((await fetch(`${a.url}/api/app-info`, { headers: { cookie } })).status).to.equal(401);
        expect((await fetch(`${bUrl}/api/app-info`, { headers: { cookie } })).status).to.equal(401);
      });

      it('refreshes expired tokens once across both instances: the rotating refresh token is spent once, the grant survives', async () => {
        const browser = new TestBrowser();
        await browser.signIn(a.url, 'admin');
        const cookie = browser.jar.header(a.url) ?? '';
        const bUrl = `http://127.0.0.1:${new URL(b.url).port}`;
        const sessionKey = sessionStoreKey(browser.sessionToken(a.url) ?? '');
        const store = a.gatehouse.stores.sessions;
        const expireTokens = async () =>
          store.replace(sessionKey, { ...((await store.get(sessionKey)) ?? {}), refreshAt: Date.now() - 1000 }, 60_000);

        for (let round = 1; round <= 2; round++) {
          const before = await storedTokens(a, browser);
          await expireTokens();
          const statuses = await Promise.all(
            [a.url, bUrl, a.url, bUrl, a.url, bUrl].map(
              async (url) => (await fetch(`${url}/api/app-info`, { headers: { cookie } })).status,
            ),
          );
          expect(statuses, `round ${round}`).to.deep.equal([200, 200, 200, 200, 200, 200]);
          const after = await storedTokens(a, browser);
          expect(after?.tokens.accessToken, `round ${round}`)
            .to.be.a('string')
            .and.not.equal(before?.tokens.accessToken);
          expect(after?.tokens.refreshToken, `round ${round}`).to.not.equal(before?.tokens.refreshToken); // rotated
          expect((await store.get(sessionKey))?.refreshAt, `round ${round}`).to.be.greaterThan(Date.now());
        }
        // A second use of a spent refresh token would have been refused and the grant revoked.
        expect([...a.logs, ...b.logs].join('\n')).not.to.contain('provider session refresh refused');
      });

      it('keeps a pending sign-in small and short-lived: a long return URL is not stored, the record ends within 16 minutes', async () => {
        const browser = new TestBrowser();
        await browser.get(`${a.url}/External/Challenge?provider=OpenIdConnect&returnUrl=%2F${'a'.repeat(12 * 1024)}`);
        const redis = new Redis(redisUrl);
        try {
          const prefix = a.gatehouse.settings.Session.Redis.KeyPrefix;
          const flows = await redis.keys(`${prefix}flow:*`);
          expect(flows.length).to.be.at.least(1);
          for (const key of flows) {
            expect(await redis.strlen(key), 'bytes stored').to.be.below(1024);
            expect(await redis.pttl(key), 'time-to-live').to.be.within(1, 16 * 60 * 1000);
          }
          const counts = await redis.keys(`${prefix}challenges:*`);
          for (const key of counts) expect(await redis.pttl(key)).to.be.within(1, 15 * 60 * 1000);
          expect(browser.sessionToken(a.url), 'no session for a challenge').to.equal(undefined);
        } finally {
          redis.disconnect();
        }
      });

      it('reports the store in readiness', async () => {
        const body = (await (await fetch(`${a.url}/health/ready`)).json()) as { checks: Record<string, string> };
        expect(body.checks.sessionStore).to.equal('up');
      });
    });

    describe('a Redis outage', () => {
      let proxy: TcpProxy;
      let running: RunningGatehouse;
      before(async () => {
        const target = new URL(redisUrl);
        proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 6379) });
        running = await startGatehouse({
          ...redisEnv(`redis://127.0.0.1:${proxy.port}`),
          ProjectTemplate__Session__Redis__CommandTimeoutMs: '300',
        });
      });
      after(async () => {
        await running.close();
        await proxy.close();
      });

      it('turns ready to 503 and session requests to a fast 503, keeps live up, and recovers without a restart', async () => {
        const { cookie } = await signIn(running.gatehouse, adminClaims);
        expect((await fetch(`${running.url}/api/app-info`, { headers: { cookie } })).status).to.equal(200);

        await proxy.close();
        const ready = await fetch(`${running.url}/health/ready`);
        expect(ready.status).to.equal(503);
        expect(await ready.json()).to.deep.include({ status: 'unavailable', checks: { sessionStore: 'down' } });
        expect((await fetch(`${running.url}/health/live`)).status).to.equal(200);

        const started = Date.now();
        const api = await fetch(`${running.url}/api/app-info`, { headers: { cookie } });
        expect(Date.now() - started).to.be.lessThan(1000);
        expect(api.status).to.equal(503);
        expect(await api.json()).to.include({ code: 'session.store_unavailable' });
        const page = await fetch(`${running.url}/`, { headers: { cookie, accept: 'text/html' }, redirect: 'manual' });
        expect(page.status).to.equal(503);
        expect(page.headers.get('location')).to.equal(null);
        expect(await page.text()).to.contain('Service unavailable');
        // Pages that need no session still answer.
        expect((await fetch(`${running.url}/Account/Login`)).status).to.equal(200);

        await proxy.open();
        await eventually(async () => (await fetch(`${running.url}/health/ready`)).status === 200, 8000);
        expect((await fetch(`${running.url}/api/app-info`, { headers: { cookie } })).status).to.equal(200);
      });
    });
  });
