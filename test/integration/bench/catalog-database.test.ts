import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { newApiKey } from '../../../src/adapters/koa/api-keys.js';
import { catalogInstanceEnv, newCatalogDatabase, seedCatalog } from '../../../scripts/bench/catalog-database.js';
import { productionEnv } from '../../../scripts/bench/rows.js';
import { startPostgres, type PostgresServer } from '../../support/postgres-server.js';
import { startGatehouse, type RunningGatehouse } from '../../support/start-gatehouse.js';

/**
 * The bench's catalog (scripts/bench/catalog-database.ts) is what the administration API
 * would have stored: an instance on it, in the production posture, reads every entry (none
 * refused), opens the sealed secrets with the key, and routes each organization's domain
 * and, through its proved base, the wildcard's subdomains. Otherwise the bench would time
 * refusals.
 */
describe('the bench catalog of connections on PostgreSQL', function () {
  this.timeout(60_000);
  let database: PostgresServer;
  let url: string;
  let instance: RunningGatehouse | undefined;
  const keys = { apiKeyHash: newApiKey(randomBytes).hash, encryptionKey: randomBytes(32).toString('base64') };

  before(async () => {
    database = await startPostgres(17);
    url = await newCatalogDatabase(database.connectionString, 'bench_catalog');
    await seedCatalog(url, 4, keys.encryptionKey);
    instance = await startGatehouse({ ...productionEnv, ...catalogInstanceEnv(url, keys) });
  });
  after(async () => {
    await instance?.close();
    await database?.close();
  });

  it('holds every connection, none refused, each routing its domain and its subdomains', async () => {
    const providers = instance!.gatehouse.providers;
    expect(await providers.connectionReport()).to.deep.equal({
      'org-0': 'idle',
      'org-1': 'idle',
      'org-2': 'idle',
      'org-3': 'idle',
    });
    for (const index of [0, 1, 2, 3]) {
      expect(providers.connectionForDomain(`org-${index}.example`)?.name).to.equal(`org-${index}`);
      expect(providers.connectionForDomain(`eu.org-${index}.example`)?.name).to.equal(`org-${index}`);
    }
    expect(providers.connectionForDomain('nobody.example')).to.equal(undefined);
  });

  it('stores the OpenID Connect client secrets sealed, and the instance opens them', async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ secret: string }>(
        `SELECT keys ->> 'ClientSecret' AS secret FROM gatehouse_connections WHERE keys ->> 'Protocol' = 'OpenIdConnect'`,
      );
      expect(rows).to.have.length(2);
      for (const { secret } of rows) expect(secret).to.match(/^gh1\./);
    } finally {
      await client.end();
    }
    const opened = instance!.gatehouse.providers.connectionForDomain('org-1.example')?.settings as
      { ClientSecret?: unknown } | undefined;
    expect(opened?.ClientSecret)
      .to.be.a('string')
      .and.not.match(/^gh1\./);
  });
});
