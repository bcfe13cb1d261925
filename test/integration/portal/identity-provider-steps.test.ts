import { expect } from 'chai';
import { readdirSync } from 'node:fs';
import { makeSigningCredential } from '../../../scripts/saml/signing-credential.js';
import { CLIENT_SECRET, startAdminHarness, type AdminHarness } from '../../support/admin-api.js';
import { discover } from '../../support/connection-app.js';
import { TestBrowser } from '../../support/oidc-app.js';
import { SamlTestIdentityProvider } from '../../support/saml-identity-provider.js';
import { PortalBrowser, setupLinksPath } from '../../support/setup-portal.js';

const CONNECTIONS = '/api/admin/connections';
const IDENTITY_PROVIDER = '/setup/portal/identity-provider';
const CHECK = '/setup/portal/identity-provider/check';
const DOMAINS = '/setup/portal/domains';
const DAY = 24 * 60 * 60 * 1000;

interface View {
  version: number;
  keys: Record<string, unknown>;
  secretsSet: string[];
  domains: Array<{ domain: string; verified: boolean; record: { name: string; value: string } }>;
}

interface Check {
  field: string;
  outcome: 'passed' | 'failed' | 'not-checked';
  text: string;
  fix?: string;
}

/** The problems shown under a field of the identity provider's form, as text. */
function fieldProblems(page: string, field: string): string {
  const found = new RegExp(`<div id="field-${field}-problem" class="field-problems">([\\s\\S]*?)</div>`).exec(page);
  return unescaped(
    (found?.[1] ?? '')
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim(),
  );
}

