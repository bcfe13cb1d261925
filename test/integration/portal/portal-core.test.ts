import { expect } from 'chai';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { auditEvents, discover } from '../../support/connection-app.js';
import { driveOidcLogin } from '../../support/drive-oidc-login.js';
import { TestBrowser } from '../../support/oidc-app.js';
import { CLIENT_SECRET, startAdminHarness, type AdminHarness } from '../../support/admin-api.js';
import { PortalBrowser, setupLinksPath } from '../../support/setup-portal.js';

const DAY_MS = 24 * 60 * 60_000;

/**
 * The setup portal's core, through a whole Gatehouse: a link made through the API, spent by
 * its page's button into a portal session of its own; a connection being set up routes
 * nobody; the test sign-in goes through the real provider and signs nobody in; activation
 * needs a passed test and a proved domain; and one organization's portal reaches nothing of
 * another's.
 */
describe('the setup portal: links, its session, the test sign-in and activation', function () {
  this.timeout(40_000);
  let harness: AdminHarness;
  before(async () => {
    harness = await startAdminHarness(['acme', 'globex']);
  });
  after(async () => harness?.close());

  it('makes a link valid 7 days by default, or the days asked for, and says until when', async () => {
    for (const [body, days] of [
      [{}, 7],
      [{ days: 2 }, 2],
      [{ days: 30 }, 30],
    ] as const) {
      const before = Date.now();
      const made = await harness.api('POST', setupLinksPath('acme'), body);
      const after = Date.now();
      expect(made.status).to.equal(201);
      const answer = (await made.json()) as { id: string; url: string; expiresAt: string };
      expect(answer.id).to.be.a('string');
      expect(answer.url).to.match(/\/setup\/link\/[A-Za-z0-9_-]{43}$/);
      // An ISO 8601 instant, the link's creation plus the days, to the millisecond.
      const expiresAt = Date.parse(answer.expiresAt);
      expect(new Date(expiresAt).toISOString(), JSON.stringify(body)).to.equal(answer.expiresAt);
      expect(expiresAt, JSON.stringify(body)).to.be.within(before + days * DAY_MS, after + days * DAY_MS);
    }
  });

  it('makes a one-time link whose page spends nothing, whose button opens a portal session with its own cookie, and which works once', async () => {
    const made = await harness.api('POST', setupLinksPath('acme'), {});
    const { id, url } = (await made.json()) as { id: string; url: string };
    const token = new URL(url).pathname.split('/').at(-1) ?? '';
    expect(token).to.match(/^[A-Za-z0-9_-]{43}$/);
    expect(harness.app.logs.join('\n')).not.to.include(token);
    const created = auditEvents(harness.app.logs, 'setup_link.created').at(-1);
    expect(created).to.include({
      organization: 'acme',
      connection: 'acme',
      link: id,
      actor: `api-key:${harness.apiKeyId}`,
    });

    // A mail scanner's GET spends nothing; another site's POST spends nothing.
    expect((await fetch(url)).status).to.equal(200);
    const forged = await fetch(url, { method: 'POST', headers: { origin: 'https://evil.example' } });
    expect(forged.status).to.equal(400);

    const browser = new TestBrowser();
    const opened = await browser.jar.fetch(url, { method: 'POST', headers: { origin: harness.app.url } });
    expect(opened.status).to.equal(303);
    const cookie = opened.headers.getSetCookie().find((header) => header.startsWith('gatehouse.sid.portal='));
    expect(cookie)
      .to.match(/path=\/setup\/portal/i)
      .and.match(/samesite=strict/i)
      .and.match(/httponly/i);
    expect(cookie, 'Secure in production only').not.to.match(/;\s*secure/i);
    expect(opened.headers.getSetCookie().some((header) => header.startsWith('gatehouse.sid='))).to.equal(false);
    // Its use is audited once, by its id, never its token.
    expect(auditEvents(harness.app.logs, 'setup_link.used').filter((event) => event.link === id)).to.have.length(1);
    expect(auditEvents(harness.app.logs, 'setup_link.used').at(-1)).to.include({
      organization: 'acme',
      connection: 'acme',
      link: id,
    });
    const overview = await browser.get(`${harness.app.url}/setup/portal`);
    expect(overview.status).to.equal(200);
    expect(await overview.text()).to.include('acme');

    // Spent: the same link opens nothing again, in any browser.
    expect((await fetch(url, { method: 'POST', headers: { origin: harness.app.url } })).status).to.equal(404);
    expect((await fetch(url)).status).to.equal(404);
    expect(auditEvents(harness.app.logs, 'setup_link.used').filter((event) => event.link === id)).to.have.length(1);
    expect(harness.app.logs.join('\n')).not.to.include(token);
    // Without its cookie, the portal is a page saying the session ended.
    expect((await fetch(`${harness.app.url}/setup/portal`)).status).to.equal(401);
  });

  it('revokes a link, and refuses one for a connection another organization holds', async () => {
    const made = await harness.api('POST', setupLinksPath('acme'), { days: 2 });
    const { id, url } = (await made.json()) as { id: string; url: string };
    const revocations = () => auditEvents(harness.app.logs, 'setup_link.revoked').filter((event) => event.link === id);
    expect(
      (await harness.api('DELETE', `${setupLinksPath('globex')}/${id}`)).status,
      'not globex’s to revoke',
    ).to.equal(404);
    expect(revocations(), 'a refused revocation is no revocation').to.deep.equal([]);
    expect((await harness.api('DELETE', `${setupLinksPath('acme')}/${id}`)).status).to.equal(204);
    expect(revocations()).to.have.length(1);
    expect(revocations()[0]).to.include({ organization: 'acme', link: id, actor: `api-key:${harness.apiKeyId}` });
    expect((await harness.api('DELETE', `${setupLinksPath('acme')}/${id}`)).status, 'revoked once').to.equal(404);
    expect(revocations()).to.have.length(1);
    expect((await fetch(url, { method: 'POST', headers: { origin: harness.app.url } })).status).to.equal(404);
    expect(auditEvents(harness.app.logs, 'setup_link.used').some((event) => event.link === id)).to.equal(false);

    const globex = harness.connection('globex', ['globex.test']);
    expect((await harness.api('PUT', '/api/admin/connections/globex', globex)).status).to.equal(201);
    const taken = await harness.api('POST', setupLinksPath('acme'), { connection: 'globex' });
    expect(taken.status).to.equal(409);
    expect(((await taken.json()) as { code: string }).code).to.equal('setup_link.connection_taken');
    for (const body of [{ days: 31 }, { days: 0 }, { connection: '1bad' }, { other: true }]) {
      expect((await harness.api('POST', setupLinksPath('acme'), body)).status, JSON.stringify(body)).to.equal(422);
    }
    await harness.api('DELETE', '/api/admin/connections/globex');
  });

  it('tests a connection being set up without signing anyone in, and activates it only after a passed test and a proved domain', async () => {
    // The identity provider's step, as the portal writes it: not activated.
    const body = { ...harness.connection('acme', ['example.test']), Activated: false };
    const written = await harness.api('PUT', '/api/admin/connections/acme', body);
    expect(written.status).to.equal(201);
    const record = ((await written.json()) as { domains: Array<{ record: { name: string; value: string } }> })
      .domains[0]!.record;
    harness.dns.set(record.name, { txt: [[record.value]] });
    expect((await harness.api('POST', '/api/admin/connections/acme/domains/example.test/verify')).status).to.equal(200);

    // Being set up, it routes nobody and starts no ordinary sign-in, its domain proved or not.
    expect((await discover(new TestBrowser(), harness.app.url, 'ada@example.test')).status).to.equal(404);
    const ordinary = await fetch(`${harness.app.url}/External/Challenge?provider=acme&returnUrl=%2F`, {
      redirect: 'manual',
    });
    expect(ordinary.status).to.equal(400);

    const browser = await PortalBrowser.open(harness, 'acme');
    // Activation before a test: refused, nothing changes.
    const early = await browser.submit('/setup/portal/activate', {});
    expect(early.status).to.equal(409);
    expect(await early.text()).to.include('test sign-in');

    const started = await browser.submit('/setup/portal/test', {});
    expect(started.status).to.equal(303);
    const callback = await driveOidcLogin(started.headers.get('location') ?? '', 'admin', browser.jar);
    expect(callback.pathname).to.equal('/connections/acme/signin-oidc');
    const landed = await browser.get(callback.href);
    expect(landed.status).to.equal(302);
    expect(landed.headers.get('location')).to.equal('/setup/portal/test/result');
    // Nobody is signed in to the application.
    expect(browser.sessionToken(harness.app.url)).to.equal(undefined);
    const result = await (await browser.get(`${harness.app.url}/setup/portal/test/result`)).text();
    expect(result).to.include('Passed').and.include('example.test: verified').and.include('application:email');
    expect(auditEvents(harness.app.logs, 'connection.tested').at(-1)).to.include({
      connection: 'acme',
      cause: 'passed',
    });

    const activated = await browser.submit('/setup/portal/activate', {});
    expect(activated.status).to.equal(303);
    expect(auditEvents(harness.app.logs, 'connection.activated').at(-1)).to.include({
      connection: 'acme',
      organization: 'acme',
    });
    expect((await discover(new TestBrowser(), harness.app.url, 'ada@example.test')).status).to.equal(302);
    await harness.api('DELETE', '/api/admin/connections/acme');
  });

  it("shows a test's refusal in words, and keeps each portal's results its own", async () => {
    // Acme's connection claims acme.test only: the demo provider's admin (ada@example.test) is outside it.
    const body = { ...harness.connection('acme', ['acme.test']), Activated: false };
    expect((await harness.api('PUT', '/api/admin/connections/acme', body)).status).to.equal(201);
    const browser = await PortalBrowser.open(harness, 'acme');
    const started = await browser.submit('/setup/portal/test', {});
    const callback = await driveOidcLogin(started.headers.get('location') ?? '', 'admin', browser.jar);
    await browser.get(callback.href);
    const result = await (await browser.get(`${harness.app.url}/setup/portal/test/result`)).text();
    expect(result).to.include('Refused (idp.domain_not_allowed)');
    expect(browser.sessionToken(harness.app.url)).to.equal(undefined);

    // Another portal session (a second link, another browser) sees no result of this one's.
    const other = await PortalBrowser.open(harness, 'acme');
    const empty = await (await other.get(`${harness.app.url}/setup/portal/test/result`)).text();
    expect(empty).to.include('No test sign-in has come back yet');
    await harness.api('DELETE', '/api/admin/connections/acme');
  });

  it('refuses a portal form without its anti-forgery token, and a test sign-in of another connection', async () => {
    const browser = await PortalBrowser.open(harness, 'acme');
    const refused = await browser.post(
      `${harness.app.url}/setup/portal/test`,
      { _csrf: 'forged' },
      { origin: harness.app.url },
    );
    expect(refused.status).to.equal(400);
    // The test route starts only the session's own connection: globex's, activated, is out of reach.
    const globex = harness.connection('globex', ['globex.test']);
    expect((await harness.api('PUT', '/api/admin/connections/globex', globex)).status).to.equal(201);
    const token = await browser.csrf('/setup/portal/test');
    const page = await (await browser.get(`${harness.app.url}/setup/portal/test`)).text();
    expect(page).to.include('there is nothing to test yet');
    const started = await browser.post(
      `${harness.app.url}/setup/portal/test`,
      { _csrf: token, scheme: 'globex' },
      {
        origin: harness.app.url,
      },
    );
    expect(started.status, 'nothing of its own to test').to.equal(409);
    await harness.api('DELETE', '/api/admin/connections/globex');
  });

  it('tests a change of an activated connection as a draft while the live version signs people in, and replaces it only on activation', async () => {
    const live = harness.connection('acme', ['example.test']);
    const written = await harness.api('PUT', '/api/admin/connections/acme', live);
    const record = ((await written.json()) as { domains: Array<{ record: { name: string; value: string } }> })
      .domains[0]!.record;
    harness.dns.set(record.name, { txt: [[record.value]] });
    expect((await harness.api('POST', '/api/admin/connections/acme/domains/example.test/verify')).status).to.equal(200);
    const versionBefore = (
      (await (await harness.api('GET', '/api/admin/connections/acme')).json()) as { version: number }
    ).version;

    const browser = await PortalBrowser.open(harness, 'acme');
    // The change: a wrong client secret. Saved as a draft (the pre-flight cannot know a secret).
    let token = await browser.csrf('/setup/portal/identity-provider');
    const form = {
      _csrf: token,
      Protocol: 'OpenIdConnect',
      Authority: harness.providers.get('acme')!.issuer,
      ClientId: 'acme-client',
      ClientSecret: 'SENTINEL-a-wrong-secret-for-the-draft',
      Domain: 'example.test',
    };
    const saved = await browser.post(`${harness.app.url}/setup/portal/identity-provider`, form, {
      origin: harness.app.url,
    });
    expect(saved.status, await saved.clone().text()).to.equal(303);
    const stored = (await (await harness.api('GET', '/api/admin/connections/acme')).json()) as { version: number };
    expect(stored.version, 'the live version is unchanged').to.equal(versionBefore);

    // The draft's test fails at the provider (a wrong secret); the live version signs a person in meanwhile.
    token = await browser.csrf('/setup/portal/test');
    expect(await (await browser.get(`${harness.app.url}/setup/portal/test`)).text()).to.include(
      'This tests the change waiting',
    );
    const started = await browser.post(
      `${harness.app.url}/setup/portal/test`,
      { _csrf: token },
      { origin: harness.app.url },
    );
    const callback = await driveOidcLogin(started.headers.get('location') ?? '', 'admin', browser.jar);
    expect((await browser.get(callback.href, { accept: 'application/json' })).status).to.be.within(400, 599);
    const person = new TestBrowser();
    const discovered = await discover(person, harness.app.url, 'ada@example.test');
    const back = await driveOidcLogin(discovered.headers.get('location') ?? '', 'admin', person.jar);
    expect((await person.get(back.href)).status, 'the live version still signs people in').to.equal(302);
    const early = await browser.submit('/setup/portal/activate', {});
    expect(early.status, 'no passed test of the draft').to.equal(409);

    // The right secret, tested through the draft's own adapter: passed; activation stores it.
    token = await browser.csrf('/setup/portal/identity-provider');
    const fixed = { ...form, _csrf: token, ClientSecret: CLIENT_SECRET };
    expect(
      (await browser.post(`${harness.app.url}/setup/portal/identity-provider`, fixed, { origin: harness.app.url }))
        .status,
    ).to.equal(303);
    const again = await browser.submit('/setup/portal/test', {});
    const answered = await driveOidcLogin(again.headers.get('location') ?? '', 'admin', browser.jar);
    expect((await browser.get(answered.href)).headers.get('location')).to.equal('/setup/portal/test/result');
    const result = await (await browser.get(`${harness.app.url}/setup/portal/test/result`)).text();
    expect(result).to.include('Passed').and.include('This tested the change waiting for activation');
    const activated = await browser.submit('/setup/portal/activate', {});
    expect(activated.status).to.equal(303);
    const after = (await (await harness.api('GET', '/api/admin/connections/acme')).json()) as { version: number };
    expect(after.version).to.be.greaterThan(versionBefore);
    expect(await (await browser.get(`${harness.app.url}/setup/portal`)).text()).not.to.include(
      'A change of your identity provider',
    );
    expect(harness.app.logs.join('\n')).not.to.include('SENTINEL-a-wrong-secret-for-the-draft');
    await harness.api('DELETE', '/api/admin/connections/acme');
  });

  it('says in words when the identity provider refuses to start the test (a wrong client secret, pushed authorization)', async () => {
    const body = {
      ...harness.connection('acme', ['example.test'], { UsePushedAuthorization: true }),
      ClientSecret: 'SENTINEL-not-acme-client-secret',
      Activated: false,
    };
    expect((await harness.api('PUT', '/api/admin/connections/acme', body)).status).to.equal(201);
    const browser = await PortalBrowser.open(harness, 'acme');
    const refused = await browser.submit('/setup/portal/test', {});
    expect(refused.status).to.equal(502);
    const page = await refused.text();
    expect(page).to.include('did not let the test sign-in start').and.include('What it gave you');
    expect(page).not.to.include('SENTINEL-not-acme-client-secret');
    await harness.api('DELETE', '/api/admin/connections/acme');
  });

  it("links every portal page to the IT admin's help, each vendor's steps for each protocol it offers", async () => {
    const browser = await PortalBrowser.open(harness, 'acme');
    expect(await (await browser.get(`${harness.app.url}/setup/portal`)).text()).to.include('href="/setup/portal/help"');
    const help = await browser.get(`${harness.app.url}/setup/portal/help`);
    expect(help.status).to.equal(200);
    const page = await help.text();
    for (const vendor of [
      'Okta',
      'Microsoft Entra ID',
      'Google Workspace',
      'Active Directory Federation Services (ADFS)',
      'OneLogin',
      'JumpCloud',
      'PingFederate',
      'Keycloak',
    ])
      expect(page, vendor).to.include(`>${vendor}</h2>`);
    expect(page).to.include('<h3>SAML 2.0</h3>').and.include('<h3>OpenID Connect</h3>');
    expect((await fetch(`${harness.app.url}/setup/portal/help`)).status, 'behind the portal session').to.equal(401);
  });

  it("starts no test sign-in through a connection of the portal's name that is not its organization's", async () => {
    // An operator's hand-written file takes the name after the link was made: the portal does not test it.
    const browser = await PortalBrowser.open(harness, 'acme');
    writeFileSync(join(harness.folder, 'acme.json'), JSON.stringify(harness.connection('globex', ['globex.test'])));
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const refused = await browser.submit('/setup/portal/test', {});
    expect(refused.status).to.equal(409);
    expect(refused.headers.get('location')).to.equal(null);
    rmSync(join(harness.folder, 'acme.json'));
  });
});
