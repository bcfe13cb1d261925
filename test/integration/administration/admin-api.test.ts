import { expect } from 'chai';
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REQUESTS_PER_CLIENT } from '../../../src/application/administration/administration-limits.js';
import { auditEvents, discover, eventually } from '../../support/connection-app.js';
import { driveOidcLogin } from '../../support/drive-oidc-login.js';
import { TestBrowser } from '../../support/oidc-app.js';
import { CLIENT_SECRET, ENCRYPTION_KEY, startAdminHarness, type AdminHarness } from '../../support/admin-api.js';

const CONNECTIONS = '/api/admin/connections';
/** A second sentinel client secret, given when a connection is changed: no output may hold it either. */
const CHANGED_SECRET = 'SENTINEL-admin-api-changed-secret-8d2a';

/** Publishes the record the API answered for `domain` on the harness's DNS server. */
function publish(harness: AdminHarness, record: { name: string; value: string }): void {
  harness.dns.set(record.name, { txt: [[record.value]] });
}

/** The names of a page of `GET /api/admin/connections` at `query`. */
async function listed(harness: AdminHarness, query: string): Promise<string[]> {
  const response = await harness.api('GET', `${CONNECTIONS}?${query}`);
  expect(response.status, query).to.equal(200);
  const page = (await response.json()) as { connections: Array<{ name: string }> };
  return page.connections.map((connection) => connection.name);
}

