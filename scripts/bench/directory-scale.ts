/**
 * `npm run bench`'s measurements of directory sync at scale (BENCH_EXTRAS=directory, only
 * when named: it takes minutes): one organization's 100,000 users and 5,000 groups pushed
 * over SCIM by an initial sync shaped like Okta's, against the compiled Gatehouse in a
 * process of its own (directory-instance.ts, alone on the server core, so its memory and
 * CPU are its own) on a throwaway PostgreSQL 17 (scripts/local-postgres/, on the load
 * generator's core).
 *
 * - The initial sync (directory-sync.ts): each user looked up by userName, then created;
 *   each group looked up by displayName, created, and its members added by PATCH;
 *   BENCH_DIRECTORY_CONCURRENCY requests in flight (8 by default). Its time, requests per
 *   second, and the CPU per request of the instance and of PostgreSQL.
 * - Every user read back a page at a time, as Okta's import does (directory-paging.ts):
 *   `GET /Users?startIndex=N&count=100` one request at a time, then the same with pages of
 *   1,000 (the most a client may ask for). Its time, each page's, and the CPU per request.
 * - Filtered lookups at 100,000 (directory-lookups.ts): userName, externalId and e-mail
 *   filters, one at a time, median and 99th percentile.
 * - One PATCH adding 10,000 members to a group and one removing them (directory-membership.ts).
 * - The instance's memory after a warm-up on another organization (2,000 users and 100
 *   groups, the same code run first), after the sync once the instance is idle, and at the
 *   end: what it holds after full collections, and its resident memory (also at each tenth
 *   of the users).
 *
 * BENCH_DIRECTORY_USERS and BENCH_DIRECTORY_GROUPS change the counts (a shorter run while
 * working; the table in docs/performance.md is at 100,000 and 5,000).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { newApiKey } from '../../src/adapters/koa/api-keys.js';
import { startPostgres, type PostgresServer } from '../local-postgres/postgres-server.js';
import { catalogInstanceEnv, newCatalogDatabase, seedCatalog } from './catalog-database.js';
import { untilHolding } from './catalog-instances.js';
import { newScimToken, ScimClient } from './directory-client.js';
import { filteredLookups, type LookupTiming } from './directory-lookups.js';
import { bigMembershipChange, type MembershipChange } from './directory-membership.js';
import { pageThroughUsers, type DirectoryPaging } from './directory-paging.js';
import { untilIdle } from './directory-process-readings.js';
import { initialSync, type DirectorySync } from './directory-sync.js';
import { spawnNode, stop, waitForLine } from './processes.js';

const USERS = Number(process.env.BENCH_DIRECTORY_USERS ?? 100_000);
const GROUPS = Number(process.env.BENCH_DIRECTORY_GROUPS ?? 5_000);
const CONCURRENCY = Number(process.env.BENCH_DIRECTORY_CONCURRENCY ?? 8);
/** The warm-up's organization and size: the code paths run before the memory is first read. */
const WARM_UP = { organization: 'org-1', users: 2_000, groups: 100 };
const MEASURED = 'org-0';
/** The longest the instance may stay busy after its answers (role refreshes) before the bench gives up. */
const IDLE_WITHIN_MS = 600_000;

export interface DirectoryScale {
  postgres: string;
  users: number;
  groups: number;
  sync: DirectorySync;
  /** After the sync's last answer, how long the instance and PostgreSQL stayed busy (the members' role refreshes), milliseconds. */
  busyAfterSyncMs: number;
  /** Every user read back, by pages of 100 (Okta's import), then of 1,000. */
  paging: DirectoryPaging[];
  lookups: LookupTiming[];
  membership: MembershipChange;
  /** The instance's memory after the warm-up, after the sync (once idle), and at the end. */
  memory: { before: InstanceMemory; afterSync: InstanceMemory; end: InstanceMemory };
}

/** What the instance holds after full collections (heap used and external), and its resident memory, bytes. */
export interface InstanceMemory {
  heapUsed: number;
  external: number;
  rss: number;
}

