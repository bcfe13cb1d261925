import { expect } from 'chai';
import { CLIENT_SECRET, startAdminHarness, type AdminHarness } from '../../support/admin-api.js';
import { startPostgres, type PostgresServer } from '../../support/postgres-server.js';
import { PortalBrowser, setupLinksPath } from '../../support/setup-portal.js';

const CONNECTION = '/api/admin/connections/acme';
const SCIM_TOKENS = '/api/admin/organizations/acme/scim-tokens';
const EVIL = 'https://evil.example';

/** A portal form as its page posts it (fields besides `_csrf`), and what it does when its token is right. */
interface PortalForm {
  fields: () => Record<string, string>;
  /** The status of the same form with the session's token, from this site. */
  status: number;
  /** Whether that post changes what the snapshot sees: proof that the refused ones would have, had they passed. */
  changes: boolean;
}

/**
 * Anti-forgery on every form of the setup portal, through a whole Gatehouse with directory
 * sync on (so its step's forms are mounted too): each POST the portal mounts, read from
 * the app's own endpoint table so that a new form cannot be left out, is sent from a live
 * portal session without the session's token, with a wrong one, with another portal
 * session's, and with the right one from another site; each is refused, 400, and nothing
 * changes (the connection, its domains, the SCIM tokens, what the session chose, the session
 * itself, the audit trail). The same form with the token, from this site, then does what it
 * does: the refusals were the anti-forgery's, not the form's own.
 */