/** Text of a page as a person reads it: the entities nunjucks escapes, unescaped. */
function unescaped(html: string): string {
  const entities: Record<string, string> = { '&quot;': '"', '&#39;': "'", '&lt;': '<', '&gt;': '>', '&amp;': '&' };
  return html.replace(/&quot;|&#39;|&lt;|&gt;|&amp;/g, (entity) => entities[entity] ?? entity);
}

/**
 * Steps 3 and 4 of the setup portal through a whole Gatehouse: the identity provider's
 * details (SAML by metadata URL or file against a real SAML identity provider, OpenID
 * Connect against a real OpenID provider) saved as the portal's own connection, not
 * activated; every pre-flight refusal shown next to its field with nothing saved; live
 * checks that store nothing and never echo the secret; the domains added, proved through
 * a real DNS server, verified and removed; and nothing of another organization's reached.
 */
describe("the setup portal: what the identity provider gave, and the organization's domains", function () {
  this.timeout(60_000);
  let harness: AdminHarness;
  let idp: SamlTestIdentityProvider;
  let expiredIdp: SamlTestIdentityProvider;
  const issuerOf = (name: string) => harness.providers.get(name)!.issuer;
  const read = async (name: string): Promise<View | undefined> => {
    const answer = await harness.api('GET', `${CONNECTIONS}/${name}`);
    return answer.status === 200 ? ((await answer.json()) as View) : undefined;
  };
  const oidcForm = (extra: Record<string, string> = {}) => ({
    Protocol: 'OpenIdConnect',
    Authority: issuerOf('acme'),
    ClientId: 'acme-client',
    ClientSecret: CLIENT_SECRET,
    Domain: 'example.test',
    ...extra,
  });

  before(async () => {
    harness = await startAdminHarness(['acme', 'globex']);
    idp = await SamlTestIdentityProvider.start();
    const notAfter = Date.now() - 30 * DAY;
    expiredIdp = await SamlTestIdentityProvider.start(
      makeSigningCredential({ commonName: 'old-signer.acme.example', notBefore: notAfter - 365 * DAY, notAfter }),
    );
  });
  after(async () => {
    await harness?.close();
    await idp?.close();
    await expiredIdp?.close();
  });
  afterEach(async () => {
    for (const name of ['acme', 'globex']) await harness.api('DELETE', `${CONNECTIONS}/${name}`);
  });

  describe('what it gave you', () => {
    it('saves SAML by metadata URL as the portal’s connection, not activated: its domain routes nobody', async () => {
      const browser = await PortalBrowser.open(harness, 'acme');
      const page = await browser.page(IDENTITY_PROVIDER);
      expect(page.status).to.equal(200);
      expect(page.text).to.include('name="MetadataUrl"').and.include('name="Domain"');
      expect(page.text).to.include(`${harness.app.url}/connections/acme/saml2/acs`);

      const saved = await browser.submit(IDENTITY_PROVIDER, {
        Protocol: 'Saml2',
        MetadataUrl: idp.metadataUrl,
        Domain: 'example.test',
      });
      expect(saved.status).to.equal(303);
      expect(saved.headers.get('location')).to.equal(DOMAINS);
      const view = await read('acme');
      expect(view?.keys).to.include({
        Protocol: 'Saml2',
        Organization: 'acme',
        Activated: false,
        MetadataUrl: idp.metadataUrl,
        EntityId: `${harness.app.url}/connections/acme/saml2/acs`,
      });
      expect(view?.keys.Domains).to.deep.equal(['example.test']);
      expect((await discover(new TestBrowser(), harness.app.url, 'ada@example.test')).status).to.equal(404);
      // The page shows it saved; saving again keeps the first domain and the connection's other keys.
      const again = await browser.page(IDENTITY_PROVIDER);
      expect(again.text).to.include('Your connection is saved').and.not.include('name="Domain"');
      expect(again.text).to.include(`value="${idp.metadataUrl}"`);
      expect(browser.signedIn).to.equal(false);
    });

    it('saves SAML from its metadata file: IdpMetadata, its entity ID taken from the file, nothing fetched', async () => {
      const browser = await PortalBrowser.open(harness, 'acme');
      const fetched = idp.metadataRequests;
      const saved = await browser.submit(IDENTITY_PROVIDER, {
        Protocol: 'Saml2',
        MetadataUrl: '',
        IdpMetadata: idp.metadata(),
        Domain: 'example.test',
      });
      expect(saved.status).to.equal(303);
      const view = await read('acme');
      expect(view?.keys).to.include({ Protocol: 'Saml2', IdpMetadata: idp.metadata(), IdpEntityId: idp.entityId });
      expect(view?.keys).not.to.have.property('MetadataUrl');
      expect(idp.metadataRequests, 'the file is read, never fetched').to.equal(fetched);
    });

    it('saves OpenID Connect against the real provider, its secret sealed and never shown again; empty, it is kept', async () => {
      const browser = await PortalBrowser.open(harness, 'acme');
      const saved = await browser.submit(IDENTITY_PROVIDER, oidcForm());
      expect(saved.status).to.equal(303);
      const view = await read('acme');
      expect(view?.keys).to.include({
        Protocol: 'OpenIdConnect',
        Authority: issuerOf('acme'),
        ClientId: 'acme-client',
        Activated: false,
      });
      expect(view?.secretsSet).to.deep.equal(['ClientSecret']);
      const page = await browser.page(IDENTITY_PROVIDER);
      expect(page.text).to.include('A secret is saved').and.not.include(CLIENT_SECRET);
      // Saved again without the secret: the stored one is kept.
      expect((await browser.submit(IDENTITY_PROVIDER, oidcForm({ ClientSecret: '' }))).status).to.equal(303);
      expect((await read('acme'))?.secretsSet).to.deep.equal(['ClientSecret']);
      expect((await discover(new TestBrowser(), harness.app.url, 'ada@example.test')).status).to.equal(404);
      expect(harness.app.logs.join('\n')).not.to.include(CLIENT_SECRET);
      expect(browser.signedIn).to.equal(false);
    });

    it('keeps a change of an activated connection as a draft, shown on the page, the live version unchanged', async () => {
      const live = harness.connection('acme', ['example.test'], { Activated: true });
      expect((await harness.api('PUT', `${CONNECTIONS}/acme`, live)).status).to.equal(201);
      const before = await read('acme');
      const browser = await PortalBrowser.open(harness, 'acme');
      expect((await browser.page(IDENTITY_PROVIDER)).text).to.include('Single sign-on is active');

      // From OpenID Connect to SAML: the OpenID client's secret is not carried over.
      const saved = await browser.submit(IDENTITY_PROVIDER, { Protocol: 'Saml2', MetadataUrl: idp.metadataUrl });
      expect(saved.status, await saved.clone().text()).to.equal(303);
      expect(saved.headers.get('location')).to.equal('/setup/portal/test');
      const after = await read('acme');
      expect(after?.version).to.equal(before?.version);
      expect(after?.keys).to.deep.equal(before?.keys);
      const page = (await browser.page(IDENTITY_PROVIDER)).text;
      expect(page).to.include('Your change is saved as a draft').and.include(`value="${idp.metadataUrl}"`);
      expect(page).not.to.include(CLIENT_SECRET).and.not.include('gh1.');
    });

    it('refuses a wrong issuer, a wrong entity ID and an expired certificate next to the field, saving nothing', async () => {
      const browser = await PortalBrowser.open(harness, 'acme');
      const cases: Array<{ form: Record<string, string>; field: string; says: string }> = [
        {
          // The same provider by another name: its discovery document names another issuer.
          form: oidcForm({ Authority: issuerOf('acme').replace('127.0.0.1', 'localhost') }),
          field: 'Authority',
          says: 'which is not the Authority given',
        },
        {
          form: {
            Protocol: 'Saml2',
            MetadataUrl: idp.metadataUrl,
            IdpEntityId: 'https://idp.globex.example/saml',
            Domain: 'example.test',
          },
          field: 'IdpEntityId',
          says: 'not the one IdpEntityId names',
        },
        {
          form: { Protocol: 'Saml2', MetadataUrl: expiredIdp.metadataUrl, Domain: 'example.test' },
          field: 'MetadataUrl',
          says: 'signing certificate "CN=old-signer.acme.example" expired on',
        },
        {
          form: { Protocol: 'Saml2', MetadataUrl: `${idp.origin}/nothing-here`, Domain: 'example.test' },
          field: 'MetadataUrl',
          says: 'could not be fetched: the server answered 404',
        },
      ];
      for (const { form, field, says } of cases) {
        const refused = await browser.submit(IDENTITY_PROVIDER, form);
        expect(refused.status, field).to.equal(422);
        const page = await refused.text();
        expect(fieldProblems(page, field), field).to.include(says);
        expect(page).to.match(new RegExp(`id="field-${field}"[^>]*aria-invalid="true"`));
        expect(await read('acme'), 'nothing saved').to.equal(undefined);
        expect(page).not.to.include(CLIENT_SECRET);
      }
      // What is missing is said before anything is fetched.
      const missing = await browser.submit(IDENTITY_PROVIDER, {
        Protocol: 'OpenIdConnect',
        Authority: '',
        ClientId: '',
      });
      expect(missing.status).to.equal(422);
      const text = await missing.text();
      for (const field of ['Authority', 'ClientId', 'ClientSecret', 'Domain']) {
        expect(fieldProblems(text, field), field).to.match(/^Give /);
      }
      expect(readdirSync(harness.folder).filter((file) => file.endsWith('.json'))).to.deep.equal([]);
      expect(browser.signedIn).to.equal(false);
    });

    it('checks without storing anything, through the pre-flight, and never sends the secret back', async () => {
      const browser = await PortalBrowser.open(harness, 'acme');
      const saml = await browser.submitJson(CHECK, { Protocol: 'Saml2', MetadataUrl: idp.metadataUrl });
      expect(saml.status).to.equal(200);
      const samlChecks = ((await saml.json()) as { checks: Check[] }).checks;
      expect(samlChecks.map((check) => check.outcome)).to.not.include('failed');
      expect(samlChecks.map((check) => check.text)).to.include.members([
        'The metadata was fetched.',
        'The metadata is a well-formed XML document.',
        `The metadata describes the identity provider "${idp.entityId}".`,
      ]);
      expect(samlChecks.some((check) => /^Its signing certificate ".*" is valid until /.test(check.text))).to.equal(
        true,
      );

      const expired = await browser.submitJson(CHECK, { Protocol: 'Saml2', MetadataUrl: expiredIdp.metadataUrl });
      const failed = ((await expired.json()) as { checks: Check[] }).checks.filter(
        (check) => check.outcome === 'failed',
      );
      expect(failed).to.have.length(1);
      expect(failed[0]).to.include({ field: 'MetadataUrl' });
      expect(failed[0]?.text).to.include('expired on');
      expect(failed[0]?.fix).to.include('metadata URL');

      const oidc = await browser.submitJson(CHECK, oidcForm());
      const oidcText = await oidc.text();
      expect(oidc.status).to.equal(200);
      expect(oidcText).not.to.include(CLIENT_SECRET);
      const oidcChecks = (JSON.parse(oidcText) as { checks: Check[] }).checks;
      expect(oidcChecks.map((check) => check.outcome)).to.deep.equal(['passed', 'passed', 'passed', 'not-checked']);

      // Without script: the form's own button, the same checks on the page, the secret not echoed.
      const page = await browser.submit(CHECK, oidcForm(), { accept: 'text/html' });
      expect(page.status).to.equal(200);
      const html = await page.text();
      expect(html).to.include('Passed:').and.include('Not checked:').and.not.include(CLIENT_SECRET);

      // Nothing stored, and no check without the session's token.
      expect(await read('acme')).to.equal(undefined);
      expect(readdirSync(harness.folder).filter((file) => file.endsWith('.json'))).to.deep.equal([]);
      expect(
        (await browser.submitJson(CHECK, { Protocol: 'Saml2', MetadataUrl: idp.metadataUrl }, false)).status,
      ).to.equal(400);
      expect(harness.app.logs.join('\n')).not.to.include(CLIENT_SECRET);
      expect(browser.signedIn).to.equal(false);
    });

    it('limits the checks a portal session makes the server fetch: 60 in 10 minutes, then 429 without fetching', async () => {
      const browser = await PortalBrowser.open(harness, 'acme');
      const before = idp.metadataRequests;
      const form = { Protocol: 'Saml2', MetadataUrl: idp.metadataUrl };
      for (let index = 0; index < 60; index += 1) {
        expect((await browser.submitJson(CHECK, form)).status).to.equal(200);
      }
      const refused = await browser.submitJson(CHECK, form);
      expect(refused.status).to.equal(429);
      expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 600);
      expect(idp.metadataRequests - before).to.equal(60);
      // A save makes it fetch too: refused alike.
      const save = await browser.submit(IDENTITY_PROVIDER, { ...form, Domain: 'example.test' });
      expect(save.status).to.equal(429);
      expect(await read('acme')).to.equal(undefined);
      // Another portal session has its own count.
      const other = await PortalBrowser.open(harness, 'acme');
      expect((await other.submitJson(CHECK, form)).status).to.equal(200);
    });
  });

  describe('your domains', () => {
    it('adds a domain, shows its record, verifies it once published on the DNS, and removes it', async () => {
      const browser = await PortalBrowser.open(harness, 'acme');
      expect((await browser.page(DOMAINS)).text).to.include('Give your identity provider');
      expect((await browser.submit(IDENTITY_PROVIDER, oidcForm())).status).to.equal(303);

      expect((await browser.submit(DOMAINS, { domain: 'Second.TEST' })).status).to.equal(303);
      const view = await read('acme');
      expect(view?.domains.map((domain) => domain.domain)).to.deep.equal(['example.test', 'second.test']);
      const record = view!.domains[1]!.record;
      const page = (await browser.page(DOMAINS)).text;
      expect(page).to.include(record.name).and.include(record.value).and.include('data-copy=');

      // Not published yet: the record to publish, in words, and nothing verified.
      const missing = await browser.submit('/setup/portal/domains/verify', { domain: 'second.test' });
      expect(missing.status).to.equal(422);
      const missingText = await missing.text();
      expect(missingText).to.include('was not found. Publish the record below').and.include(record.value);
      // The DNS not answering is said so.
      harness.dns.set(record.name, { servfail: true });
      const down = await browser.submit('/setup/portal/domains/verify', { domain: 'second.test' });
      expect(down.status).to.equal(503);
      expect(await down.text()).to.include('The DNS did not answer');

      harness.dns.set(record.name, { txt: [[record.value]] });
      const verified = await browser.submit('/setup/portal/domains/verify', { domain: 'second.test' });
      expect(verified.status).to.equal(200);
      expect(await verified.text()).to.include('second.test is verified');
      expect((await read('acme'))?.domains.find((domain) => domain.domain === 'second.test')?.verified).to.equal(true);
      // Proved, but the connection is not activated: it routes nobody yet.
      expect((await discover(new TestBrowser(), harness.app.url, 'ada@second.test')).status).to.equal(404);

      expect((await browser.submit('/setup/portal/domains/remove', { domain: 'second.test' })).status).to.equal(303);
      expect((await read('acme'))?.domains.map((domain) => domain.domain)).to.deep.equal(['example.test']);
      // The last domain stays: removing it is refused in words.
      const last = await browser.submit('/setup/portal/domains/remove', { domain: 'example.test' });
      expect(last.status).to.equal(422);
      expect(await last.text()).to.include('keeps at least one domain');
      harness.dns.remove(record.name);
      expect(browser.signedIn).to.equal(false);
    });

    it('refuses a domain another organization proved, with the reason', async () => {
      const globex = await harness.api('PUT', `${CONNECTIONS}/globex`, harness.connection('globex', ['globex.test']));
      const record = ((await globex.json()) as View).domains[0]!.record;
      harness.dns.set(record.name, { txt: [[record.value]] });
      expect((await harness.api('POST', `${CONNECTIONS}/globex/domains/globex.test/verify`)).status).to.equal(200);

      const browser = await PortalBrowser.open(harness, 'acme');
      // Neither as the first domain of a new connection...
      const first = await browser.submit(IDENTITY_PROVIDER, oidcForm({ Domain: 'globex.test' }));
      expect(first.status).to.equal(409);
      expect(fieldProblems(await first.text(), 'Domain')).to.include(
        'belongs to another organization, which proved it',
      );
      expect(await read('acme')).to.equal(undefined);
      // ...nor added later.
      expect((await browser.submit(IDENTITY_PROVIDER, oidcForm())).status).to.equal(303);
      const added = await browser.submit(DOMAINS, { domain: 'globex.test' });
      expect(added.status).to.equal(409);
      expect(await added.text())
        .to.include('globex.test cannot be added')
        .and.include('belongs to another organization');
      expect((await read('acme'))?.domains.map((domain) => domain.domain)).to.deep.equal(['example.test']);
      harness.dns.remove(record.name);
    });
  });

  describe("another organization's connection", () => {
    it('is neither read nor changed by a portal for acme, whatever its fields and paths name', async () => {
      const created = await harness.api('PUT', `${CONNECTIONS}/globex`, harness.connection('globex', ['globex.test']));
      const record = ((await created.json()) as View).domains[0]!.record;
      harness.dns.set(record.name, { txt: [[record.value]] });
      expect((await harness.api('POST', `${CONNECTIONS}/globex/domains/globex.test/verify`)).status).to.equal(200);
      const globex = await read('globex');

      const browser = await PortalBrowser.open(harness, 'acme');
      // Its provider is globex's: one connection per identity provider, and the refusal does not name globex.
      const taken = await browser.submit(IDENTITY_PROVIDER, oidcForm({ Authority: issuerOf('globex') }));
      expect(taken.status).to.equal(409);
      const takenText = await taken.text();
      expect(fieldProblems(takenText, 'Authority')).to.include('Another connection uses this identity provider');
      expect(takenText.toLowerCase()).not.to.include('globex');

      // Fields naming globex are not the connection's: the portal writes its own, for acme.
      const hostile = {
        ...oidcForm(),
        Organization: 'globex',
        connection: 'globex',
        name: 'globex',
        Activated: 'true',
        Enabled: 'false',
      };
      expect((await browser.submit(IDENTITY_PROVIDER, hostile)).status).to.equal(303);
      expect((await read('acme'))?.keys).to.include({ Organization: 'acme', Activated: false });
      expect(
        (await browser.submitJson(CHECK, { ...hostile, Protocol: 'Saml2', MetadataUrl: idp.metadataUrl })).status,
      ).to.equal(200);

      // Its domains are not this connection's to verify or remove, nor to add (it proved them).
      for (const path of ['/setup/portal/domains/verify', '/setup/portal/domains/remove']) {
        const refused = await browser.submit(path, { domain: 'globex.test', connection: 'globex' });
        expect(refused.status, path).to.equal(404);
        expect(await refused.text()).to.include('Your connection has no domain globex.test');
      }
      expect((await browser.submit(DOMAINS, { domain: 'globex.test' })).status).to.equal(409);
      // Paths with globex's name in them are not routes of the portal.
      for (const path of [`${DOMAINS}/globex`, `${IDENTITY_PROVIDER}/globex`, `${DOMAINS}/verify/globex.test`]) {
        expect((await browser.get(`${harness.app.url}${path}`)).status, path).to.equal(404);
      }
      // What the portal shows is acme's only.
      for (const path of [IDENTITY_PROVIDER, DOMAINS, `${DOMAINS}?connection=globex`]) {
        const text = (await browser.page(path)).text;
        expect(text, path).not.to.include(issuerOf('globex')).and.not.include('globex-client');
        expect(text, path).not.to.include(record.value);
      }

      const after = await read('globex');
      expect(after?.version).to.equal(globex?.version);
      expect(after?.keys).to.deep.equal(globex?.keys);
      expect(after?.domains).to.deep.equal(globex?.domains);
      expect(browser.signedIn).to.equal(false);
      harness.dns.remove(record.name);
    });

    it('cannot get a portal: the API refuses acme a link that names globex’s connection', async () => {
      expect(
        (await harness.api('PUT', `${CONNECTIONS}/globex`, harness.connection('globex', ['globex.test']))).status,
      ).to.equal(201);
      const refused = await harness.api('POST', setupLinksPath('acme'), { connection: 'globex' });
      expect(refused.status).to.equal(409);
      expect(((await refused.json()) as { code: string }).code).to.equal('setup_link.connection_taken');
    });
  });
});

