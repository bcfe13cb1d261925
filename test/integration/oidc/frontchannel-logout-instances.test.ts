import { expect } from 'chai';
import { randomBytes, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { DemoIdentityProvider } from '../../../scripts/demo-identity-provider.js';
import { TestBrowser, type OidcApp } from '../../support/oidc-app.js';
import { frontchannelFramesAtSignOut } from '../../support/oidc-provider-logout.js';
import { startTwoInstancesOnRedis, type TwoInstances } from '../../support/two-instances.js';

const redisUrl = process.env.REDIS_URL ?? '';
const PATH = '/frontchannel-logout-oidc';

if (!redisUrl) it.skip('front-channel logout on Redis (skipped: REDIS_URL is not set)');
else
  describe('OpenID Connect front-channel logout: two instances sharing one Redis (real oidc-provider)', function () {
    this.timeout(30_000);
    const prefix = `gatehouse-test:${randomUUID()}:`;
    let admin: Redis;
    let instances: TwoInstances;
    let a: OidcApp;
    let bUrl: string;
    let idp: DemoIdentityProvider;

    before(async () => {
      instances = await startTwoInstancesOnRedis(redisUrl, prefix, { logoutChannels: ['front'], host: '127.0.0.2' });
      ({ a, bUrl, idp } = instances);
      admin = new Redis(redisUrl, { lazyConnect: true });
      await admin.connect();
    });
    after(async () => {
      await instances.close();
      await admin.quit();
    });

    const statusOn = async (url: string, cookie: string) =>
      (await fetch(`${url}/api/app-info`, { headers: { cookie, accept: 'application/json' } })).status;
    const storedKeys = async () => (await admin.keys(`${prefix}*`)).sort();

    it("a session signed in on A ends when the provider's frame reaches B, and is anonymous on both", async () => {
      const browser = new TestBrowser();
      await browser.signIn(a.url, 'admin');
      const cookie = browser.jar.header(a.url) ?? '';
      expect(await statusOn(a.url, cookie)).to.equal(200);
      expect(await statusOn(bUrl, cookie)).to.equal(200);

      const [frame] = await frontchannelFramesAtSignOut(browser.jar, idp.issuer);
      const answer = await fetch(`${bUrl}${PATH}${frame?.search ?? ''}`, { headers: { accept: 'text/html' } });

      expect(answer.status).to.equal(200);
      expect(await statusOn(a.url, cookie)).to.equal(401);
      expect(await statusOn(bUrl, cookie)).to.equal(401);
    });

    it('a flood of made-up sids writes nothing to the store and ends nothing', async () => {
      const browser = new TestBrowser();
      await browser.signIn(a.url, 'user');
      const cookie = browser.jar.header(a.url) ?? '';
      const before = await storedKeys();
      const answers = await Promise.all(
        Array.from({ length: 100 }, () =>
          fetch(
            `${bUrl}${PATH}?${new URLSearchParams({ iss: idp.issuer, sid: randomBytes(16).toString('base64url') })}`,
          ),
        ),
      );
      expect(answers.map((answer) => answer.status)).to.deep.equal(answers.map(() => 200));
      expect(await storedKeys(), 'the keys in the store').to.deep.equal(before);
      expect(await statusOn(a.url, cookie)).to.equal(200);
    });
  });
