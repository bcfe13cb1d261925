import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { COOKIE_POSTURE } from '../../../scripts/cookie-posture.js';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { CATALOG_MIGRATIONS, migrateCatalog } from '../../../src/adapters/postgres/migrate.js';
import { RecordingLogger } from './catalog-harness.js';
import { startPostgres, type PostgresServer } from '../../support/postgres-server.js';
import { exitOf, listeningUrl, spawnMain } from '../../support/run-main.js';
import { startGatehouse } from '../../support/start-gatehouse.js';
import { StartupError } from '../../../src/bootstrap/startup-error.js';

const projectRoot = fileURLToPath(new URL('../../..', import.meta.url));
/** A password in the URLs given: trust authentication ignores it, and no output may hold it. */
const PASSWORD = 'SENTINEL-migrations-password-3f9c';
/** Every migration of the project, by the name node-pg-migrate records. */
const MIGRATIONS = readdirSync(join(projectRoot, CATALOG_MIGRATIONS))
  .filter((file) => file.endsWith('.sql'))
  .map((file) => file.slice(0, -'.sql'.length))
  .sort();
/** The tables the migrations make (docs/operations.md, Migrations, grants them to the instances' role). */
const TABLES = [
  'gatehouse_connection_domains',
  'gatehouse_connections',
  'gatehouse_directory_changes',
  'gatehouse_directory_groups',
  'gatehouse_directory_members',
  'gatehouse_directory_sign_ins',
  'gatehouse_directory_tokens',
  'gatehouse_directory_users',
  'gatehouse_migrations',
];

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `npm run db:migrate` in the project root, as an operator's release step runs it: only `env`
 * besides PATH and HOME, and Gatehouse's built-in posture (it checks the whole configuration
 * first, and a project generated with a provider still waiting for its keys runs this suite too).
 */
