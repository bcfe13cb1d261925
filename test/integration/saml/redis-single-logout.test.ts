import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { readRedirectedMessage } from '../../../scripts/saml/authn-request.js';
import { logoutRequestXml, logoutResponseXml, redirectUrl } from '../../../scripts/saml/logout-messages.js';
import { newSamlId } from '../../../scripts/saml/saml-response.js';
import { makeSigningCredential } from '../../../scripts/saml/signing-credential.js';
import { SamlBrowser, singleLogoutSettings, startSamlApp, type SamlApp } from '../../support/saml-app.js';
import { SamlTestIdentityProvider } from '../../support/saml-identity-provider.js';

const redisUrl = process.env.REDIS_URL ?? '';

if (!redisUrl) it.skip('SAML2 single logout across instances (skipped: REDIS_URL is not set)');
else
  describe('SAML2 single logout on Redis: two instances behind one public origin agree', function () {
    this.timeout(30_000);
    const sp = makeSigningCredential({ commonName: 'gatehouse-sp.example' });
    let idp: SamlTestIdentityProvider;
    let a: SamlApp;
    let b: SamlApp;
    /** The single logout URL both publish (the public origin's). */
    let sloUrl: string;

    before(async () => {
      idp = await SamlTestIdentityProvider.start();
      idp.singleLogout = true;
      const shared = {
        ...singleLogoutSettings(sp),
        ProjectTemplate__Session__Store: 'Redis',
        ProjectTemplate__Session__Redis__Url: redisUrl,
        ProjectTemplate__Session__Redis__KeyPrefix: `gatehouse-test:${randomUUID()}:`,
      };
      a = await startSamlApp(idp, shared);
      b = await startSamlApp(idp, { ...shared, ProjectTemplate__Hosting__PublicOrigin: a.url });
      sloUrl = `${a.url}/Saml2/Logout`;
    });
    after(async () => {
      await a?.close();
      await b?.close();
      await idp?.close();
    });

    const signedInOnA = async () => {
      const browser = new SamlBrowser();
      expect((await browser.signIn(a, idp)).status).to.equal(302);
      return browser;
    };
    const isSignedInOnA = async (browser: SamlBrowser) =>
      (await browser.get(`${a.url}/api/app-info`, { accept: 'application/json' })).status === 200;
    const get = (url: string) => fetch(url, { redirect: 'manual', headers: { accept: 'text/html' } });
    /** The same message delivered to B's own listening address (as a load balancer would). */
    const atB = (url: string) => url.replace(a.url, b.url);

    it('a LogoutRequest taken by B ends the session signed in on A; the same request at A is a replay', async () => {
      const browser = await signedInOnA();
      const xml = logoutRequestXml({ issuer: idp.entityId, destination: sloUrl, nameId: 'admin@example.com' });
      const url = redirectUrl(sloUrl, 'SAMLRequest', xml, { credential: idp.credential });
      expect((await get(atB(url))).status).to.equal(302);
      expect(await isSignedInOnA(browser)).to.equal(false);
      const replayed = await get(url);
      expect(replayed.status).to.equal(400);
      expect(await replayed.text()).to.contain('<code>idp.logout_replayed</code>');
    });

    it('the answer to a logout started on A is accepted once, on B; then refused on A', async () => {
      const browser = await signedInOnA();
      const home = await (await browser.get(`${a.url}/`)).text();
      const csrf = /name="_csrf" value="([^"]+)"/.exec(home)?.[1] ?? '';
      const logout = await browser.jar.fetch(`${a.url}/Account/Logout`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          origin: a.url,
          'sec-fetch-site': 'same-origin',
        },
        body: `_csrf=${encodeURIComponent(csrf)}`,
      });
      const sent = readRedirectedMessage(logout.headers.get('location') ?? '');
      const answer = redirectUrl(
        sloUrl,
        'SAMLResponse',
        logoutResponseXml({
          issuer: idp.entityId,
          destination: sloUrl,
          inResponseTo: sent.document.getAttribute('ID') ?? newSamlId(),
        }),
        { credential: idp.credential },
      );
      const landed = await get(atB(answer));
      expect(landed.status).to.equal(302);
      expect(landed.headers.get('location')).to.equal('/Account/Login');
      const again = await get(answer);
      expect(again.status).to.equal(400);
      expect(await again.text()).to.contain('<code>idp.logout_unexpected</code>');
    });
  });
