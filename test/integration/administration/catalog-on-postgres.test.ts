import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { startDemoIdentityProvider, type DemoIdentityProvider } from '../../../scripts/demo-identity-provider.js';
import { newApiKey } from '../../../src/adapters/koa/api-keys.js';
import { adminApi } from '../../support/admin-api.js';
import { discover } from '../../support/connection-app.js';
import { driveOidcLogin } from '../../support/drive-oidc-login.js';
import { LoopbackDns } from '../../support/loopback-dns.js';
import { freePort, TestBrowser } from '../../support/oidc-app.js';
import { startPostgres, type PostgresServer } from '../../support/postgres-server.js';
import { startGatehouse, type RunningGatehouse } from '../../support/start-gatehouse.js';
import { within } from '../../support/within.js';

const SECRET = 'SENTINEL-postgres-catalog-client-secret-0d4a';
const CONNECTIONS = '/api/admin/connections';

/**
 * Two instances of Gatehouse on one PostgreSQL database (a real server the test starts), the
 * administration API on both: what one writes, the other serves within 2 s; the database
 * stopped, sign-ins through known connections go on, writes answer 503, readiness says the
 * catalog is degraded and stays ready; the database back, changes flow within 5 s.
 */
describe('the connection catalog on PostgreSQL, two instances', function () {
  this.timeout(90_000);
  let database: PostgresServer;
  let provider: DemoIdentityProvider;
  let dns: LoopbackDns;
  let a: RunningGatehouse;
  let b: RunningGatehouse;
  const { key, hash } = newApiKey(randomBytes);
  const encryptionKey = randomBytes(32).toString('base64');

  const api = (app: RunningGatehouse, method: string, path: string, body?: unknown, headers = {}) =>
    adminApi(app.url, key)(method, path, body, headers);

  before(async () => {
    database = await startPostgres(17);
    dns = await LoopbackDns.start();
    const ports = [await freePort(), await freePort()];
    provider = await startDemoIdentityProvider({
      clients: [
        {
          clientId: 'acme-client',
          clientSecret: SECRET,
          redirectUris: ports.map((port) => `http://127.0.0.1:${port}/connections/acme/signin-oidc`),
          postLogoutRedirectUris: ports.map((port) => `http://127.0.0.1:${port}/`),
        },
      ],
    });
    const instance = (port: number) =>
      startGatehouse(
        {
          ProjectTemplate__Hosting__PublicOrigin: `http://127.0.0.1:${port}`,
          ProjectTemplate__Authentication__HttpTimeoutSeconds: '2',
          ProjectTemplate__Session__PendingSignInsPerClient: '1000',
          // Set as hosting platforms set it: the name without a dot survives every shell.
          DATABASE_URL: database.connectionString,
          ProjectTemplate__Administration__Enabled: 'true',
          ProjectTemplate__Administration__ApiKeys__0: hash,
          ProjectTemplate__Administration__EncryptionKeys__0: encryptionKey,
          ProjectTemplate__Administration__AllowPrivateNetworks: 'true',
          ProjectTemplate__Administration__DnsServers__0: dns.address,
        },
        { port },
      );
    a = await instance(ports[0]!);
    b = await instance(ports[1]!);
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await provider?.close();
    await dns?.close();
    await database?.close();
  });

  it('serves on one instance, within 2 s, what the other wrote, and refuses a write based on a stale version', async () => {
    const body = {
      Protocol: 'OpenIdConnect',
      Organization: 'acme',
      Domains: ['example.test'],
      Authority: provider.issuer,
      ClientId: 'acme-client',
      ClientSecret: SECRET,
      UsePushedAuthorization: false,
    };
    const created = await api(a, 'PUT', `${CONNECTIONS}/Acme`, body);
    expect(created.status).to.equal(201);
    const view = (await created.json()) as { domains: Array<{ record: { name: string; value: string } }> };
    // B's registry (what its sign-ins use) holds it: its readiness lists the connection by name.
    const seen = await within(2_000, 'B holds the connection', async () => {
      const report = await b.gatehouse.providers.connectionReport();
      return report?.Acme !== undefined;
    });
    expect(seen).to.be.below(2_000);

    // The domain proved through A routes on B within 2 s.
    const record = view.domains[0]!.record;
    dns.set(record.name, { txt: [[record.value]] });
    expect((await api(a, 'POST', `${CONNECTIONS}/Acme/domains/example.test/verify`)).status).to.equal(200);
    await within(2_000, 'B routes the proved domain', async () => {
      return (await discover(new TestBrowser(), b.url, 'ada@example.test')).status === 302;
    });

    // Two writers based on version 2, one through each instance: one wins, the other is told.
    const [first, second] = await Promise.all([
      api(a, 'PUT', `${CONNECTIONS}/Acme`, { ...body, DisplayName: 'From A' }, { 'if-match': '"2"' }),
      api(b, 'PUT', `${CONNECTIONS}/Acme`, { ...body, DisplayName: 'From B' }, { 'if-match': '"2"' }),
    ]);
    expect([first.status, second.status].sort()).to.deep.equal([200, 409]);
    const logs = [...a.logs, ...b.logs].join('\n');
    expect(logs).not.to.include(SECRET);
    expect(logs).not.to.include(database.socketFolder);
  });

  it('keeps signing people in while the database is down, answers writes 503, and flows again once it is back', async () => {
    await within(2_000, 'B routes the domain', async () => {
      return (await discover(new TestBrowser(), b.url, 'ada@example.test')).status === 302;
    });
    await database.stop();
    try {
      // A sign-in through the connection B already knows goes through.
      const browser = new TestBrowser();
      const started = await discover(browser, b.url, 'ada@example.test');
      expect(started.status).to.equal(302);
      const callback = await driveOidcLogin(started.headers.get('location') ?? '', 'admin', browser.jar);
      expect((await browser.get(callback.href)).status).to.equal(302);
      const me = await browser.get(`${b.url}/api/organizations/acme/app-info`, { accept: 'application/json' });
      expect(me.status).to.equal(200);

      const write = await api(a, 'PATCH', `${CONNECTIONS}/Acme`, { Enabled: true });
      expect(write.status).to.equal(503);
      expect(write.headers.get('content-type')).to.include('application/problem+json');
      expect(((await write.json()) as { code: string }).code).to.equal('catalog.unavailable');

      const ready = await fetch(`${b.url}/health/ready`);
      expect(ready.status).to.equal(200);
      expect(((await ready.json()) as { checks: Record<string, string> }).checks.connectionCatalog).to.equal(
        'degraded',
      );
    } finally {
      await database.start();
    }
    // Back: a change made through A reaches B within 5 s of the database's return.
    const back = Date.now();
    await within(5_000, 'A writes again', async () => {
      const off = await api(a, 'PATCH', `${CONNECTIONS}/Acme`, { Enabled: false });
      return off.status === 200;
    });
    await within(5_000 - (Date.now() - back), 'B stops routing the disabled connection', async () => {
      return (await discover(new TestBrowser(), b.url, 'ada@example.test')).status === 404;
    });
    // Readiness says `up` once B listens again too (a change can reach it first through the
    // re-read that follows the database's return, its listener reconnecting on its own time).
    await within(10_000, "B's readiness reports the catalog up", async () => {
      const ready = (await (await fetch(`${b.url}/health/ready`)).json()) as { checks: Record<string, string> };
      return ready.checks.connectionCatalog === 'up';
    });
  });
});