async function dbMigrate(env: Record<string, string>): Promise<Run> {
  const child = spawn('npm', ['run', 'db:migrate'], {
    cwd: projectRoot,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...COOKIE_POSTURE, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await exitOf(child);
  return { code, stdout, stderr };
}

/** The server's database `name` (made when absent), its URL with the sentinel password. */
async function database(server: PostgresServer, name: string): Promise<string> {
  if (name !== 'gatehouse') await query(server.connectionString, `CREATE DATABASE ${name}`);
  return server.connectionString.replace('postgres@/gatehouse?', `postgres:${PASSWORD}@/${name}?`);
}

async function query(url: string, sql: string): Promise<Array<Record<string, unknown>>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

async function tablesOf(url: string): Promise<string[]> {
  const rows = await query(
    url,
    `SELECT table_name AS name FROM information_schema.tables
      WHERE table_schema = 'public' AND table_name LIKE 'gatehouse\\_%' ORDER BY table_name`,
  );
  return rows.map((row) => String(row.name));
}

describe('migrations, as an operator runs them (PostgreSQL 17)', function () {
  this.timeout(120_000);
  let server: PostgresServer;
  before(async () => {
    server = await startPostgres(17);
  });
  after(async () => server?.close());

  it('npm run db:migrate applies every migration to the database of DATABASE_URL, and a second run changes nothing', async () => {
    const url = await database(server, 'gatehouse');
    expect(await tablesOf(url)).to.deep.equal([]);

    const first = await dbMigrate({ DATABASE_URL: url });
    expect(first.code, first.stderr).to.equal(0);
    expect(first.stdout).to.include(`Applied ${MIGRATIONS.length} migrations: ${MIGRATIONS.join(', ')}`);
    expect(await tablesOf(url)).to.deep.equal(TABLES);
    const recorded = await query(url, 'SELECT name, run_on FROM gatehouse_migrations ORDER BY id');
    expect(recorded.map((row) => row.name)).to.deep.equal(MIGRATIONS);
    await query(
      url,
      `INSERT INTO gatehouse_connections (id, name, keys, version, updated_at)
       VALUES ('kept', 'Kept', '{"Organization": "kept"}', 1, now())`,
    );

    const second = await dbMigrate({ DATABASE_URL: url });
    expect(second.code, second.stderr).to.equal(0);
    expect(second.stdout).to.include('The connection catalog is up to date: no migration to apply.');
    expect(await query(url, 'SELECT name, run_on FROM gatehouse_migrations ORDER BY id')).to.deep.equal(recorded);
    expect(await query(url, 'SELECT name FROM gatehouse_connections')).to.deep.equal([{ name: 'Kept' }]);
    for (const run of [first, second]) expect(`${run.stdout}${run.stderr}`).not.to.include(PASSWORD);
  });

  it('reads ProjectTemplate__Database__ConnectionString before DATABASE_URL, as the application does', async () => {
    const url = await database(server, 'configured');
    const unused = await database(server, 'unused');
    const run = await dbMigrate({ ProjectTemplate__Database__ConnectionString: url, DATABASE_URL: unused });
    expect(run.code, run.stderr).to.equal(0);
    expect(await tablesOf(url)).to.deep.equal(TABLES);
    expect(await tablesOf(unused)).to.deep.equal([]);
  });

  it('exits 1 when the database cannot be reached, printing neither the URL nor its password', async () => {
    const run = await dbMigrate({
      DATABASE_URL: `postgresql://gatehouse:${PASSWORD}@/gatehouse?host=/nonexistent-socket-folder&port=5432`,
    });
    expect(run.code).to.equal(1);
    expect(run.stderr).to.include('The migrations were not applied');
    expect(`${run.stdout}${run.stderr}`).not.to.include(PASSWORD).and.not.include('nonexistent-socket-folder');
  });

  it('refuses to start with Database:Migrate false on a database never migrated, naming npm run db:migrate', async () => {
    const url = await database(server, 'never_migrated');
    const main = spawnMain({ DATABASE_URL: url, ProjectTemplate__Database__Migrate: 'false' });
    const listening = await listeningUrl(main.output, main.child, 30_000).catch(() => undefined);
    if (listening !== undefined) {
      main.child.kill('SIGKILL');
      expect.fail(`it started, at ${listening}, on a database without the catalog's tables`);
    }
    expect(await exitOf(main.child)).to.equal(1);
    const { stdout, stderr } = main.output();
    expect(stderr).to.include('ProjectTemplate:Database:Migrate').and.include('npm run db:migrate');
    expect(`${stdout}${stderr}`).not.to.include(PASSWORD);
    // Nothing was made: the instance does not migrate when told not to.
    expect(await tablesOf(url)).to.deep.equal([]);

    // Migrated, the same configuration starts, its catalog up.
    await migrateCatalog(url, new RecordingLogger(), projectRoot);
    const app = await startGatehouse({ DATABASE_URL: url, ProjectTemplate__Database__Migrate: 'false' });
    try {
      const ready = (await (await fetch(`${app.url}/health/ready`)).json()) as { checks: Record<string, string> };
      expect(ready.checks.connectionCatalog).to.equal('up');
    } finally {
      await app.close();
    }
  });

  it('refuses to start when the migrations at start fail and leave no tables (a role that may not create them)', async () => {
    const owner = await database(server, 'not_ours');
    await query(owner, 'CREATE ROLE reader LOGIN');
    const reader = owner.replace(`postgres:${PASSWORD}@`, `reader:${PASSWORD}@`);
    const refused = await startGatehouse({ DATABASE_URL: reader }).then(
      async (app) => {
        await app.close();
        return undefined;
      },
      (failure: unknown) => failure,
    );
    expect(refused, 'the start is refused').to.be.instanceOf(StartupError);
    const problems = (refused as StartupError).problems.map((problem) => `${problem.key} ${problem.message}`);
    expect(problems.join('\n'))
      .to.include('ProjectTemplate:Database:Migrate is true, but the migrations at start failed')
      .and.include('npm run db:migrate')
      .and.not.include(PASSWORD);
    expect(await tablesOf(owner)).to.deep.equal([]);
  });
});
