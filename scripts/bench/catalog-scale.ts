/**
 * `npm run bench`'s measurements of the connection catalog on PostgreSQL
 * (BENCH_EXTRAS=catalog): 10,000 connections in the database against one (or ten), in the
 * same run, on a throwaway PostgreSQL 17 the bench starts (scripts/local-postgres/, a Unix
 * socket only; it runs on the load generator's core, apart from the instances'). Each
 * catalog is migrated as an instance's start migrates it and filled with SQL as the
 * administration API stores entries (catalog-database.ts: the folder's connections, SAML2
 * and OpenID Connect alternating, secrets sealed, each domain verified).
 *
 * - Cold start of the bundle to a ready `/health/ready` with 10,000 connections in the
 *   catalog against 1, the two alternating, 11 each, with the CPU used until then.
 * - Memory per idle connection: heap and external memory grown while a running instance
 *   adds 10,000 entries written into its catalog (scripts/bench/catalog-memory.ts).
 * - Finding a connection by e-mail domain with 10 and with 10,000 connections read from a
 *   catalog (scripts/bench/catalog-discovery.ts).
 * - Two instances on the 10,000: a page of 100 of `GET /api/admin/connections`, first and
 *   from the middle, 50 of each; five connections turned off through one, each timed until
 *   the other's registry has let it go (catalog-instances.ts).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { newApiKey } from '../../src/adapters/koa/api-keys.js';
import { startPostgres, type PostgresServer } from '../local-postgres/postgres-server.js';
import { catalogInstanceEnv, newCatalogDatabase, seedCatalog } from './catalog-database.js';
import {
  changeDelays,
  pageTimes,
  startInstance,
  untilHolding,
  type ChangeDelays,
  type PageTiming,
} from './catalog-instances.js';
import { coldStartOnce, meanOf, median, type Start } from './cold-start.js';
import { jsonLineOf } from './processes.js';
import type { ConnectionScale } from './connection-scale.js';

const CATALOG_CONNECTIONS = 10_000;
const FEW_CONNECTIONS = 10;
const COLD_STARTS = 11;
/** The connections turned off through one instance while the other is watched, spread over the catalog. */
const CHANGED = ['org-1000', 'org-3000', 'org-5000', 'org-7000', 'org-9000'];

export interface CatalogScale extends ConnectionScale {
  /** PostgreSQL's version, and the count of connections measured against one (or ten). */
  postgres: string;
  connections: number;
  /** A page of 100 from the administration API at 10,000: the first, and after the 5,000th name. */
  pages: { first: PageTiming; middle: PageTiming };
  change: ChangeDelays;
}

/** The measurements, or why there are none: PostgreSQL could not start here (another platform than linux-x64's binaries). */
export async function measureCatalogScale(): Promise<CatalogScale | { skip: string }> {
  process.stdout.write(' catalog ');
  let server: PostgresServer;
  try {
    server = await startPostgres(17);
  } catch (error) {
    return {
      skip: `PostgreSQL 17 did not start: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
    };
  }
  try {
    const { key: apiKey, hash: apiKeyHash } = newApiKey(randomBytes);
    const keys = { apiKeyHash, encryptionKey: randomBytes(32).toString('base64') };
    const catalog = async (name: string, count: number) => {
      const url = await newCatalogDatabase(server.connectionString, name);
      if (count > 0) await seedCatalog(url, count, keys.encryptionKey);
      return url;
    };
    const one = catalogInstanceEnv(await catalog('catalog_one', 1), keys);
    const few = await catalog('catalog_few', FEW_CONNECTIONS);
    const manyUrl = await catalog('catalog_many', CATALOG_CONNECTIONS);
    const many = catalogInstanceEnv(manyUrl, keys);
    const growing = catalogInstanceEnv(await catalog('catalog_growing', 0), keys);

    const oneStarts: Start[] = [];
    const manyStarts: Start[] = [];
    for (let run = 0; run < COLD_STARTS; run++) {
      oneStarts.push(await coldStartOnce([], { env: one }));
      manyStarts.push(await coldStartOnce([], { env: many }));
      process.stdout.write('.');
    }
    const memory = await jsonLineOf<CatalogScale['memory']>(
      ['scripts/bench/catalog-memory.ts', String(CATALOG_CONNECTIONS)],
      growing,
      300_000,
    );
    const discovery = await jsonLineOf<CatalogScale['discovery']>(
      ['scripts/bench/catalog-discovery.ts', String(FEW_CONNECTIONS), few, String(CATALOG_CONNECTIONS), manyUrl],
      catalogInstanceEnv(few, keys),
      300_000,
    );
    const { pages, change } = await twoInstances(many, apiKey, await middleId(manyUrl));
    return {
      postgres: await versionOf(server.connectionString),
      connections: CATALOG_CONNECTIONS,
      coldStart: {
        oneMedianMs: round1(median(oneStarts.map((start) => start.ms))),
        oneCpuMeanMs: cpuMean(oneStarts),
        manyMedianMs: round1(median(manyStarts.map((start) => start.ms))),
        manyCpuMeanMs: cpuMean(manyStarts),
        manyRunsMs: manyStarts.map((start) => round1(start.ms)),
      },
      memory,
      discovery,
      pages,
      change,
    };
  } finally {
    await server.close();
  }
}

/** A and B on the 10,000: the pages through A, then A's changes as B sees them. */
async function twoInstances(
  env: Record<string, string>,
  apiKey: string,
  middle: string,
): Promise<Pick<CatalogScale, 'pages' | 'change'>> {
  const a = await startInstance(env);
  try {
    const b = await startInstance(env);
    try {
      await untilHolding(a, CATALOG_CONNECTIONS);
      await untilHolding(b, CATALOG_CONNECTIONS);
      const pages = { first: await pageTimes(a, apiKey), middle: await pageTimes(a, apiKey, middle) };
      return { pages, change: await changeDelays(a, b, apiKey, CHANGED, CATALOG_CONNECTIONS) };
    } finally {
      await b.stop();
    }
  } finally {
    await a.stop();
  }
}

/** The 5,000th id in the list's order: the cursor of a page from the middle. */
async function middleId(url: string): Promise<string> {
  const rows = await query<{ id: string }>(url, 'SELECT id FROM gatehouse_connections ORDER BY id OFFSET $1 LIMIT 1', [
    CATALOG_CONNECTIONS / 2 - 1,
  ]);
  if (!rows[0]) throw new Error('the catalog has no middle');
  return rows[0].id;
}

async function versionOf(url: string): Promise<string> {
  const rows = await query<{ server_version: string }>(url, 'SHOW server_version');
  return rows[0]?.server_version ?? 'unknown';
}

async function query<T extends object>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

function cpuMean(starts: readonly Start[]): number | undefined {
  const mean = meanOf(starts.map((start) => start.cpuMs));
  return mean === undefined ? undefined : round1(mean);
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}
