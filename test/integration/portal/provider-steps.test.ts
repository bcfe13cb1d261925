import { DOMParser } from '@xmldom/xmldom';
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeSigningCredential } from '../../../scripts/saml/signing-credential.js';
import { VENDOR_GUIDES } from '../../../src/adapters/koa/portal/vendor-guides.js';
import { startAdminHarness, type AdminHarness } from '../../support/admin-api.js';
import { eventually, samlConnection } from '../../support/connection-app.js';
import { TestBrowser } from '../../support/oidc-app.js';
import { SamlTestIdentityProvider } from '../../support/saml-identity-provider.js';

const LINKS = (organization: string) => `/api/admin/organizations/${organization}/setup-links`;
const METADATA = 'urn:oasis:names:tc:SAML:2.0:metadata';
const ENDED = 'Your setup session has ended';
const NOT_CHOSEN = 'Choose your identity provider first';

/** Makes a setup link through the API; its URL. */
async function makeLink(harness: AdminHarness, organization: string, body: object = {}): Promise<string> {
  const made = await harness.api('POST', LINKS(organization), body);
  expect(made.status, await made.clone().text()).to.equal(201);
  return ((await made.json()) as { url: string }).url;
}

/** Opens a link as its IT admin: its page (GET), then its button (a POST from this site). */
async function openPortal(harness: AdminHarness, url: string): Promise<TestBrowser> {
  const browser = new TestBrowser();
  expect((await browser.get(url)).status).to.equal(200);
  const opened = await browser.jar.fetch(url, { method: 'POST', headers: { origin: harness.app.url } });
  expect(opened.status).to.equal(303);
  return browser;
}

/**
 * The setup portal's first two steps through a whole Gatehouse: the IT admin's choice of
 * vendor and protocol kept on the portal session (anti-forgery checked, anything unknown
 * refused), the vendor's own steps with the connection's exact values, and the service
 * provider's SAML metadata, made before the connection exists and served by it afterwards;
 * each only for the portal session's own connection.
 */
