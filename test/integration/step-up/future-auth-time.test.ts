import { expect } from 'chai';
import type { DemoIdentityProvider } from '../../../scripts/demo-identity-provider.js';
import {
  freePort,
  startIdentityProvider,
  startOidcApp,
  storedSession,
  TestBrowser,
  type OidcApp,
} from '../../support/oidc-app.js';
import { expectCode, SamlBrowser, startSamlApp, type SamlApp } from '../../support/saml-app.js';
import { SamlTestIdentityProvider } from '../../support/saml-identity-provider.js';

const TEN_YEARS_S = 10 * 365 * 24 * 3600;

/**
 * A provider whose sign-in time lies in the future (a clock set years ahead, or a forged
 * claim): the session would pass every "signed in within N minutes" until that time came.
 * Beyond the clock difference allowed (3 minutes), the sign-in is refused as malformed;
 * within it, clocks differ and it is accepted.
 */
describe('a sign-in time in the future, through a real sign-in', function () {
  this.timeout(30_000);

  describe('OpenID Connect (auth_time, real oidc-provider)', () => {
    let idp: DemoIdentityProvider;
    let app: OidcApp;
    before(async () => {
      const port = await freePort();
      idp = await startIdentityProvider([`http://127.0.0.1:${port}`]);
      app = await startOidcApp(idp.issuer, port);
    });
    after(async () => {
      await app.close();
      await idp.close();
    });
    afterEach(() => {
      idp.authenticatedSecondsAgo = 0;
    });

    it('refuses an auth_time ten years ahead (idp.id_token_invalid, 400): no session', async () => {
      idp.authenticatedSecondsAgo = -TEN_YEARS_S;
      const browser = new TestBrowser();
      const answer = await browser.signIn(app.url, 'admin', '/');
      const body = await answer.text();
      expect(answer.status, body.slice(0, 300)).to.equal(400);
      expect(body).to.contain('idp.id_token_invalid').and.contain('later than now');
      expect(await storedSession(app, browser)).to.equal(undefined);
    });

    it('refuses one 190 s ahead, accepts one 170 s ahead (clocks differ by up to 3 minutes)', async () => {
      idp.authenticatedSecondsAgo = -190;
      expect((await new TestBrowser().signIn(app.url, 'admin', '/')).status).to.equal(400);
      idp.authenticatedSecondsAgo = -170;
      expect((await new TestBrowser().signIn(app.url, 'admin', '/')).status).to.equal(302);
    });
  });

  describe('SAML2 (AuthnInstant, responses signed with xml-crypto)', () => {
    let idp: SamlTestIdentityProvider;
    let app: SamlApp;
    before(async () => {
      idp = await SamlTestIdentityProvider.start();
      app = await startSamlApp(idp);
    });
    after(async () => {
      await app.close();
      await idp.close();
    });

    it('refuses an AuthnInstant ten years ahead (idp.authn_instant_in_future, 400): no session', async () => {
      const browser = new SamlBrowser();
      const answer = await browser.signIn(app, idp, {
        assertion: { authnInstant: Date.now() + TEN_YEARS_S * 1000 },
      });
      await expectCode(answer, 400, 'idp.authn_instant_in_future');
      expect(browser.sessionToken(app.url)).to.equal(undefined);
    });

    it('refuses one 190 s ahead, accepts one 170 s ahead', async () => {
      const ahead = (seconds: number) =>
        new SamlBrowser().signIn(app, idp, { assertion: { authnInstant: Date.now() + seconds * 1000 } });
      expect((await ahead(190)).status).to.equal(400);
      expect((await ahead(170)).status).to.equal(302);
    });
  });
});