describe('administration API over the folder catalog', function () {
  this.timeout(30_000);
  let harness: AdminHarness;
  before(async () => {
    harness = await startAdminHarness(['Acme', 'Globex']);
  });
  after(async () => harness?.close());
  afterEach(async () => {
    // Each test starts from an empty catalog (the operator's file goes when the folder's poll sees it gone).
    for (const name of ['Acme', 'Globex']) await harness.api('DELETE', `${CONNECTIONS}/${name}`);
    rmSync(join(harness.folder, 'Handmade.json'), { force: true });
  });

  it('refuses a caller without a key, or with a wrong one, with 401 problem details', async () => {
    const none = await fetch(`${harness.app.url}${CONNECTIONS}`);
    expect(none.status).to.equal(401);
    expect(none.headers.get('content-type')).to.include('application/problem+json');
    const wrong = await harness.api('GET', CONNECTIONS, undefined, { authorization: 'Bearer gh_not-a-key' });
    expect(wrong.status).to.equal(401);
    expect(((await wrong.json()) as { code: string }).code).to.equal('auth.api_key_invalid');
    const basic = await harness.api('GET', CONNECTIONS, undefined, { authorization: 'Basic YTpi' });
    expect(basic.status).to.equal(401);
    expect(harness.app.logs.join('\n')).not.to.include('gh_not-a-key');
  });

  it('creates a connection whose secret is stored sealed and never answered, with its domain unverified', async () => {
    const created = await harness.api('PUT', `${CONNECTIONS}/Acme`, harness.connection('acme', ['Example.TEST']));
    expect(created.status).to.equal(201);
    expect(created.headers.get('etag')).to.equal('"1"');
    const text = await created.text();
    expect(text).not.to.include(CLIENT_SECRET);
    const view = JSON.parse(text) as Record<string, any>;
    expect(view).to.include({ name: 'Acme', version: 1, managedBy: 'api', state: 'in-force' });
    expect(view.secretsSet).to.deep.equal(['ClientSecret']);
    expect(view.keys).not.to.have.property('ClientSecret');
    expect(view.domains).to.have.length(1);
    const [domain] = view.domains;
    expect(domain).to.include({ domain: 'example.test', verified: false, verifiedAt: null });
    expect(domain.record.name).to.equal('_gatehouse-challenge.example.test');
    expect(domain.record.value).to.match(/^gatehouse-domain-verification=[A-Za-z0-9_-]{22}$/);

    const file = readFileSync(join(harness.folder, 'Acme.json'), 'utf8');
    expect(file).not.to.include(CLIENT_SECRET);
    expect(JSON.parse(file).ClientSecret).to.match(/^gh1\./);
    expect(JSON.parse(file).$catalog).to.include({ writtenBy: 'administration-api', version: 1 });
    expect(readdirSync(harness.folder).filter((name) => name.endsWith('.tmp'))).to.deep.equal([]);

    const read = await harness.api('GET', `${CONNECTIONS}/acme`);
    expect(read.status).to.equal(200);
    expect(await read.text()).not.to.include(CLIENT_SECRET);
    const created_ = auditEvents(harness.app.logs, 'connection.created').at(-1);
    expect(created_).to.include({ actor: `api-key:${harness.apiKeyId}`, connection: 'Acme', organization: 'acme' });
    expect(created_?.fields).to.include('ClientSecret').and.include('Authority');
    expect(auditEvents(harness.app.logs, 'domain.added').at(-1)).to.include({ domain: 'example.test' });
    expect(harness.app.logs.join('\n')).not.to.include(CLIENT_SECRET);
  });

  it('routes nobody through an unverified domain, and signs people in once its TXT record is found', async () => {
    const created = (await (
      await harness.api('PUT', `${CONNECTIONS}/Acme`, harness.connection('acme', ['example.test']))
    ).json()) as { domains: Array<{ record: { name: string; value: string } }> };
    const record = created.domains[0]!.record;

    // Unverified: discovery knows no connection for the domain, and a sign-in started by name is refused.
    const browser = new TestBrowser();
    expect((await discover(browser, harness.app.url, 'ada@example.test')).status).to.equal(404);
    const challenge = await browser.get(`${harness.app.url}/External/Challenge?provider=Acme&returnUrl=%2F`);
    const callback = await driveOidcLogin(challenge.headers.get('location') ?? '', 'admin', browser.jar);
    const refused = await browser.get(callback.href, { accept: 'application/json' });
    expect(refused.status).to.equal(403);
    expect(((await refused.json()) as { code: string }).code).to.equal('idp.domain_not_verified');
    expect(browser.sessionToken(harness.app.url)).to.equal(undefined);

    // No record yet: 422 with the record to publish, and nothing changes.
    const missing = await harness.api('POST', `${CONNECTIONS}/Acme/domains/example.test/verify`);
    expect(missing.status).to.equal(422);
    const problem = (await missing.json()) as { code: string; record: { name: string; value: string } };
    expect(problem.code).to.equal('domain.record_missing');
    expect(problem.record).to.deep.include(record);

    // A record with another token, or on a look-alike name, proves nothing.
    harness.dns.set(record.name, { txt: [['gatehouse-domain-verification=AAAAAAAAAAAAAAAAAAAAAA']] });
    harness.dns.set(`${record.name}.evil.test`, { txt: [[record.value]] });
    expect((await harness.api('POST', `${CONNECTIONS}/Acme/domains/example.test/verify`)).status).to.equal(422);

    publish(harness, record);
    const verified = await harness.api('POST', `${CONNECTIONS}/Acme/domains/example.test/verify`);
    expect(verified.status).to.equal(200);
    expect(await verified.json()).to.include({ domain: 'example.test', verified: true });
    expect(auditEvents(harness.app.logs, 'domain.verified').at(-1)).to.include({
      domain: 'example.test',
      connection: 'Acme',
    });

    const found = await discover(new TestBrowser(), harness.app.url, 'ada@example.test');
    expect(found.status).to.equal(302);
    const signIn = new TestBrowser();
    const start = await discover(signIn, harness.app.url, 'ada@example.test');
    const back = await driveOidcLogin(start.headers.get('location') ?? '', 'admin', signIn.jar);
    expect((await signIn.get(back.href)).status).to.equal(302);
    const me = await signIn.get(`${harness.app.url}/api/organizations/acme/app-info`, { accept: 'application/json' });
    expect(me.status).to.equal(200);
  });

  it('keeps a domain proved through a replace that keeps it, and lets no other organization take it (409)', async () => {
    const created = (await (
      await harness.api('PUT', `${CONNECTIONS}/Acme`, harness.connection('acme', ['example.test']))
    ).json()) as { domains: Array<{ record: { name: string; value: string } }> };
    publish(harness, created.domains[0]!.record);
    expect((await harness.api('POST', `${CONNECTIONS}/Acme/domains/example.test/verify`)).status).to.equal(200);

    const replaced = await harness.api(
      'PUT',
      `${CONNECTIONS}/Acme`,
      harness.connection('acme', ['example.test', 'acme.test'], { DisplayName: 'Acme Corp' }),
    );
    expect(replaced.status).to.equal(200);
    const view = (await replaced.json()) as { version: number; domains: Array<{ domain: string; verified: boolean }> };
    expect(view.version).to.equal(3);
    expect(view.domains.map((domain) => [domain.domain, domain.verified])).to.deep.equal([
      ['example.test', true],
      ['acme.test', false],
    ]);

    // Globex, another organization, claims Acme's proved domain, or a subdomain under a wildcard.
    const taken = await harness.api('PUT', `${CONNECTIONS}/Globex`, harness.connection('globex', ['example.test']));
    expect(taken.status).to.equal(409);
    expect(((await taken.json()) as { code: string }).code).to.equal('domain.taken');
    const wildcard = await harness.api(
      'PUT',
      `${CONNECTIONS}/Globex`,
      harness.connection('globex', ['*.example.test']),
    );
    expect(wildcard.status).to.equal(409);
    // An unproved domain blocks nobody: Globex may add acme.test, which Acme has not proved.
    const pending = await harness.api('PUT', `${CONNECTIONS}/Globex`, harness.connection('globex', ['acme.test']));
    expect(pending.status).to.equal(201);
    expect((await harness.api('GET', `${CONNECTIONS}/Globex`)).status).to.equal(200);
  });

  it('refuses a write based on an old version with 409, and creates only with If-None-Match', async () => {
    await harness.api('PUT', `${CONNECTIONS}/Acme`, harness.connection('acme', ['example.test']));
    const first = await harness.api(
      'PUT',
      `${CONNECTIONS}/Acme`,
      harness.connection('acme', ['example.test'], { DisplayName: 'A' }),
      {
        'if-match': '"1"',
      },
    );
    expect(first.status).to.equal(200);
    const stale = await harness.api(
      'PUT',
      `${CONNECTIONS}/Acme`,
      harness.connection('acme', ['example.test'], { DisplayName: 'B' }),
      {
        'if-match': '"1"',
      },
    );
    expect(stale.status).to.equal(409);
    expect(await stale.json()).to.include({ code: 'connection.version_conflict', currentVersion: 2 });
    const again = await harness.api('PUT', `${CONNECTIONS}/Acme`, harness.connection('acme', ['example.test']), {
      'if-none-match': '*',
    });
    expect(again.status).to.equal(409);
    expect(
      ((await (await harness.api('GET', `${CONNECTIONS}/Acme`)).json()) as { keys: { DisplayName: string } }).keys
        .DisplayName,
    ).to.equal('A');
  });

  it('refuses a connection whose provider does not answer as declared (422 naming the key), storing nothing', async () => {
    const body = harness.connection('acme', ['example.test'], { Authority: `${harness.provider.issuer}/nowhere` });
    const refused = await harness.api('PUT', `${CONNECTIONS}/Acme`, body);
    expect(refused.status).to.equal(422);
    const problem = (await refused.json()) as { code: string; problems: Array<{ key: string; message: string }> };
    expect(problem.code).to.equal('connection.preflight_failed');
    expect(problem.problems.map((item) => item.key)).to.include('Authority');
    expect(JSON.stringify(problem)).not.to.include(CLIENT_SECRET);
    expect(readdirSync(harness.folder)).to.deep.equal([]);
  });

  it('refuses unknown keys, files named for secrets, and a deployment grant, naming each key (422)', async () => {
    for (const extra of [{ Colour: 'blue' }, { ClientSecretFile: '/etc/passwd' }, { GrantsDeploymentRoles: true }]) {
      const refused = await harness.api(
        'PUT',
        `${CONNECTIONS}/Acme`,
        harness.connection('acme', ['example.test'], extra),
      );
      expect(refused.status, JSON.stringify(extra)).to.equal(422);
      const problem = (await refused.json()) as { problems: Array<{ key: string }> };
      expect(problem.problems.map((item) => item.key).join(' ')).to.include(Object.keys(extra)[0]);
    }
    expect(readdirSync(harness.folder)).to.deep.equal([]);
  });

  it('turns a connection off and on with PATCH, and removes it with DELETE', async () => {
    const created = (await (
      await harness.api('PUT', `${CONNECTIONS}/Acme`, harness.connection('acme', ['example.test']))
    ).json()) as { domains: Array<{ record: { name: string; value: string } }> };
    publish(harness, created.domains[0]!.record);
    await harness.api('POST', `${CONNECTIONS}/Acme/domains/example.test/verify`);
    const off = await harness.api('PATCH', `${CONNECTIONS}/Acme`, { Enabled: false });
    expect(off.status).to.equal(200);
    expect(await off.json()).to.include({ state: 'disabled' });
    expect((await discover(new TestBrowser(), harness.app.url, 'ada@example.test')).status).to.equal(404);
    const on = await harness.api('PATCH', `${CONNECTIONS}/Acme`, { Enabled: true });
    expect(await on.json()).to.include({ state: 'in-force' });
    expect((await discover(new TestBrowser(), harness.app.url, 'ada@example.test')).status).to.equal(302);
    expect((await harness.api('PATCH', `${CONNECTIONS}/Acme`, { Enabled: 'maybe', Other: 1 })).status).to.equal(422);

    const removed = await harness.api('DELETE', `${CONNECTIONS}/Acme`);
    expect(removed.status).to.equal(204);
    expect(readdirSync(harness.folder)).to.deep.equal([]);
    expect((await harness.api('GET', `${CONNECTIONS}/Acme`)).status).to.equal(404);
    expect(auditEvents(harness.app.logs, 'connection.removed').at(-1)).to.include({ connection: 'Acme' });
  });

  it('removes one domain of a connection (204), audited as domain.removed, and refuses to remove its last (422)', async () => {
    const created = (await (
      await harness.api('PUT', `${CONNECTIONS}/Acme`, harness.connection('acme', ['example.test', 'acme.test']))
    ).json()) as { domains: Array<{ domain: string; record: { name: string; value: string } }> };
    publish(harness, created.domains.find((domain) => domain.domain === 'example.test')!.record);
    expect((await harness.api('POST', `${CONNECTIONS}/Acme/domains/example.test/verify`)).status).to.equal(200);
    expect((await discover(new TestBrowser(), harness.app.url, 'ada@example.test')).status).to.equal(302);

    const removed = await harness.api('DELETE', `${CONNECTIONS}/Acme/domains/Example.TEST`);
    expect(removed.status).to.equal(204);
    const domains = (await (await harness.api('GET', `${CONNECTIONS}/Acme/domains`)).json()) as Array<{
      domain: string;
    }>;
    expect(domains.map((domain) => domain.domain)).to.deep.equal(['acme.test']);
    const file = JSON.parse(readFileSync(join(harness.folder, 'Acme.json'), 'utf8')) as { Domains: string[] };
    expect(file.Domains).to.deep.equal(['acme.test']);
    // The removed domain routes nobody any more, though it was proved.
    expect((await discover(new TestBrowser(), harness.app.url, 'ada@example.test')).status).to.equal(404);
    expect(auditEvents(harness.app.logs, 'domain.removed').at(-1)).to.include({
      actor: `api-key:${harness.apiKeyId}`,
      connection: 'Acme',
      organization: 'acme',
      domain: 'example.test',
    });

    // The last domain stays: a connection without one routes nobody, and is removed as a whole instead.
    const removals = auditEvents(harness.app.logs, 'domain.removed').length;
    const last = await harness.api('DELETE', `${CONNECTIONS}/Acme/domains/acme.test`);
    expect(last.status).to.equal(422);
    expect(last.headers.get('content-type')).to.include('application/problem+json');
    expect(((await last.json()) as { code: string }).code).to.equal('domain.last');
    const kept = (await (await harness.api('GET', `${CONNECTIONS}/Acme`)).json()) as { keys: { Domains: string[] } };
    expect(kept.keys.Domains).to.deep.equal(['acme.test']);
    expect(auditEvents(harness.app.logs, 'domain.removed')).to.have.length(removals);

    const absent = await harness.api('DELETE', `${CONNECTIONS}/Acme/domains/nowhere.test`);
    expect(absent.status).to.equal(404);
    expect(((await absent.json()) as { code: string }).code).to.equal('domain.not_found');
  });

  it('audits a change as connection.changed with the names of the keys changed, never a secret, and a dropped domain as domain.removed', async () => {
    await harness.api('PUT', `${CONNECTIONS}/Acme`, harness.connection('acme', ['example.test', 'acme.test']));
    const changed = await harness.api(
      'PUT',
      `${CONNECTIONS}/Acme`,
      harness.connection('acme', ['example.test'], { DisplayName: 'Acme Corp', ClientSecret: CHANGED_SECRET }),
    );
    expect(changed.status).to.equal(200);
    const event = auditEvents(harness.app.logs, 'connection.changed').at(-1);
    expect(event).to.include({ actor: `api-key:${harness.apiKeyId}`, connection: 'Acme', organization: 'acme' });
    // A secret given again counts as changed (its sealed value is new), by its name only.
    expect(event?.fields).to.deep.equal(['ClientSecret', 'DisplayName', 'Domains']);
    expect(auditEvents(harness.app.logs, 'domain.removed').at(-1)).to.include({
      connection: 'Acme',
      domain: 'acme.test',
    });

    // A change that leaves the secret out keeps it, and names only what changed.
    await harness.api('PUT', `${CONNECTIONS}/Acme`, {
      ...harness.connection('acme', ['example.test'], { DisplayName: 'Acme Inc' }),
      ClientSecret: undefined,
    });
    expect(auditEvents(harness.app.logs, 'connection.changed').at(-1)?.fields).to.deep.equal(['DisplayName']);
    expect((await harness.api('PATCH', `${CONNECTIONS}/Acme`, { Enabled: false })).status).to.equal(200);
    expect(auditEvents(harness.app.logs, 'connection.changed').at(-1)?.fields).to.deep.equal(['Enabled']);

    const audit = harness.app.logs.filter((line) => line.includes('"audit":true'));
    for (const secret of [CLIENT_SECRET, CHANGED_SECRET, 'gh1.']) expect(audit.join('\n')).not.to.include(secret);
    expect(harness.app.logs.join('\n')).not.to.include(CHANGED_SECRET);
  });

  it("lists the API's and the operator's connections by name, in pages, and keeps the operator's read-only", async () => {
    writeFileSync(
      join(harness.folder, 'Handmade.json'),
      JSON.stringify(harness.connection('handmade', ['handmade.test'])),
    );
    await harness.api('PUT', `${CONNECTIONS}/Acme`, harness.connection('acme', ['example.test']));
    await harness.api('PUT', `${CONNECTIONS}/Globex`, harness.connection('globex', ['globex.test']));
    // The folder's poll reads the hand-written file within its period.
    let names: string[] = [];
    for (let tries = 0; tries < 40 && !names.includes('Handmade'); tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const page = (await (await harness.api('GET', `${CONNECTIONS}?limit=100`)).json()) as {
        connections: Array<{ name: string }>;
      };
      names = page.connections.map((connection) => connection.name);
    }
    expect(names).to.deep.equal(['Acme', 'Globex', 'Handmade']);
    const first = (await (await harness.api('GET', `${CONNECTIONS}?limit=2`)).json()) as {
      connections: Array<{ name: string }>;
      next: string;
    };
    expect(first.connections.map((connection) => connection.name)).to.deep.equal(['Acme', 'Globex']);
    const second = (await (await harness.api('GET', `${CONNECTIONS}?limit=2&cursor=${first.next}`)).json()) as {
      connections: Array<{ name: string; managedBy: string; domains: Array<{ verified: unknown }> }>;
      next?: string;
    };
    expect(second.connections.map((connection) => connection.name)).to.deep.equal(['Handmade']);
    expect(second.next).to.equal(undefined);
    expect(second.connections[0]).to.include({ managedBy: 'operator' });
    expect(second.connections[0]!.domains[0]).to.include({ verified: 'operator' });
    const byOrganization = (await (await harness.api('GET', `${CONNECTIONS}?organization=globex`)).json()) as {
      connections: Array<{ name: string }>;
    };
    expect(byOrganization.connections.map((connection) => connection.name)).to.deep.equal(['Globex']);
    const edit = await harness.api('PUT', `${CONNECTIONS}/Handmade`, harness.connection('handmade', ['handmade.test']));
    expect(edit.status).to.equal(409);
    expect(((await edit.json()) as { code: string }).code).to.equal('connection.operator_owned');
    expect((await harness.api('DELETE', `${CONNECTIONS}/Handmade`)).status).to.equal(409);
    expect((await harness.api('GET', `${CONNECTIONS}?limit=0`)).status).to.equal(422);
  });

  it("lists the connections routing a domain with domain=, the operator's included, in any letter case", async () => {
    writeFileSync(
      join(harness.folder, 'Handmade.json'),
      JSON.stringify(harness.connection('handmade', ['handmade.test'])),
    );
    await harness.api('PUT', `${CONNECTIONS}/Acme`, harness.connection('acme', ['example.test', 'acme.test']));
    await harness.api('PUT', `${CONNECTIONS}/Globex`, harness.connection('globex', ['globex.test']));
    await eventually('the hand-written file is read', async () =>
      (await listed(harness, 'limit=100')).includes('Handmade'),
    );

    expect(await listed(harness, 'domain=acme.test')).to.deep.equal(['Acme']);
    expect(await listed(harness, 'domain=GLOBEX.Test')).to.deep.equal(['Globex']);
    expect(await listed(harness, 'domain=handmade.test')).to.deep.equal(['Handmade']);
    expect(await listed(harness, 'domain=nowhere.test')).to.deep.equal([]);
    // A domain is matched whole: neither a part of one nor a subdomain of one.
    expect(await listed(harness, 'domain=test')).to.deep.equal([]);
    expect(await listed(harness, 'domain=www.example.test')).to.deep.equal([]);
    expect(await listed(harness, 'domain=example.test&organization=globex')).to.deep.equal([]);
    expect(await listed(harness, 'domain=example.test&organization=acme')).to.deep.equal(['Acme']);
  });

  it('serves an OpenAPI 3.1 document naming every endpoint of the API, and nothing else', async () => {
    const document = (await (await harness.api('GET', '/api/admin/openapi.json')).json()) as {
      openapi: string;
      paths: Record<string, Record<string, unknown>>;
    };
    expect(document.openapi).to.equal('3.1.0');
    const documented = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const served = harness.app.gatehouse.endpoints
      .filter((endpoint) => endpoint.path.startsWith('/api/admin/'))
      .map((endpoint) => `${endpoint.method} ${endpoint.path.replace(/:(\w+)/g, '{$1}')}`);
    expect(documented.sort()).to.deep.equal(served.sort());
    expect(served).to.include.members([
      'GET /api/admin/openapi.json',
      'GET /api/admin/connections',
      'GET /api/admin/connections/{name}',
      'PUT /api/admin/connections/{name}',
      'PATCH /api/admin/connections/{name}',
      'DELETE /api/admin/connections/{name}',
      'GET /api/admin/connections/{name}/domains',
      'POST /api/admin/connections/{name}/domains/{domain}/verify',
      'DELETE /api/admin/connections/{name}/domains/{domain}',
    ]);
  });
});

