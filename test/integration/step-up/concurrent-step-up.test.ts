import { expect } from 'chai';
import type { DemoIdentityProvider } from '../../../scripts/demo-identity-provider.js';
import { CookieJar, driveOidcLogin } from '../../support/drive-oidc-login.js';
import { freePort, startIdentityProvider, startOidcApp, TestBrowser, type OidcApp } from '../../support/oidc-app.js';
import { describeOnEachStore } from '../../support/each-session-store.js';

const ADMIN = 'application.Role.Administrator';

/**
 * A signed-in administrator opens /Admin in two tabs: each starts a step-up, both are
 * answered with a second factor, and both answers reach Gatehouse at the same moment with
 * the same session cookie. Completing a step-up is atomic: one answer upgrades the sign-in,
 * the other is refused, and exactly one session is left alive.
 */
describeOnEachStore(
  (storeName) => `step-up answered twice at once (${storeName} store, real oidc-provider)`,
  function (storeEnv) {
    this.timeout(30_000);
    let idp: DemoIdentityProvider;
    let app: OidcApp;

    before(async () => {
      const port = await freePort();
      idp = await startIdentityProvider([`http://127.0.0.1:${port}`]);
      app = await startOidcApp(idp.issuer, port, {
        [`ProjectTemplate__Authorization__StepUp__${ADMIN}__AuthenticationMethods__0`]: 'mfa',
        ProjectTemplate__Authentication__Providers__OpenIdConnect__UsePushedAuthorization: 'false',
        ...storeEnv(),
      });
    });
    after(async () => {
      await app?.close();
      await idp?.close();
    });

    /** The status of /Admin for a session cookie: 200 stepped up, 302 to a step-up or the login page otherwise. */
    const adminStatus = async (cookie: string) => {
      const response = await fetch(`${app.url}/Admin`, {
        headers: { cookie, accept: 'text/html' },
        redirect: 'manual',
      });
      await response.body?.cancel();
      return response.status;
    };
    const appInfoStatus = async (cookie: string) => {
      const response = await fetch(`${app.url}/api/app-info`, { headers: { cookie, accept: 'application/json' } });
      await response.body?.cancel();
      return response.status;
    };

    it('one of two simultaneous step-up answers completes, the other is refused, one session lives', async () => {
      const browser = new TestBrowser();
      expect((await browser.signIn(app.url, 'admin', '/')).status).to.equal(302);
      const signedIn = browser.jar.header(app.url) ?? '';

      // Two tabs: each asks /Admin, is sent to a step-up, and starts it at the provider.
      const callbacks: URL[] = [];
      for (let tab = 0; tab < 2; tab++) {
        const refused = await browser.get(`${app.url}/Admin`, { accept: 'text/html' });
        expect(refused.status).to.equal(302);
        const challenge = await browser.get(new URL(refused.headers.get('location') ?? '', app.url).href);
        expect(challenge.status).to.equal(302);
        callbacks.push(
          await driveOidcLogin(challenge.headers.get('location') ?? '', 'admin', new CookieJar(), {
            oneTimeCode: '000000',
          }),
        );
      }

      // Both answers at once, each with the cookie the browser holds.
      const answers = await Promise.all(
        callbacks.map((callback) =>
          fetch(callback.href, { headers: { cookie: signedIn, accept: 'text/html' }, redirect: 'manual' }),
        ),
      );
      const statuses = answers.map((answer) => answer.status).sort();
      const bodies = await Promise.all(answers.map((answer) => answer.text()));
      expect(statuses, bodies.join('\n')).to.deep.equal([302, 403]);

      const completed = answers.find((answer) => answer.status === 302);
      const newCookie = /gatehouse\.sid=[^;]+/.exec(completed?.headers.get('set-cookie') ?? '')?.[0] ?? '';
      expect(newCookie).not.to.equal('');
      expect(await adminStatus(newCookie), 'the stepped-up session').to.equal(200);
      // The refused answer set no session of its own, and the one stepped up from is gone.
      const refusedAnswer = answers.find((answer) => answer.status === 403);
      expect(refusedAnswer?.headers.get('set-cookie') ?? '').not.to.match(/gatehouse\.sid=[A-Za-z0-9_-]{43}/);
      expect(await appInfoStatus(signedIn), 'the session before the step-up').to.equal(401);
      expect(bodies.join('\n')).to.include('strengthened already');
    });
  },
);
