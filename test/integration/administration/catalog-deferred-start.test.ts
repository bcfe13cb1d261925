import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { newCatalogDatabase, seedCatalog } from '../../../scripts/bench/catalog-database.js';
import { newApiKey } from '../../../src/adapters/koa/api-keys.js';
import { SecretSealer } from '../../../src/adapters/secrets/secret-sealer.js';
import { startPostgres, type PostgresServer } from '../../support/postgres-server.js';
import { startGatehouse, type RunningGatehouse } from '../../support/start-gatehouse.js';

const ENTRIES = 4_000;
const SECRET = 'SENTINEL-deferred-start-client-secret-5b1e';

interface Readiness {
  status: string;
  connections: Record<string, string>;
  connectionCounts: Record<string, number>;
}

/**
 * An instance starting on a PostgreSQL catalog of thousands of entries is ready before it
 * has checked them all: each is checked in the background, or at once where a request
 * needs it, and every answer is the one a start checking them all in order gives. Two
 * entries written with SQL break a rule against an earlier entry (a domain it proved, its
 * identity provider) and sort last, so a lookup reaches them long before the background.
 */
describe('the PostgreSQL catalog at start: entries checked after the instance is ready', function () {
  this.timeout(90_000);
  let database: PostgresServer;
  let instance: RunningGatehouse | undefined;
  let url: string;
  const encryptionKey = randomBytes(32).toString('base64');

  before(async () => {
    database = await startPostgres(17);
    url = await newCatalogDatabase(database.connectionString, 'deferred_start');
    await seedCatalog(url, ENTRIES, encryptionKey);
    const sealer = new SecretSealer([encryptionKey]);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const write = async (name: string, domains: string[], authority: string) => {
        const keys = {
          Protocol: 'OpenIdConnect',
          Organization: name,
          Domains: domains,
          Authority: authority,
          ClientId: `${name}-client`,
          ClientSecret: sealer.seal(SECRET, { connection: name, field: 'ClientSecret' }),
        };
        await client.query(
          `INSERT INTO gatehouse_connections (id, name, keys, version, updated_at) VALUES ($1, $1, $2, 1, now())`,
          [name, JSON.stringify(keys)],
        );
        for (const domain of domains)
          await client.query(
            `INSERT INTO gatehouse_connection_domains (connection_id, domain, token, verified_at, misses)
             VALUES ($1, $2, 'token-of-the-test-0000', now(), 0)`,
            [name, domain],
          );
      };
      // org-7's domain, proved again by another organization's entry.
      await write('zz-thief', ['org-7.example', 'thief.example'], 'https://login.thief.example');
      // org-1's identity provider (OpenID Connect: seedCatalog alternates), in another spelling.
      await write('zz-same-idp', ['same-idp.example'], 'HTTPS://LOGIN.ORG-1.EXAMPLE/tenant/v2.0/');
    } finally {
      await client.end();
    }
  });
  after(async () => {
    await instance?.close();
    await database?.close();
  });

  it('is ready with entries pending, answers lookups as checking them in order would, then refuses and logs the two', async () => {
    instance = await startGatehouse({
      DATABASE_URL: url,
      ProjectTemplate__Administration__Enabled: 'true',
      ProjectTemplate__Administration__ApiKeys__0: newApiKey(randomBytes).hash,
      ProjectTemplate__Administration__EncryptionKeys__0: encryptionKey,
    });
    const readiness = async (): Promise<Readiness> => {
      const answer = await fetch(`${instance!.url}/health/ready`);
      expect(answer.status).to.equal(200);
      return (await answer.json()) as Readiness;
    };
    const first = await readiness();
    expect(first.connectionCounts.pending).to.be.above(0);
    expect(first.connections['zz-thief']).to.equal('pending');

    const providers = instance.gatehouse.providers;
    // Found first, the later entries still meet the earlier ones that refuse them.
    expect(providers.connectionForDomain('thief.example')).to.equal(undefined);
    expect(providers.connectionForDomain('team.org-7.example')?.name).to.equal('org-7');
    expect(providers.connectionNamed('zz-same-idp')).to.equal(undefined);
    expect(providers.connectionNamed('org-1')?.name).to.equal('org-1');

    const started = Date.now();
    let last = first;
    while (last.connectionCounts.pending !== undefined) {
      if (Date.now() - started > 30_000) throw new Error('entries still pending after 30 s');
      await new Promise((resolve) => setTimeout(resolve, 50));
      last = await readiness();
    }
    expect(last.connections['zz-thief']).to.equal('refused');
    expect(last.connections['zz-same-idp']).to.equal('refused');
    expect(last.connectionCounts).to.deep.equal({ idle: ENTRIES, refused: 2 });

    const logs = instance.logs.join('\n');
    expect(logs).to.include('"key":"database:zz-thief:Domains:0"');
    expect(logs).to.include('"key":"database:zz-same-idp:Authority"');
    expect(logs).to.match(/"connection":"zz-thief".*a connection declaration was refused/);
    expect(logs).to.match(/"connections":4000,"refused":2.*connections read from the catalog at start are checked/);
    // Checked after the start, an entry is no more announced than one checked during it.
    expect(logs).not.to.include('connection added');
    expect(logs).not.to.include(SECRET);
  });
});