describe('the setup portal: anti-forgery on every form', function () {
  this.timeout(120_000);
  let harness: AdminHarness;
  let database: PostgresServer;
  let scimTokenId: string;
  /** Another portal session's token: valid, but not the session posting. */
  let othersToken: string;

  const forms: Record<string, PortalForm> = {
    '/setup/portal/end': { fields: () => ({}), status: 200, changes: true },
    '/setup/portal/provider': { fields: () => ({ vendor: 'okta', protocol: 'Saml2' }), status: 303, changes: true },
    '/setup/portal/identity-provider': { fields: () => identityProvider(), status: 303, changes: true },
    '/setup/portal/identity-provider/check': { fields: () => identityProvider(), status: 200, changes: false },
    '/setup/portal/domains': { fields: () => ({ domain: 'added.test' }), status: 303, changes: true },
    '/setup/portal/domains/verify': { fields: () => ({ domain: 'pending.test' }), status: 200, changes: true },
    '/setup/portal/domains/remove': { fields: () => ({ domain: 'removable.test' }), status: 303, changes: true },
    // A test sign-in starts (to the identity provider): nothing stored changes until it comes back.
    '/setup/portal/test': { fields: () => ({}), status: 303, changes: false },
    // Activated already, no change waiting: nothing to activate, the form's own refusal.
    '/setup/portal/activate': { fields: () => ({}), status: 409, changes: false },
    '/setup/portal/directory/tokens': { fields: () => ({}), status: 200, changes: true },
    '/setup/portal/directory/tokens/revoke': { fields: () => ({ id: scimTokenId }), status: 200, changes: true },
  };

  const identityProvider = () => ({
    Protocol: 'OpenIdConnect',
    Authority: harness.provider.issuer,
    ClientId: 'acme-client',
    ClientSecret: CLIENT_SECRET,
    Domain: 'example.test',
  });

  /** Everything a portal form could change, as this session and the API see it. */
  async function snapshot(browser: PortalBrowser): Promise<Record<string, unknown>> {
    const pages: Record<string, unknown> = {};
    for (const path of [
      '/setup/portal',
      '/setup/portal/provider',
      '/setup/portal/identity-provider',
      '/setup/portal/domains',
      '/setup/portal/directory',
    ])
      pages[path] = await browser.page(path);
    return {
      connection: await (await harness.api('GET', CONNECTION)).text(),
      scimTokens: await (await harness.api('GET', SCIM_TOKENS)).text(),
      pages,
      audit: harness.app.logs.filter((line) => line.includes('"audit":true')).length,
    };
  }

  before(async () => {
    // Directories and the catalog on PostgreSQL: the embedded store needs a newer Node.js than some CI runs.
    database = await startPostgres(17);
    harness = await startAdminHarness(['acme'], {
      DATABASE_URL: database.connectionString,
      ProjectTemplate__Authentication__ConnectionsDirectory: undefined,
      ProjectTemplate__Directory__Enabled: 'true',
    });
    // Acme's connection, activated, example.test proved; pending.test's record published, not yet verified.
    const body = harness.connection('acme', ['example.test', 'pending.test', 'removable.test']);
    const written = await harness.api('PUT', CONNECTION, body);
    expect(written.status).to.equal(201);
    const view = (await written.json()) as {
      domains: Array<{ domain: string; record: { name: string; value: string } }>;
    };
    for (const { domain, record } of view.domains)
      if (domain !== 'removable.test') harness.dns.set(record.name, { txt: [[record.value]] });
    expect((await harness.api('POST', `${CONNECTION}/domains/example.test/verify`)).status).to.equal(200);
    const made = await harness.api('POST', SCIM_TOKENS);
    expect(made.status).to.equal(201);
    scimTokenId = ((await made.json()) as { id: string }).id;
    othersToken = await (await PortalBrowser.open(harness, 'acme')).csrf();
  });
  after(async () => {
    await harness?.close();
    await database?.close();
  });

  it('has a row here for every form the portal mounts', () => {
    const mounted = harness.app.gatehouse.endpoints
      .filter((endpoint) => endpoint.method === 'POST' && endpoint.path.startsWith('/setup/portal'))
      .map((endpoint) => endpoint.path);
    expect([...mounted].sort()).to.deep.equal(Object.keys(forms).sort());
  });

  for (const [path, form] of Object.entries(forms)) {
    it(`refuses ${path} without the session's anti-forgery token or from another site, changing nothing`, async () => {
      const browser = await PortalBrowser.open(harness, 'acme');
      const own = await browser.csrf();
      const url = `${harness.app.url}${path}`;
      const here = { origin: harness.app.url };
      const forgeries: Array<[string, Record<string, string>, Record<string, string>]> = [
        ['no token', {}, here],
        ['a wrong token', { _csrf: 'SENTINEL-forged-anti-forgery-token' }, here],
        ["another portal session's token", { _csrf: othersToken }, here],
        ['its token, another Origin', { _csrf: own }, { origin: EVIL }],
        ['its token, a cross-site fetch', { _csrf: own }, { ...here, 'sec-fetch-site': 'cross-site' }],
      ];
      const before = await snapshot(browser);
      for (const [what, token, headers] of forgeries) {
        const refused = await browser.post(url, { ...form.fields(), ...token }, headers);
        expect(refused.status, what).to.equal(400);
        expect(await snapshot(browser), what).to.deep.equal(before);
      }
      const passed = await browser.post(url, { ...form.fields(), _csrf: own }, here);
      expect(passed.status, 'with its token, from this site').to.equal(form.status);
      if (form.changes) expect(await snapshot(browser), 'with its token, from this site').not.to.deep.equal(before);
    });
  }

  it("refuses the identity provider's check sent as JSON (the page's script) without the token, changing nothing", async () => {
    const browser = await PortalBrowser.open(harness, 'acme');
    const own = await browser.csrf();
    const post = (body: Record<string, unknown>, headers: Record<string, string>) =>
      browser.jar.fetch(`${harness.app.url}/setup/portal/identity-provider/check`, {
        method: 'POST',
        body: JSON.stringify({ ...identityProvider(), ...body }),
        headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
      });
    const here = { origin: harness.app.url };
    const forgeries: Array<[string, Record<string, unknown>, Record<string, string>]> = [
      ['no token', {}, here],
      ['a wrong token', { _csrf: 'SENTINEL-forged-anti-forgery-token' }, here],
      ['a wrong token in the header', {}, { ...here, 'x-csrf-token': 'SENTINEL-forged-anti-forgery-token' }],
      ["another portal session's token", { _csrf: othersToken }, here],
      ['its token, another Origin', { _csrf: own }, { origin: EVIL }],
      ['its token, a cross-site fetch', { _csrf: own }, { ...here, 'sec-fetch-site': 'cross-site' }],
    ];
    const before = await snapshot(browser);
    for (const [what, body, headers] of forgeries) {
      const refused = await post(body, headers);
      expect(refused.status, what).to.equal(400);
      expect(await snapshot(browser), what).to.deep.equal(before);
    }
    expect((await post({ _csrf: own }, here)).status, 'with its token in the body').to.equal(200);
    expect((await post({}, { ...here, 'x-csrf-token': own })).status, 'with its token in the header').to.equal(200);
  });

  it("refuses a setup link's button posted from another site, and spends nothing", async () => {
    const made = await harness.api('POST', setupLinksPath('acme'), {});
    const { url } = (await made.json()) as { url: string };
    const crossSite: Array<Record<string, string>> = [
      { origin: EVIL },
      { origin: harness.app.url, 'sec-fetch-site': 'cross-site' },
    ];
    for (const headers of crossSite) {
      const refused = await fetch(url, { method: 'POST', redirect: 'manual', headers });
      expect(refused.status, JSON.stringify(headers)).to.equal(400);
      expect(refused.headers.getSetCookie(), 'no portal session').to.deep.equal([]);
    }
    expect((await fetch(url)).status, 'still unspent').to.equal(200);
    const opened = await fetch(url, { method: 'POST', redirect: 'manual', headers: { origin: harness.app.url } });
    expect(opened.status).to.equal(303);
  });
});
