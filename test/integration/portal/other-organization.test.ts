import { expect } from 'chai';
import type { Endpoint } from '../../../src/adapters/koa/endpoint.js';
import { startAdminHarness, type AdminHarness } from '../../support/admin-api.js';
import { driveOidcLogin } from '../../support/drive-oidc-login.js';
import { TestBrowser } from '../../support/oidc-app.js';
import { startPostgres, type PostgresServer } from '../../support/postgres-server.js';
import { PortalBrowser, setupLinksPath } from '../../support/setup-portal.js';

const CONNECTIONS = '/api/admin/connections';
const scimTokensPath = (organization: string) => `/api/admin/organizations/${organization}/scim-tokens`;

/** A request of the sweep: method, path (query included) and JSON body; and the status it must get. */
interface Attempt {
  method: string;
  path: string;
  body?: unknown;
  status: number;
}

/**
 * One organization's setup portal, and the administration API, tried with another
 * organization's identifiers on every route they mount (read from the app's own endpoint
 * table: a new route needs its row here). Globex holds an activated connection with a
 * proved domain and a pending one whose TXT record is published, a SCIM token, an unspent
 * setup link and a refused sign-in attempt. Acme's portal sends globex's names, domains and
 * ids in every query and form field of every portal route, and the API is asked for acme's
 * things with globex's in their paths and bodies. Globex's connection, domains, tokens, link
 * and attempts stay as they were, no audit event names globex, and no answer shows what
 * globex's identity provider or DNS record holds.
 */
