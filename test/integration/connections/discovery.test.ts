import { expect } from 'chai';
import { readRedirectedAuthnRequest } from '../../../scripts/saml/authn-request.js';
import {
  CONNECTION_SP_ENTITY_ID,
  discover,
  EMAIL_ATTRIBUTE,
  samlConnection,
  startWithConnections,
} from '../../support/connection-app.js';
import { deliverAnswer } from '../../support/deliver-answer.js';
import { freePort, TestBrowser } from '../../support/oidc-app.js';
import { SamlTestIdentityProvider } from '../../support/saml-identity-provider.js';
import type { RunningGatehouse } from '../../support/start-gatehouse.js';

/**
 * `POST /External/Discover` through the running app: which connection an address goes to
 * (domains, subdomains, case, IDNA), and what an address no connection holds, or no
 * address at all, gets. Acme holds acme.test and its subdomains, Bücher bücher.example.
 */
describe('connections: discovery by e-mail domain', function () {
  this.timeout(20_000);
  let app: RunningGatehouse;
  let acme: SamlTestIdentityProvider;
  let buecher: SamlTestIdentityProvider;

  before(async () => {
    [acme, buecher] = await Promise.all([SamlTestIdentityProvider.start(), SamlTestIdentityProvider.start()]);
    const port = await freePort();
    app = await startWithConnections(port, {
      Acme: samlConnection('acme', ['acme.test', '*.acme.test'], acme),
      Buecher: samlConnection('buecher', ['Bücher.example'], buecher),
    });
  });
  after(async () => {
    await app?.close();
    await Promise.all([acme?.close(), buecher?.close()]);
  });

  const found: ReadonlyArray<[address: string, connection: 'acme' | 'buecher']> = [
    ['ada@acme.test', 'acme'],
    ['ADA@ACME.TEST', 'acme'],
    ['  ada@acme.test  ', 'acme'],
    ['ada@acme.test.', 'acme'],
    ['ada@eu.acme.test', 'acme'],
    ['ada@a.b.acme.test', 'acme'],
    ['ada@bücher.example', 'buecher'],
    ['ada@BÜCHER.example', 'buecher'],
    ['ada@xn--bcher-kva.example', 'buecher'],
  ];
  for (const [address, connection] of found) {
    it(`sends ${JSON.stringify(address)} to its connection (${connection})`, async () => {
      const response = await discover(new TestBrowser(), app.url, address);
      expect(response.status).to.equal(302);
      const request = readRedirectedAuthnRequest(response.headers.get('location') ?? '');
      expect(request.acsUrl).to.equal(`${app.url}/connections/${connection}/saml2/acs`);
    });
  }

  const refused: ReadonlyArray<[label: string, address: string, status: number, code: string]> = [
    ['a domain no connection holds', 'ada@initech.test', 404, 'auth.unknown_domain'],
    ['a name that merely ends like a held one', 'ada@notacme.test', 404, 'auth.unknown_domain'],
    ['the base of a domain held only as an exact one', 'ada@bücher.example.org', 404, 'auth.unknown_domain'],
    ['a consumer domain', 'ada@gmail.com', 404, 'auth.unknown_domain'],
    ['no address', '', 400, 'auth.email_malformed'],
    ['no @', 'ada.acme.test', 400, 'auth.email_malformed'],
    ['two @', 'ada@evil.test@acme.test', 400, 'auth.email_malformed'],
    ['an IP literal', 'ada@[127.0.0.1]', 400, 'auth.email_malformed'],
    ['a space', 'ada lovelace@acme.test', 400, 'auth.email_malformed'],
  ];
  for (const [label, address, status, code] of refused) {
    it(`answers ${label} on the login page (${status} ${code}), storing nothing`, async () => {
      const browser = new TestBrowser();
      const response = await discover(browser, app.url, address);
      expect(response.status).to.equal(status);
      expect(response.headers.get('location')).to.equal(null);
      const page = await response.text();
      expect(page).to.contain('name="email"');
      if (code === 'auth.email_malformed') expect(page).to.contain('aria-invalid="true"');
      else expect(page).to.contain('No organization signs in with that e-mail domain here.');
      expect(browser.sessionToken(app.url)).to.equal(undefined);
      const json = await browser.post(
        `${app.url}/External/Discover`,
        { _csrf: await tokenOf(browser), email: address, returnUrl: '/' },
        { origin: app.url, accept: 'application/json' },
      );
      expect(json.status).to.equal(status);
      expect(await json.json()).to.include({ code });
    });
  }

  it('refuses a post without the page’s token (anti-forgery), starting nothing', async () => {
    const browser = new TestBrowser();
    await browser.get(`${app.url}/Account/Login`);
    const metadataBefore = acme.metadataRequests;
    const response = await browser.post(
      `${app.url}/External/Discover`,
      { email: 'ada@acme.test', returnUrl: '/' },
      { origin: app.url, accept: 'application/json' },
    );
    expect(response.status).to.equal(400);
    expect(((await response.json()) as { code: string }).code).to.match(/^antiforgery\./);
    expect(acme.metadataRequests).to.equal(metadataBefore);
  });

  it('lands on the return URL the form carried, and on / for one that is not local', async () => {
    for (const [returnUrl, landing] of [
      ['/api/app-info', '/api/app-info'],
      ['//evil.example/', '/'],
      ['https://evil.example/', '/'],
    ]) {
      const browser = new TestBrowser();
      const response = await discover(browser, app.url, 'ada@acme.test', returnUrl);
      const request = readRedirectedAuthnRequest(response.headers.get('location') ?? '');
      const form = acme.answer(request, CONNECTION_SP_ENTITY_ID, {
        assertion: { nameId: 'ada@acme.test', attributes: { [EMAIL_ATTRIBUTE]: ['ada@acme.test'] } },
      });
      const landed = await deliverAnswer(browser, { method: 'POST', url: request.acsUrl, form }, app.url);
      expect(landed.status, returnUrl).to.equal(302);
      expect(landed.headers.get('location'), returnUrl).to.equal(landing);
    }
  });

  it('offers the e-mail form on the login page, and lists no connection as a button', async () => {
    const page = await (await fetch(`${app.url}/Account/Login`)).text();
    expect(page).to.contain('action="/External/Discover"');
    expect(page).not.to.contain('Sign in with Acme');
    expect(page).not.to.contain('/External/Challenge?provider=Acme');
  });

  async function tokenOf(browser: TestBrowser): Promise<string> {
    const page = await browser.get(`${app.url}/Account/Login`);
    return /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
  }
});