describe('administration API without an encryption key', function () {
  this.timeout(30_000);
  let harness: AdminHarness;
  before(async () => {
    harness = await startAdminHarness(['Acme'], { ProjectTemplate__Administration__EncryptionKeys__0: undefined });
  });
  after(async () => harness?.close());

  it('refuses a secret with a clear problem, and stores nothing in the clear', async () => {
    const refused = await harness.api('PUT', `${CONNECTIONS}/Acme`, harness.connection('acme', ['example.test']));
    expect(refused.status).to.equal(422);
    expect(((await refused.json()) as { code: string }).code).to.equal('secrets.no_encryption_key');
    expect(readdirSync(harness.folder)).to.deep.equal([]);
    expect(ENCRYPTION_KEY).to.be.a('string');
  });
});

describe('administration API: the general limit per client', function () {
  this.timeout(60_000);
  let harness: AdminHarness;
  before(async () => {
    // Behind the trusted proxy, each request names its client in X-Forwarded-For.
    harness = await startAdminHarness(['Acme'], { ProjectTemplate__Hosting__TrustProxy: 'true' });
  });
  after(async () => harness?.close());

  const from = async (client: string) => {
    const response = await harness.api('GET', CONNECTIONS, undefined, { 'x-forwarded-for': client });
    return { status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.text() };
  };

  it(`answers a client's first ${REQUESTS_PER_CLIENT} requests in a window, and 429 with Retry-After past them, to that client only`, async () => {
    for (let index = 1; index <= REQUESTS_PER_CLIENT; index += 1) {
      const answered = await from('203.0.113.7');
      if (answered.status !== 200) expect.fail(`request ${index} answered ${answered.status}`);
    }
    const limited = await from('203.0.113.7');
    expect(limited.status).to.equal(429);
    expect(Number(limited.retryAfter)).to.be.within(1, 600);
    expect((JSON.parse(limited.body) as { code: string }).code).to.equal('admin.too_many_requests');
    // A write from the limited client is refused before it reaches the catalog.
    const write = await harness.api('PUT', `${CONNECTIONS}/Acme`, harness.connection('acme', ['example.test']), {
      'x-forwarded-for': '203.0.113.7',
    });
    expect(write.status).to.equal(429);
    expect(readdirSync(harness.folder)).to.deep.equal([]);
    // Another client, with the same key, goes on.
    expect((await from('203.0.113.8')).status).to.equal(200);
    expect((await from('203.0.113.7')).status).to.equal(429);
  });
});