describe("the setup portal and the administration API: another organization's identifiers on every route", function () {
  this.timeout(120_000);
  let harness: AdminHarness;
  let database: PostgresServer;
  let globex: { linkId: string; linkUrl: string; scimTokenId: string; pendingRecord: string };

  /** What globex holds, as the API shows it, and whether its link still opens. */
  async function globexState(): Promise<Record<string, unknown>> {
    const read = async (path: string) => {
      const answer = await harness.api('GET', path);
      return { status: answer.status, body: await answer.text() };
    };
    return {
      connection: await read(`${CONNECTIONS}/globex`),
      attempts: await read(`${CONNECTIONS}/globex/attempts`),
      scimTokens: await read(scimTokensPath('globex')),
      link: (await fetch(globex.linkUrl)).status,
    };
  }

  /** What only globex's side holds: none of it may reach acme's portal or acme's answers. */
  const globexOnly = () => [
    harness.providers.get('globex')!.issuer,
    'globex-client',
    globex.pendingRecord,
    // Globex's refused attempt's code: acme has no attempts.
    'idp.domain_not_allowed',
  ];

  const globexAuditEvents = () =>
    harness.app.logs.filter((line) => line.includes('"audit":true') && line.includes('"organization":"globex"'));

  const routesOf = (filter: (endpoint: Endpoint) => boolean) =>
    harness.app.gatehouse.endpoints.filter(filter).map((endpoint) => `${endpoint.method} ${endpoint.path}`);

  before(async () => {
    database = await startPostgres(17);
    // Directory sync on (PostgreSQL): its portal step and its API's SCIM tokens are routes too.
    harness = await startAdminHarness(['acme', 'globex'], {
      DATABASE_URL: database.connectionString,
      ProjectTemplate__Authentication__ConnectionsDirectory: undefined,
      ProjectTemplate__Directory__Enabled: 'true',
    });
    const connect = async (name: string, domains: string[]) => {
      const written = await harness.api('PUT', `${CONNECTIONS}/${name}`, harness.connection(name, domains));
      expect(written.status, await written.clone().text()).to.equal(201);
      const view = (await written.json()) as { domains: Array<{ record: { name: string; value: string } }> };
      for (const { record } of view.domains) harness.dns.set(record.name, { txt: [[record.value]] });
      expect((await harness.api('POST', `${CONNECTIONS}/${name}/domains/${domains[0]}/verify`)).status).to.equal(200);
      return view.domains.map(({ record }) => record.value);
    };
    await connect('acme', ['example.test']);
    const [, pendingRecord] = await connect('globex', ['globex.test', 'globex-pending.test']);

    const made = await harness.api('POST', scimTokensPath('globex'));
    expect(made.status).to.equal(201);
    const link = await harness.api('POST', setupLinksPath('globex'), {});
    const { id: linkId, url: linkUrl } = (await link.json()) as { id: string; url: string };
    globex = {
      linkId,
      linkUrl,
      scimTokenId: ((await made.json()) as { id: string }).id,
      pendingRecord: pendingRecord!,
    };

    // A refused sign-in through globex's connection: the demo provider's admin is not at globex.test.
    const person = new TestBrowser();
    const challenge = await person.get(`${harness.app.url}/External/Challenge?provider=globex&returnUrl=%2F`);
    expect(challenge.status).to.equal(302);
    const callback = await driveOidcLogin(challenge.headers.get('location') ?? '', 'admin', person.jar);
    await person.get(callback.href, { accept: 'application/json' });
    expect((await globexState()).attempts).to.deep.include({ status: 200 });
    expect(JSON.stringify(await globexState())).to.include('idp.domain_not_allowed');
  });
  after(async () => {
    await harness?.close();
    await database?.close();
  });

  it("reaches none of globex's things from acme's portal, whatever each of its routes is sent", async () => {
    const before = await globexState();
    const eventsBefore = globexAuditEvents().length;
    const browser = await PortalBrowser.open(harness, 'acme');
    const identifiers = (domain: string) => ({
      organization: 'globex',
      Organization: 'globex',
      connection: 'globex',
      name: 'globex',
      domain,
      id: globex.scimTokenId,
      link: globex.linkId,
    });
    const routes = routesOf((endpoint) => endpoint.path.startsWith('/setup/'));
    expect(routes.length).to.be.greaterThan(15);
    // Globex's proved domain, then its pending one (its record published: it would verify);
    // ending the session comes last, once: every other route is tried from a live one.
    const attempts = [
      ...['globex.test', 'globex-pending.test'].flatMap((domain) =>
        routes.filter((route) => !route.endsWith('/end')).map((route) => ({ route, domain })),
      ),
      ...routes.filter((route) => route.endsWith('/end')).map((route) => ({ route, domain: 'globex.test' })),
    ];
    for (const { route, domain } of attempts) {
      const [method, pattern] = route.split(' ') as [string, string];
      // A link's path holds its token: globex's link id there is no token of anyone's.
      const path = pattern.replace(':token', globex.linkId);
      const url = `${harness.app.url}${path}?${new URLSearchParams(identifiers(domain))}`;
      const answer =
        method === 'GET'
          ? await browser.get(url)
          : await browser.post(
              url,
              { _csrf: await browser.csrf(), ...identifiers(domain) },
              { origin: harness.app.url },
            );
      const text = await answer.text();
      expect(answer.status, `${route} (${domain})`).to.be.below(500);
      for (const held of globexOnly()) expect(text, `${route} (${domain}) shows ${held}`).not.to.include(held);
      if (pattern.startsWith('/setup/link/')) expect(answer.status, route).to.equal(404);
    }
    expect(browser.signedIn).to.equal(false);
    expect(await globexState()).to.deep.equal(before);
    expect(globexAuditEvents()).to.have.length(eventsBefore);
  });

  it("changes and shows none of globex's things through acme's routes of the administration API", async () => {
    // Acme's portal may have made its tokens: room for one more, made below.
    const acmeTokens = (await (await harness.api('GET', scimTokensPath('acme'))).json()) as {
      tokens: Array<{ id: string }>;
    };
    for (const { id } of acmeTokens.tokens) await harness.api('DELETE', `${scimTokensPath('acme')}/${id}`);
    const before = await globexState();
    const eventsBefore = globexAuditEvents().length;
    // Each route of the API, asked for acme's things with globex's identifiers wherever a request can carry them.
    const sweep: Record<string, Attempt> = {
      'GET /api/admin/openapi.json': {
        method: 'GET',
        path: '/api/admin/openapi.json?organization=globex',
        status: 200,
      },
      'GET /api/admin/connections': { method: 'GET', path: `${CONNECTIONS}?organization=acme`, status: 200 },
      'GET /api/admin/connections/:name': {
        method: 'GET',
        path: `${CONNECTIONS}/acme?organization=globex&name=globex`,
        status: 200,
      },
      'GET /api/admin/connections/:name/domains': {
        method: 'GET',
        path: `${CONNECTIONS}/acme/domains?organization=globex&domain=globex.test`,
        status: 200,
      },
      // Published on the DNS, globex's pending domain would verify: not through acme's connection.
      'POST /api/admin/connections/:name/domains/:domain/verify': {
        method: 'POST',
        path: `${CONNECTIONS}/acme/domains/globex-pending.test/verify`,
        status: 404,
      },
      'DELETE /api/admin/connections/:name/domains/:domain': {
        method: 'DELETE',
        path: `${CONNECTIONS}/acme/domains/globex.test`,
        status: 404,
      },
      'GET /api/admin/connections/:name/attempts': {
        method: 'GET',
        path: `${CONNECTIONS}/acme/attempts?organization=globex&connection=globex`,
        status: 200,
      },
      'GET /api/admin/connections/:name/certificates': {
        method: 'GET',
        path: `${CONNECTIONS}/acme/certificates?organization=globex&connection=globex`,
        status: 200,
      },
      'POST /api/admin/organizations/:organization/setup-links': {
        method: 'POST',
        path: setupLinksPath('acme'),
        body: { connection: 'globex' },
        status: 409,
      },
      'DELETE /api/admin/organizations/:organization/setup-links/:id': {
        method: 'DELETE',
        path: `${setupLinksPath('acme')}/${globex.linkId}`,
        status: 404,
      },
      'GET /api/admin/organizations/:organization/scim-tokens': {
        method: 'GET',
        path: `${scimTokensPath('acme')}?organization=globex`,
        status: 200,
      },
      'POST /api/admin/organizations/:organization/scim-tokens': {
        method: 'POST',
        path: `${scimTokensPath('acme')}?organization=globex`,
        status: 201,
      },
      'DELETE /api/admin/organizations/:organization/scim-tokens/:id': {
        method: 'DELETE',
        path: `${scimTokensPath('acme')}/${globex.scimTokenId}`,
        status: 404,
      },
      // Acme's connection given globex's proved domain: refused, it is globex's.
      'PUT /api/admin/connections/:name': {
        method: 'PUT',
        path: `${CONNECTIONS}/acme?organization=globex`,
        body: { ...harness.connection('acme', ['example.test', 'globex.test']) },
        status: 409,
      },
      // Turned off and removed last: acme's connection, never globex's.
      'PATCH /api/admin/connections/:name': {
        method: 'PATCH',
        path: `${CONNECTIONS}/acme?organization=globex&name=globex`,
        body: { Enabled: false },
        status: 200,
      },
      'DELETE /api/admin/connections/:name': {
        method: 'DELETE',
        path: `${CONNECTIONS}/acme?organization=globex&name=globex`,
        status: 204,
      },
    };
    expect(Object.keys(sweep).sort()).to.deep.equal(
      routesOf((endpoint) => endpoint.path.startsWith('/api/admin')).sort(),
    );
    for (const [route, { method, path, body, status }] of Object.entries(sweep)) {
      const answer = await harness.api(method, path, body);
      const text = await answer.text();
      expect(answer.status, `${route}: ${text}`).to.equal(status);
      for (const held of [...globexOnly(), globex.scimTokenId]) {
        expect(text, `${route} shows ${held}`).not.to.include(held);
      }
      // What acme's reads list is acme's: no domain of globex's (a refusal may name the domain it was sent).
      if (method === 'GET') expect(text, route).not.to.match(/globex(-pending)?\.test/);
    }
    expect(await globexState()).to.deep.equal(before);
    expect(globexAuditEvents()).to.have.length(eventsBefore);
  });
});
