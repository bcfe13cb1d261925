import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { CookieJar, driveOidcLogin } from '../../support/drive-oidc-login.js';
import { TestBrowser } from '../../support/oidc-app.js';
import { startTwoInstancesOnRedis, type TwoInstances } from '../../support/two-instances.js';

const redisUrl = process.env.REDIS_URL ?? '';
const ADMIN = 'application.Role.Administrator';

if (!redisUrl) it.skip('step-up across instances (skipped: REDIS_URL is not set)');
else
  describe('step-up across two instances sharing Redis (real oidc-provider)', function () {
    this.timeout(30_000);
    let two: TwoInstances;

    before(async () => {
      two = await startTwoInstancesOnRedis(
        redisUrl,
        `gatehouse-test:${randomUUID()}:`,
        {},
        {
          [`ProjectTemplate__Authorization__StepUp__${ADMIN}__AuthenticationMethods__0`]: 'mfa',
        },
      );
    });
    after(() => two.close());

    it('starts the step-up on B, completes it on A, and B lets the upgraded session in', async () => {
      const { a, bUrl } = two;
      const browser = new TestBrowser();
      await browser.signIn(a.url, 'admin', '/');
      const cookie = () => browser.jar.header(a.url) ?? '';
      const onB = (path: string, headers: Record<string, string> = {}) =>
        fetch(`${bUrl}${path}`, { headers: { cookie: cookie(), accept: 'text/html', ...headers }, redirect: 'manual' });

      const refused = await onB('/Admin');
      expect(refused.status).to.equal(302);
      const challenge = await onB(refused.headers.get('location') ?? '');
      expect(challenge.status).to.equal(302);
      browser.jar.store(a.url, challenge); // the flow-binding cookie, for the public origin
      const callback = await driveOidcLogin(challenge.headers.get('location') ?? '', 'admin', new CookieJar(), {
        oneTimeCode: '000000',
      });
      const before = cookie();
      const completed = await browser.get(callback.href);
      expect(completed.status).to.equal(302);
      expect(completed.headers.get('location')).to.equal('/Admin');
      expect(cookie()).not.to.equal(before);
      expect((await onB('/Admin')).status).to.equal(200);
      // The cookie from before the step-up names a session that is gone, everywhere.
      expect((await onB('/Admin', { cookie: before })).status).to.equal(302);
      expect(
        (await fetch(`${a.url}/api/app-info`, { headers: { cookie: before, accept: 'application/json' } })).status,
      ).to.equal(401);
    });
  });