interface DirectoryInstance {
  url: string;
  pid: number | undefined;
  memory(): Promise<InstanceMemory>;
  stop(): Promise<void>;
}

/** The measurements, or why there are none: PostgreSQL could not start here. */
export async function measureDirectoryScale(): Promise<DirectoryScale | { skip: string }> {
  process.stdout.write(' directory ');
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
    const encryptionKey = randomBytes(32).toString('base64');
    const url = await newCatalogDatabase(server.connectionString, 'directory');
    // Two organizations, each with a connection (a token is made only for one that has).
    await seedCatalog(url, 2, encryptionKey);
    const instance = await startDirectoryInstance({
      ...catalogInstanceEnv(url, { apiKeyHash, encryptionKey }),
      ProjectTemplate__Directory__Enabled: 'true',
      // One token sends the whole sync: the per-token limit is not what is measured.
      ProjectTemplate__Directory__RequestsPerMinute: String(100_000_000),
    });
    try {
      await untilHolding(instance, 2);
      return await measure(instance, apiKey, server);
    } finally {
      await instance.stop();
    }
  } finally {
    await server.close();
  }
}

/** scripts/bench/directory-instance.ts on the server core, once it listens. */
async function startDirectoryInstance(env: Record<string, string>): Promise<DirectoryInstance> {
  const child = spawnNode(['--expose-gc', '--import', 'tsx', 'scripts/bench/directory-instance.ts'], env);
  try {
    const [line] = await waitForLine(child, /^\{"url":.*\}$/, 60_000);
    const { url } = JSON.parse(line) as { url: string };
    return {
      url,
      pid: child.pid,
      memory: async () => {
        const answer = waitForLine(child, /^\{"heapUsed":.*\}$/, 30_000);
        child.kill('SIGUSR2');
        return JSON.parse((await answer)[0]) as InstanceMemory;
      },
      stop: () => stop(child),
    };
  } catch (error) {
    await stop(child);
    throw error;
  }
}

async function measure(instance: DirectoryInstance, apiKey: string, server: PostgresServer): Promise<DirectoryScale> {
  const pid = instance.pid;
  const clientOf = async (organization: string) => {
    const { baseUrl, token } = await newScimToken(instance.url, apiKey, organization);
    return new ScimClient(baseUrl, token, CONCURRENCY);
  };
  const target = (client: ScimClient, organization: string) => ({
    client,
    domain: `${organization}.example`,
    instancePid: pid,
    postgresFolder: server.socketFolder,
    concurrency: CONCURRENCY,
  });

  const warmUp = await clientOf(WARM_UP.organization);
  await initialSync(target(warmUp, WARM_UP.organization), WARM_UP.users, WARM_UP.groups);
  warmUp.close();
  await untilIdle(pid, server.socketFolder, IDLE_WITHIN_MS);
  const before = await instance.memory();

  const client = await clientOf(MEASURED);
  try {
    const { sync, userIds } = await initialSync(target(client, MEASURED), USERS, GROUPS);
    const busyAfterSyncMs = Math.round(await untilIdle(pid, server.socketFolder, IDLE_WITHIN_MS));
    const afterSync = await instance.memory();
    const paging = await pageThroughUsers(client, userIds, pid, server.socketFolder);
    const lookups = await filteredLookups(client, `${MEASURED}.example`, USERS, pid);
    const membership = await bigMembershipChange(client, userIds, pid, server.socketFolder);
    return {
      postgres: await versionOf(server.connectionString),
      users: USERS,
      groups: GROUPS,
      sync,
      busyAfterSyncMs,
      paging,
      lookups,
      membership,
      memory: { before, afterSync, end: await instance.memory() },
    };
  } finally {
    client.close();
  }
}

async function versionOf(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ server_version: string }>('SHOW server_version')).rows[0]?.server_version ?? 'unknown';
  } finally {
    await client.end();
  }
}