describe('the setup portal: your identity provider, and what to enter there', function () {
  this.timeout(40_000);
  let harness: AdminHarness;
  let url: string;
  before(async () => {
    harness = await startAdminHarness(['acme', 'globex']);
    url = harness.app.url;
  });
  after(async () => harness?.close());

  /** A fresh portal session of `organization` (for `connection`, by default the organization's name). */
  const portal = async (organization = 'acme', body: object = {}) =>
    openPortal(harness, await makeLink(harness, organization, body));
  const page = async (browser: TestBrowser, path: string) => (await browser.get(`${url}${path}`)).text();
  const csrfOf = async (browser: TestBrowser) => {
    const token = /name="_csrf" value="([^"]+)"/.exec(await page(browser, '/setup/portal/provider'))?.[1];
    if (!token) throw new Error('no form on the provider page');
    return token;
  };
  const choose = async (browser: TestBrowser, fields: Record<string, string>, headers = { origin: url }) =>
    browser.post(`${url}/setup/portal/provider`, { _csrf: await csrfOf(browser), ...fields }, headers);

  it('answers each of these pages without a portal session with the page saying it ended, 401', async () => {
    const stranger = new TestBrowser();
    stranger.jar.store(
      url,
      new Response(null, { headers: { 'set-cookie': `gatehouse.sid.portal=${'A'.repeat(43)}` } }),
    );
    for (const browser of [new TestBrowser(), stranger]) {
      for (const path of [
        '/setup/portal/provider',
        '/setup/portal/service-provider',
        '/setup/portal/service-provider/metadata.xml',
      ]) {
        const answer = await browser.get(`${url}${path}`);
        expect(answer.status, path).to.equal(401);
        expect(await answer.text(), path).to.include(ENDED);
      }
      const posted = await browser.post(
        `${url}/setup/portal/provider`,
        { vendor: 'okta', protocol: 'Saml2' },
        { origin: url },
      );
      expect(posted.status).to.equal(401);
      expect(await posted.text()).to.include(ENDED);
    }
  });

  it('asks for the vendor and the protocol with labelled radio buttons in fieldsets with legends', async () => {
    const browser = await portal();
    const answer = await browser.get(`${url}/setup/portal/provider`);
    expect(answer.status).to.equal(200);
    // Its form must carry an Origin header (a browser sends `Origin: null` under no-referrer), and no Referer elsewhere.
    expect(answer.headers.get('referrer-policy')).to.equal('same-origin');
    expect(answer.headers.get('cache-control')).to.equal('no-store');
    const html = await answer.text();
    expect(html)
      .to.include('<legend>Identity provider</legend>')
      .and.include('<legend>How it signs people in</legend>');
    for (const vendor of VENDOR_GUIDES) {
      expect(html).to.include(`<input type="radio" id="vendor-${vendor.id}" name="vendor" value="${vendor.id}"`);
      expect(html).to.match(
        new RegExp(`<label for="vendor-${vendor.id}">[^<]+<span class="muted">\\((?:SAML 2.0|OpenID Connect)`),
      );
    }
    for (const protocol of ['Saml2', 'OpenIdConnect']) {
      expect(html).to.include(`<input type="radio" id="protocol-${protocol}" name="protocol" value="${protocol}"`);
      expect(html).to.include(`<label for="protocol-${protocol}">`);
    }
    expect(html).to.include('aria-current="page">Your identity provider</a>');
  });

  it('keeps the vendor and protocol chosen on the portal session, and takes the only protocol of a vendor offered with one', async () => {
    const browser = await portal();
    const chosen = await choose(browser, { vendor: 'okta', protocol: 'OpenIdConnect' });
    expect(chosen.status).to.equal(303);
    expect(chosen.headers.get('location')).to.equal('/setup/portal/service-provider');
    let form = await page(browser, '/setup/portal/provider');
    expect(form).to.match(/id="vendor-okta" name="vendor" value="okta"[^>]* checked/);
    expect(form).to.match(/id="protocol-OpenIdConnect" name="protocol" value="OpenIdConnect"[^>]* checked/);
    expect(await page(browser, '/setup/portal/service-provider')).to.include('What to enter in Okta');

    expect((await choose(browser, { vendor: 'adfs' })).status).to.equal(303);
    form = await page(browser, '/setup/portal/provider');
    expect(form).to.match(/id="vendor-adfs" name="vendor" value="adfs"[^>]* checked/);
    expect(form).to.match(/id="protocol-Saml2" name="protocol" value="Saml2"[^>]* checked/);
    // Another portal session of the same organization has its own choice.
    expect(await page(await portal(), '/setup/portal/service-provider')).to.include(NOT_CHOSEN);
  });

  it('refuses an unknown vendor or protocol, or one the vendor is not offered with, saying so, and keeps nothing', async () => {
    const browser = await portal();
    const refusals: Array<[Record<string, string>, string]> = [
      [{ vendor: 'nope', protocol: 'Saml2' }, 'Choose your identity provider from the list.'],
      [{ protocol: 'Saml2' }, 'Choose your identity provider from the list.'],
      [{ vendor: 'okta', protocol: 'WsFederation' }, 'Choose how Okta signs people in: SAML 2.0 or OpenID Connect.'],
      [{ vendor: 'okta' }, 'Choose how Okta signs people in: SAML 2.0 or OpenID Connect.'],
      [
        { vendor: 'google-workspace', protocol: 'OpenIdConnect' },
        'Google Workspace is set up here with SAML 2.0 only.',
      ],
      [
        { vendor: 'other-oidc', protocol: 'Saml2' },
        'Another OpenID Connect provider is set up here with OpenID Connect only.',
      ],
      [{ vendor: '<script>alert(1)</script>', protocol: 'Saml2' }, 'Choose your identity provider from the list.'],
    ];
    for (const [fields, message] of refusals) {
      const refused = await choose(browser, fields);
      const html = await refused.text();
      expect(refused.status, JSON.stringify(fields)).to.equal(400);
      expect(html, JSON.stringify(fields)).to.include(message).and.include('role="alert"');
      expect(html).to.not.include('<script>alert');
    }
    // A field given twice is refused as such.
    const token = await csrfOf(browser);
    const twice = await browser.jar.fetch(`${url}/setup/portal/provider`, {
      method: 'POST',
      headers: { origin: url, 'content-type': 'application/x-www-form-urlencoded' },
      body: `_csrf=${token}&vendor=okta&vendor=keycloak&protocol=Saml2`,
    });
    expect(twice.status).to.equal(400);
    expect(await page(browser, '/setup/portal/service-provider')).to.include(NOT_CHOSEN);
    expect(await page(browser, '/setup/portal/provider')).to.not.include('checked');
  });

  it("needs the portal session's anti-forgery token, sent from this site", async () => {
    const browser = await portal();
    const fields = { vendor: 'okta', protocol: 'Saml2' };
    const post = (form: Record<string, string>, headers: Record<string, string>) =>
      browser.post(`${url}/setup/portal/provider`, form, headers);
    expect((await post(fields, { origin: url })).status, 'no token').to.equal(400);
    expect((await post({ ...fields, _csrf: 'forged' }, { origin: url })).status, 'a wrong token').to.equal(400);
    const other = await csrfOf(await portal());
    expect((await post({ ...fields, _csrf: other }, { origin: url })).status, "another session's token").to.equal(400);
    const token = await csrfOf(browser);
    expect(
      (await post({ ...fields, _csrf: token }, { origin: 'https://evil.example' })).status,
      'another site',
    ).to.equal(400);
    expect((await post({ ...fields, _csrf: token }, { 'sec-fetch-site': 'cross-site' })).status, 'cross-site').to.equal(
      400,
    );
    expect(await page(browser, '/setup/portal/service-provider')).to.include(NOT_CHOSEN);
    expect((await post({ ...fields, _csrf: token }, { origin: url })).status).to.equal(303);
  });

  it("shows a SAML connection's values under the vendor's own field names, each as text a copy button can take", async () => {
    const browser = await portal();
    await choose(browser, { vendor: 'okta', protocol: 'Saml2' });
    const answer = await browser.get(`${url}/setup/portal/service-provider`);
    expect(answer.headers.get('referrer-policy')).to.equal('same-origin');
    const html = await answer.text();
    const acs = `${url}/connections/acme/saml2/acs`;
    const value = (name: string, text: string) =>
      expect(html).to.match(
        new RegExp(`<code id="value-${name}" class="copyable" data-copy="[^"]+">${escape(text)}</code>`),
      );
    value('acsUrl', acs);
    value('entityId', acs);
    value('metadataUrl', acs);
    value('nameIdFormat', 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent');
    value('emailAttribute', 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress');
    value('nameAttribute', 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name');
    value('groupsAttribute', 'http://schemas.xmlsoap.org/claims/Group');
    expect(html).to.not.include('value-logoutUrl');
    expect(html)
      .to.include('In Okta: <strong>Single sign-on URL</strong>')
      .and.include('In Okta: <strong>Audience URI (SP Entity ID)</strong>')
      .and.include('<strong>Create App Integration</strong>')
      .and.include('href="https://help.okta.com/')
      .and.include('as read in November 2026')
      .and.include('href="/setup/portal/service-provider/metadata.xml" download')
      .and.include('<script src="/portal.js" defer></script>')
      .and.include('id="copy-status" class="visually-hidden" role="status" aria-live="polite"');
    const script = await fetch(`${url}/portal.js`);
    expect(script.status).to.equal(200);
    expect(await script.text()).to.include('navigator.clipboard.writeText');
  });

  it("shows an OpenID Connect connection's redirect URI, logout URLs and scopes", async () => {
    const browser = await portal();
    await choose(browser, { vendor: 'keycloak', protocol: 'OpenIdConnect' });
    const html = await page(browser, '/setup/portal/service-provider');
    const value = (name: string, text: string) =>
      expect(html).to.match(
        new RegExp(`<code id="value-${name}" class="copyable" data-copy="[^"]+">${escape(text)}</code>`),
      );
    value('redirectUri', `${url}/connections/acme/signin-oidc`);
    value('postLogoutRedirectUri', `${url}/`);
    value('frontchannelLogoutUri', `${url}/connections/acme/frontchannel-logout`);
    value('backchannelLogoutUri', `${url}/connections/acme/backchannel-logout`);
    value('scopes', 'openid profile email');
    expect(html)
      .to.include('In Keycloak: <strong>Valid redirect URIs</strong>')
      .and.include('In Keycloak: <strong>Backchannel logout URL</strong>')
      .and.not.include('metadata.xml')
      .and.not.include('saml2/acs');
  });

  it('serves the service provider metadata as XML naming the entity ID and the ACS URL, before the connection exists', async () => {
    const browser = await portal();
    const answer = await browser.get(`${url}/setup/portal/service-provider/metadata.xml`);
    expect(answer.status).to.equal(200);
    expect(answer.headers.get('content-type')).to.match(/^application\/samlmetadata\+xml/);
    expect(answer.headers.get('content-disposition')).to.equal('attachment; filename="acme-saml-metadata.xml"');
    expect(answer.headers.get('cache-control')).to.equal('no-store');
    const root = new DOMParser().parseFromString(await answer.text(), 'text/xml').documentElement;
    expect(root?.localName).to.equal('EntityDescriptor');
    expect(root?.getAttribute('entityID')).to.equal(`${url}/connections/acme/saml2/acs`);
    const acs = root?.getElementsByTagNameNS(METADATA, 'AssertionConsumerService')[0];
    expect(acs?.getAttribute('Location')).to.equal(`${url}/connections/acme/saml2/acs`);
    expect(acs?.getAttribute('Binding')).to.equal('urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST');
    expect(root?.getElementsByTagNameNS(METADATA, 'SPSSODescriptor')[0]?.getAttribute('WantAssertionsSigned')).to.equal(
      'true',
    );
  });

  it('once the SAML connection is saved: its own entity ID and logout URL, and the metadata its ACS serves', async () => {
    const idp = await SamlTestIdentityProvider.start();
    idp.singleLogout = true;
    const signing = makeSigningCredential({ commonName: 'umbrella-sp.test' });
    try {
      const browser = await portal('umbrella');
      const body = samlConnection('umbrella', ['umbrella.test'], idp, {
        signing,
        extra: { EntityId: 'https://sp.umbrella.test/saml', Activated: false },
      });
      const saved = await harness.api('PUT', '/api/admin/connections/umbrella', body);
      expect(saved.status, await saved.clone().text()).to.equal(201);
      await eventually('the connection in force', async () => {
        const served = await fetch(`${url}/connections/umbrella/saml2/acs`);
        return served.status === 200 && (await served.text()).includes('sp.umbrella.test');
      });

      await choose(browser, { vendor: 'entra-id', protocol: 'Saml2' });
      const html = await page(browser, '/setup/portal/service-provider');
      expect(html)
        .to.include('>https://sp.umbrella.test/saml</code>')
        .and.include(
          `id="value-logoutUrl" class="copyable" data-copy="Single logout URL">${url}/connections/umbrella/saml2/logout</code>`,
        )
        .and.include('In Microsoft Entra ID: <strong>Logout Url (Optional)</strong>')
        .and.not.include('It answers once your connection is saved');

      const metadata = await (await browser.get(`${url}/setup/portal/service-provider/metadata.xml`)).text();
      expect(metadata).to.equal(await (await fetch(`${url}/connections/umbrella/saml2/acs`)).text());
      expect(metadata)
        .to.include('entityID="https://sp.umbrella.test/saml"')
        .and.include(signing.certificateBody)
        .and.include(
          `SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${url}/connections/umbrella/saml2/logout"`,
        );
    } finally {
      await harness.api('DELETE', '/api/admin/connections/umbrella');
      await idp.close();
    }
  });

  it("reaches only its own connection: another organization's names sent in the form, or held under its connection's name, are never read", async () => {
    const globex = { ...harness.connection('globex', ['globex.test']), BackchannelLogoutPath: '', Activated: false };
    expect((await harness.api('PUT', '/api/admin/connections/globex', globex)).status).to.equal(201);
    try {
      // Acme's portal names globex's connection and organization in the form: both are ignored.
      const browser = await portal();
      const chosen = await choose(browser, {
        vendor: 'keycloak',
        protocol: 'OpenIdConnect',
        connection: 'globex',
        organization: 'globex',
      });
      expect(chosen.status).to.equal(303);
      const html = await page(browser, '/setup/portal/service-provider');
      expect(html)
        .to.include(`${url}/connections/acme/backchannel-logout`)
        .and.not.match(/globex/i);
      const metadata = await (
        await browser.get(`${url}/setup/portal/service-provider/metadata.xml?connection=globex`)
      ).text();
      expect(metadata)
        .to.include('/connections/acme/saml2/acs')
        .and.not.match(/globex/i);

      // A connection of the portal's own name that another organization holds (the operator's
      // file, written after the link) is not the portal's: none of its keys shape the page.
      const hijacked = await portal('acme', { connection: 'hijack' });
      writeFileSync(
        join(harness.folder, 'Hijack.json'),
        JSON.stringify({
          ...harness.connection('handmade', ['hijack.test']),
          Organization: 'globex',
          BackchannelLogoutPath: '',
        }),
      );
      await eventually(
        'the file read',
        async () => (await harness.api('GET', '/api/admin/connections/Hijack')).status === 200,
      );
      await choose(hijacked, { vendor: 'other-oidc', protocol: 'OpenIdConnect' });
      expect(await page(hijacked, '/setup/portal/service-provider')).to.include(
        `${url}/connections/hijack/backchannel-logout`,
      );
    } finally {
      await harness.api('DELETE', '/api/admin/connections/globex');
    }
  });
});

/** `text` as a regular expression matching itself. */
function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
