import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Logger } from '../../src/application/ports/logger.js';
import { migrateCatalog } from '../../src/adapters/postgres/migrate.js';
import { SecretSealer } from '../../src/adapters/secrets/secret-sealer.js';
import { connectionFile } from './connection-folder.js';
import { projectRoot } from './dist-modules.js';

/** The field of a connection's keys that holds a secret here (its OpenID Connect client secret). */
const SEALED_FIELD = 'ClientSecret';
const silent: Logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * A new database `name` beside the one `connectionString` names, on the same server, with
 * the catalog's tables (migrateCatalog, as an instance's start runs it): its URL.
 */
export async function newCatalogDatabase(connectionString: string, name: string): Promise<string> {
  await withClient(connectionString, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = connectionString.replace(/\/[^/?]+\?/, `/${name}?`);
  await migrateCatalog(url, silent, projectRoot);
  return url;
}

/**
 * Writes `count` connections into a migrated catalog, in one transaction, as the
 * administration API stores them: the keys of the folder's files (connection-folder.ts:
 * SAML2 and OpenID Connect alternating, `org-<index>`), the client secret sealed under
 * `encryptionKey` for its connection and field, and each organization's domain verified
 * (its wildcard routes through it), so that every one routes. Plain SQL rather than the
 * API: 10,000 writes through it would ask the DNS and each identity provider 10,000 times.
 */
export async function seedCatalog(connectionString: string, count: number, encryptionKey: string): Promise<void> {
  const sealer = new SecretSealer([encryptionKey]);
  const connections: Array<{ id: string; name: string; keys: Record<string, unknown> }> = [];
  const domains: Array<{ id: string; domain: string; token: string; verified: boolean }> = [];
  for (let index = 0; index < count; index++) {
    const name = `org-${index}`;
    const keys = connectionFile(name, index);
    const secret = keys[SEALED_FIELD];
    if (typeof secret === 'string') keys[SEALED_FIELD] = sealer.seal(secret, { connection: name, field: SEALED_FIELD });
    connections.push({ id: name, name, keys });
    for (const domain of keys.Domains as string[]) {
      // A wildcard has no record of its own (domain-proofs.ts): its base domain's proves it.
      const wildcard = domain.startsWith('*.');
      domains.push({
        id: name,
        domain,
        token: wildcard ? '' : randomBytes(16).toString('base64url'),
        verified: !wildcard,
      });
    }
  }
  await withClient(connectionString, async (client) => {
    await client.query('BEGIN');
    // The organization column is the server's, computed from the keys.
    await client.query(
      `INSERT INTO gatehouse_connections (id, name, keys, version, updated_at)
       SELECT r ->> 'id', r ->> 'name', r -> 'keys', 1, now() FROM jsonb_array_elements($1::jsonb) AS r`,
      [JSON.stringify(connections)],
    );
    await client.query(
      `INSERT INTO gatehouse_connection_domains (connection_id, domain, token, verified_at, checked_at, misses)
       SELECT r ->> 'id', r ->> 'domain', r ->> 'token',
              CASE WHEN (r ->> 'verified')::boolean THEN now() END, CASE WHEN (r ->> 'verified')::boolean THEN now() END, 0
         FROM jsonb_array_elements($1::jsonb) AS r`,
      [JSON.stringify(domains)],
    );
    await client.query('COMMIT');
    // As autovacuum would have by the time a catalog had grown this large through the API.
    await client.query('ANALYZE gatehouse_connections; ANALYZE gatehouse_connection_domains');
  });
}

async function withClient<T>(connectionString: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * The settings of an instance on the catalog at `url`, as a deployment writing it through
 * the administration API has them: the API on, one API key (its hash), one encryption key.
 */
export function catalogInstanceEnv(url: string, keys: { apiKeyHash: string; encryptionKey: string }) {
  return {
    DATABASE_URL: url,
    ProjectTemplate__Administration__Enabled: 'true',
    ProjectTemplate__Administration__ApiKeys__0: keys.apiKeyHash,
    ProjectTemplate__Administration__EncryptionKeys__0: keys.encryptionKey,
  };
}
