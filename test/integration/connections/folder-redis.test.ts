import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import {
  auditEvents,
  CONNECTION_SP_ENTITY_ID,
  EMAIL_ATTRIBUTE,
  eventually,
  samlChallenge,
  samlConnection,
} from '../../support/connection-app.js';
import { ConnectionFolder, readiness } from '../../support/connection-folder.js';
import { deliverAnswer } from '../../support/deliver-answer.js';
import { freePort, TestBrowser } from '../../support/oidc-app.js';
import { SamlTestIdentityProvider } from '../../support/saml-identity-provider.js';
import { startGatehouse, type RunningGatehouse } from '../../support/start-gatehouse.js';

const redisUrl = process.env.REDIS_URL ?? '';
const WITHIN_MS = 5_000;

if (!redisUrl)
  it.skip('connections folder on Redis (skipped: REDIS_URL is not set; e.g. REDIS_URL=redis://127.0.0.1:6379)');
else
  describe('connections: two instances on Redis sharing one folder of connections', function () {
    this.timeout(30_000);
    let a: RunningGatehouse;
    let b: RunningGatehouse;
    let folder: ConnectionFolder;
    let acmeIdp: SamlTestIdentityProvider;
    let hooliIdp: SamlTestIdentityProvider;

    before(async () => {
      folder = await ConnectionFolder.create();
      [acmeIdp, hooliIdp] = await Promise.all([SamlTestIdentityProvider.start(), SamlTestIdentityProvider.start()]);
      await folder.write('acme', samlConnection('acme', ['example.com'], acmeIdp));
      const portA = await freePort();
      const shared = {
        ProjectTemplate__Session__Store: 'Redis',
        ProjectTemplate__Session__Redis__Url: redisUrl,
        ProjectTemplate__Session__Redis__KeyPrefix: `gatehouse-test:${randomUUID()}:`,
        ProjectTemplate__Hosting__PublicOrigin: `http://127.0.0.1:${portA}`,
        ProjectTemplate__Authentication__HttpTimeoutSeconds: '2',
        ProjectTemplate__Authentication__ConnectionsDirectory: folder.path,
      };
      a = await startGatehouse(shared, { port: portA });
      b = await startGatehouse(shared);
    });
    after(async () => {
      await a?.close();
      await b?.close();
      await Promise.all([acmeIdp?.close(), hooliIdp?.close(), folder?.dispose()]);
    });

    /** The status of `/api/app-info` at an instance for a browser's session cookie (the public origin is A's). */
    const statusAt = async (app: RunningGatehouse, browser: TestBrowser) => {
      const cookie = browser.jar.header(a.url) ?? '';
      const response = await fetch(`${app.url}/api/app-info`, { headers: { cookie, accept: 'application/json' } });
      await response.body?.cancel();
      return response.status;
    };
    const signIn = async (name: string, idp: SamlTestIdentityProvider) => {
      const browser = new TestBrowser();
      const request = await samlChallenge(browser, a.url, name);
      const address = `ada@${name === 'acme' ? 'example.com' : 'hooli.test'}`;
      const form = idp.answer(request, CONNECTION_SP_ENTITY_ID, {
        assertion: { nameId: address, attributes: { [EMAIL_ATTRIBUTE]: [address] } },
      });
      expect((await deliverAnswer(browser, { method: 'POST', url: request.acsUrl, form }, a.url)).status).to.equal(302);
      return browser;
    };

    it('both instances take a file added to the folder', async () => {
      await folder.write('hooli', samlConnection('hooli', ['hooli.test'], hooliIdp));
      for (const app of [a, b]) {
        await eventually(
          'hooli at each instance',
          async () => (await readiness(app.url)).connections.hooli === 'idle',
          WITHIN_MS,
        );
      }
    });

    it('a removal ends the connection’s sessions once, anonymous on both instances, and leaves the others', async () => {
      const acmeUser = await signIn('acme', acmeIdp);
      const hooliUser = await signIn('hooli', hooliIdp);
      for (const app of [a, b]) expect(await statusAt(app, acmeUser)).to.equal(200);

      await folder.remove('acme');
      for (const app of [a, b]) {
        await eventually(
          'acme gone at each instance',
          async () => !('acme' in (await readiness(app.url)).connections),
          WITHIN_MS,
        );
      }

      expect(await statusAt(b, acmeUser)).to.equal(401);
      expect(await statusAt(a, acmeUser)).to.equal(401);
      for (const app of [a, b]) expect(await statusAt(app, hooliUser), 'another connection’s user').to.equal(200);
      const endings = () =>
        [...a.logs, ...b.logs].filter(
          (line) => line.includes('"event":"sessions.ended"') && line.includes('"cause":"connection_removed"'),
        );
      await eventually('each instance ran the ending', async () => endings().length === 2, WITHIN_MS);
      const ended = [...auditEvents(a.logs, 'sessions.ended'), ...auditEvents(b.logs, 'sessions.ended')].filter(
        (event) => event.cause === 'connection_removed',
      );
      expect(ended.map((event) => event.provider)).to.deep.equal(['acme', 'acme']);
      expect(
        ended.reduce((sum, event) => sum + Number(event.count), 0),
        'the session ended once',
      ).to.equal(1);
    });
  });