describe('the setup portal with AllowPrivateNetworks off', function () {
  this.timeout(60_000);
  let harness: AdminHarness;
  let idp: SamlTestIdentityProvider;
  before(async () => {
    harness = await startAdminHarness(['acme'], { ProjectTemplate__Administration__AllowPrivateNetworks: 'false' });
    idp = await SamlTestIdentityProvider.start();
  });
  after(async () => {
    await harness?.close();
    await idp?.close();
  });

  it('refuses metadata at a private address, naming MetadataUrl, in a save and a check, fetching nothing', async () => {
    const browser = await PortalBrowser.open(harness, 'acme');
    const privateUrl = idp.metadataUrl.replace('http:', 'https:');
    const saved = await browser.submit(IDENTITY_PROVIDER, {
      Protocol: 'Saml2',
      MetadataUrl: privateUrl,
      Domain: 'example.test',
    });
    expect(saved.status).to.equal(422);
    expect(fieldProblems(await saved.text(), 'MetadataUrl')).to.match(
      /could not be fetched: the address is .*loopback/,
    );
    const checked = await browser.submitJson(CHECK, { Protocol: 'Saml2', MetadataUrl: privateUrl });
    const [check] = ((await checked.json()) as { checks: Check[] }).checks;
    expect(check).to.include({ field: 'MetadataUrl', outcome: 'failed' });
    expect(check?.text).to.match(/could not be fetched: the address is .*loopback/);
    expect(idp.metadataRequests).to.equal(0);
    expect((await harness.api('GET', `${CONNECTIONS}/acme`)).status).to.equal(404);
    expect(browser.signedIn).to.equal(false);
  });
});
