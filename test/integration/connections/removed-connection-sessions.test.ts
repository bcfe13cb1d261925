import 'reflect-metadata';
import { expect } from 'chai';
import { randomBytes, randomUUID } from 'node:crypto';
import { sessionStoreKey } from '../../../src/adapters/koa/session/session-token.js';
import { logoutIndexKey } from '../../../src/application/sign-in/session-index.js';
import { CONNECTION_LOGOUT_KEY } from '../../../src/application/use-cases/complete-sign-in.js';
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
import { describeOnEachStore } from '../../support/each-session-store.js';

const WITHIN_MS = 15_000;
/** Ending 1,011 sessions is some five thousand store commands on Redis: seconds, more on a busy machine. */
const ENDING_WITHIN_MS = 60_000;
const HOUR = 60 * 60 * 1000;

/**
 * An organization's connection file is deleted (the customer left, or its provider was
 * compromised) while many of its people are signed in, and later the file comes back.
 * Every one of those sessions ends, however many; none comes back with the file, not even
 * one the connection's index of sessions did not list.
 */
describeOnEachStore(
  (storeName) => `connections: the sessions of a removed connection (${storeName} store)`,
  function (storeEnv) {
    this.timeout(120_000);
    let app: RunningGatehouse;
    let folder: ConnectionFolder;
    let idp: SamlTestIdentityProvider;

    before(async () => {
      folder = await ConnectionFolder.create();
      idp = await SamlTestIdentityProvider.start();
      await folder.write('acme', samlConnection('acme', ['example.com'], idp));
      const port = await freePort();
      app = await startGatehouse(
        {
          ProjectTemplate__Hosting__PublicOrigin: `http://127.0.0.1:${port}`,
          ProjectTemplate__Authentication__HttpTimeoutSeconds: '2',
          ProjectTemplate__Authentication__ConnectionsDirectory: folder.path,
          ...storeEnv(),
        },
        { port },
      );
    });
    after(async () => {
      await app?.close();
      await Promise.all([idp?.close(), folder?.dispose()]);
    });

    const signIn = async () => {
      const browser = new TestBrowser();
      const request = await samlChallenge(browser, app.url, 'acme');
      const form = idp.answer(request, CONNECTION_SP_ENTITY_ID, {
        assertion: { nameId: 'ada@example.com', attributes: { [EMAIL_ATTRIBUTE]: ['ada@example.com'] } },
      });
      const landed = await deliverAnswer(browser, { method: 'POST', url: request.acsUrl, form }, app.url);
      expect(landed.status).to.equal(302);
      return browser;
    };
    const status = async (browser: TestBrowser) => {
      const response = await browser.get(`${app.url}/api/app-info`, { accept: 'application/json' });
      await response.body?.cancel();
      return response.status;
    };
    const handleOf = (browser: TestBrowser) => sessionStoreKey(browser.sessionToken(app.url) ?? '');
    const inForce = async (present: boolean) =>
      eventually(
        present ? 'acme back' : 'acme gone',
        async () => 'acme' in (await readiness(app.url)).connections === present,
        WITHIN_MS,
      );
    const removedEndings = () =>
      auditEvents(app.logs, 'sessions.ended').filter((event) => event.cause === 'connection_removed');
    /** Removes acme's file, waits for the ending to run, puts the file back and waits for it. */
    const removeAndRestore = async () => {
      const endingsBefore = removedEndings().length;
      await folder.remove('acme');
      try {
        await inForce(false);
        await eventually('the ending ran', async () => removedEndings().length > endingsBefore, ENDING_WITHIN_MS);
      } finally {
        // Back whatever happened: the next test starts with Acme in force.
        await folder.write('acme', samlConnection('acme', ['example.com'], idp));
        await inForce(true);
      }
      return removedEndings().at(-1);
    };

    it('ends every session of the connection, past a thousand, and none comes back with its file', async () => {
      const ada = await signIn();
      expect(await status(ada)).to.equal(200);
      // 1,010 more people of Acme signed in, each session listed under the connection,
      // each ending later than Ada's: a list that dropped the soonest ending would drop hers.
      const store = app.gatehouse.stores.sessions;
      const index = logoutIndexKey('acme', CONNECTION_LOGOUT_KEY);
      const others = Array.from({ length: 1_010 }, () => `session:${randomBytes(32).toString('hex')}`);
      for (let start = 0; start < others.length; start += 100) {
        await Promise.all(
          others.slice(start, start + 100).map(async (handle) => {
            await store.create(handle, { publicId: randomUUID(), createdAt: Date.now() }, 2 * HOUR);
            await store.addToIndex(index, handle, Date.now() + 100 * HOUR);
          }),
        );
      }

      const ending = await removeAndRestore();
      expect(ending?.count, 'every session ended').to.equal(1_011);
      const left = await Promise.all(others.map((handle) => store.get(handle)));
      expect(left.filter((record) => record !== undefined)).to.have.length(0);
      expect(await status(ada), 'Ada, once Acme is back').to.equal(401);
    });

    it('ends a session its index missed once it is used after the connection came back; new sign-ins live', async () => {
      const ada = await signIn();
      const handle = handleOf(ada);
      // The index lost her (a bound, an eviction, a failover): only the removal time can find her.
      await app.gatehouse.stores.sessions.removeFromIndex(logoutIndexKey('acme', CONNECTION_LOGOUT_KEY), handle);

      await removeAndRestore();
      expect(await app.gatehouse.stores.sessions.get(handle), 'not found by the ending').not.to.equal(undefined);
      expect(await status(ada), 'Ada’s old session, once Acme is back').to.equal(401);
      expect(await app.gatehouse.stores.sessions.get(handle), 'ended, not merely refused').to.equal(undefined);
      const signouts = auditEvents(app.logs, 'signout').filter((event) => event.cause === 'connection_removed');
      expect(signouts.length).to.be.greaterThan(0);

      const again = await signIn();
      expect(await status(again), 'a sign-in after the connection came back').to.equal(200);
      expect(await status(again), 'and its next request').to.equal(200);
    });
  },
);
