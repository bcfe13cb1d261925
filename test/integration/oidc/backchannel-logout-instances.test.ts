import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { signingKey, type DemoIdentityProvider } from '../../../scripts/demo-identity-provider.js';
import { claimsOf, signLogoutToken } from '../../support/logout-tokens.js';
import { storedTokens, TestBrowser, type OidcApp } from '../../support/oidc-app.js';
import { signOutAtProvider } from '../../support/oidc-provider-logout.js';
import { startTwoInstancesOnRedis, type TwoInstances } from '../../support/two-instances.js';

const redisUrl = process.env.REDIS_URL ?? '';
const PATH = '/backchannel-logout-oidc';

if (!redisUrl) it.skip('back-channel logout on Redis (skipped: REDIS_URL is not set)');
else
  describe('OpenID Connect back-channel logout: two instances sharing one Redis (real oidc-provider)', function () {
    this.timeout(30_000);
    const providerKey = signingKey();
    let instances: TwoInstances;
    let idp: DemoIdentityProvider;
    let a: OidcApp;
    let bUrl: string;

    before(async () => {
      // The provider's back-channel URI is A's (the public origin): B learns of the logout through the store only.
      instances = await startTwoInstancesOnRedis(redisUrl, `gatehouse-test:${randomUUID()}:`, {
        signingKey: providerKey,
      });
      ({ idp, a, bUrl } = instances);
    });
    after(() => instances.close());

    const statusOn = async (url: string, cookie: string) =>
      (await fetch(`${url}/api/app-info`, { headers: { cookie, accept: 'application/json' } })).status;

    it('a session ended at the provider is anonymous on A and on B at the next request, B having decoded the sign-in', async () => {
      const browser = new TestBrowser();
      await browser.signIn(a.url, 'admin');
      const cookie = browser.jar.header(a.url) ?? '';
      // Both instances serve the session, so each keeps the sign-in decoded in memory.
      expect(await statusOn(a.url, cookie)).to.equal(200);
      expect(await statusOn(bUrl, cookie)).to.equal(200);

      await signOutAtProvider(browser.jar, idp.issuer);

      expect(await statusOn(bUrl, cookie)).to.equal(401);
      expect(await statusOn(a.url, cookie)).to.equal(401);
    });

    it('a logout token used at A is refused at B (jti recorded in the shared store)', async () => {
      const token = await signLogoutToken(providerKey, {
        issuer: idp.issuer,
        audience: 'gatehouse-test',
        claims: { sub: 'nobody' },
      });
      const post = (url: string) =>
        fetch(`${url}${PATH}`, { method: 'POST', body: new URLSearchParams({ logout_token: token }) });
      expect((await post(a.url)).status).to.equal(200);
      const replayed = await post(bUrl);
      expect(replayed.status).to.equal(400);
      expect(await replayed.json()).to.include({ code: 'idp.logout_token_replayed' });
    });

    it('a logout for a provider session accepted at A refuses its late sign-in completing at B', async () => {
      const browser = new TestBrowser();
      await browser.signIn(a.url, 'admin');
      const sid = claimsOf((await storedTokens(a, browser))?.tokens.idToken ?? '').sid;
      const late = await browser.startSignIn(a.url, 'admin'); // the same provider session: the same sid
      const token = await signLogoutToken(providerKey, {
        issuer: idp.issuer,
        audience: 'gatehouse-test',
        claims: { sid, sub: 'admin' },
      });
      expect(
        (await fetch(`${a.url}${PATH}`, { method: 'POST', body: new URLSearchParams({ logout_token: token }) })).status,
      ).to.equal(200);

      const cookie = browser.jar.header(a.url) ?? '';
      const response = await fetch(late.href.replace(a.url, bUrl), { headers: { cookie }, redirect: 'manual' });
      expect(response.status).to.equal(400);
      expect(await response.text()).to.contain('idp.session_ended');
      expect(await statusOn(bUrl, cookie)).to.equal(401);
    });
  });
