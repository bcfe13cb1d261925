import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { migrateCatalog } from '../../../src/adapters/postgres/migrate.js';
import type { Queryable } from '../../../src/adapters/postgres/directory-feed.js';
import { findGroups, findUsers } from '../../../src/adapters/postgres/directory-pages.js';
import { selectSignInMatch, selectUser } from '../../../src/adapters/postgres/directory-users.js';
import { selectGroup } from '../../../src/adapters/postgres/directory-groups.js';
import { directoryPool } from '../../../src/adapters/postgres/directory-pool.js';
import { startPostgres, type PostgresServer } from '../../support/postgres-server.js';
import { RecordingLogger } from '../postgres/catalog-harness.js';

const projectRoot = fileURLToPath(new URL('../../..', import.meta.url));
const KNOWN = 'org-known';
/** An organization the table's statistics have never seen: one during its initial sync. */
const NEW = 'org-new';

/**
 * The plans PostgreSQL makes for the store's lookups while its statistics do not know the
 * organization (they were gathered before its 20,000 users came): each lookup by a key goes
 * through that key's index, never through a walk of the organization's rows in the order
 * of creation, which such statistics make look as cheap (it grew with the organization:
 * 20 ms a lookup at 10,000 users). The store's statements are explained as it sends them.
 */
describe('PostgresDirectoryStore plans on an organization its statistics do not know (PostgreSQL 17)', function () {
  this.timeout(120_000);
  let server: PostgresServer;
  let sql: pg.Client;
  let someone: string;
  let someGroup: string;

  before(async () => {
    server = await startPostgres(17);
    await migrateCatalog(server.connectionString, new RecordingLogger(), projectRoot);
    sql = new pg.Client({ connectionString: server.connectionString });
    await sql.connect();
    const users = (organization: string, count: number) =>
      sql.query(
        `INSERT INTO gatehouse_directory_users (id, organization, attributes, version, created, last_modified)
         SELECT gen_random_uuid(), $1, jsonb_build_object('userName', 'user' || i || '@example.test', 'externalId', 'ext-' || i,
                  'active', true, 'emails', jsonb_build_array(jsonb_build_object('value', 'person' || i || '@example.test'))),
                1, now(), now()
           FROM generate_series(1, $2::integer) i`,
        [organization, count],
      );
    const groups = (organization: string, count: number) =>
      sql.query(
        `INSERT INTO gatehouse_directory_groups (id, organization, attributes, version, created, last_modified)
         SELECT gen_random_uuid(), $1, jsonb_build_object('displayName', 'Group ' || i, 'externalId', 'g-' || i), 1, now(), now()
           FROM generate_series(1, $2::integer) i`,
        [organization, count],
      );
    await users(KNOWN, 50_000);
    await groups(KNOWN, 5_000);
    await sql.query('ANALYZE gatehouse_directory_users; ANALYZE gatehouse_directory_groups');
    await users(NEW, 20_000);
    await groups(NEW, 2_000);
    someone = (
      await sql.query<{ id: string }>('SELECT id FROM gatehouse_directory_users WHERE organization = $1 LIMIT 1', [NEW])
    ).rows[0]!.id;
    someGroup = (
      await sql.query<{ id: string }>('SELECT id FROM gatehouse_directory_groups WHERE organization = $1 LIMIT 1', [
        NEW,
      ])
    ).rows[0]!.id;
  });
  after(async () => {
    await sql?.end();
    await server?.close();
  });

  /** The indexes the plan of the store's statement reads (EXPLAIN of what `run` sends, with its values). */
  const indexesRead = async (run: (db: Queryable) => Promise<unknown>): Promise<string[]> => {
    const plans: string[] = [];
    const explaining = {
      query: async (statement: string | { text: string }, values?: unknown[]) => {
        const text = typeof statement === 'string' ? statement : statement.text;
        const { rows } = await sql.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) ${text}`, values);
        plans.push(JSON.stringify(rows[0]?.['QUERY PLAN']));
        return { rows: [], rowCount: 0 };
      },
    } as unknown as Queryable;
    await run(explaining);
    return [...plans.join('\n').matchAll(/"Index Name":"([a-z_]+)"/g)].map((match) => match[1]!);
  };
  const page = { startIndex: 1, count: 100 };

  /**
   * The most rows any step of the plan of `run`'s statement carried whole (with their
   * attributes), as it ran (EXPLAIN ANALYZE VERBOSE): a count of rows, not a time. The
   * total's count is left out: it must see every match, and its scan hands the aggregate
   * each row as stored, building none.
   */
  const mostWholeRows = async (run: (db: Queryable) => Promise<unknown>): Promise<number> => {
    type Step = {
      'Node Type': string;
      Output?: string[];
      'Actual Rows': number;
      'Actual Loops': number;
      Plans?: Step[];
    };
    let most = 0;
    const visit = (step: Step): void => {
      if (step['Node Type'] === 'Aggregate') return;
      if (step.Output?.some((column) => /\battributes\b/.test(column)))
        most = Math.max(most, step['Actual Rows'] * step['Actual Loops']);
      step.Plans?.forEach(visit);
    };
    const explaining = {
      query: async (statement: string | { text: string }, values?: unknown[]) => {
        const text = typeof statement === 'string' ? statement : statement.text;
        const { rows } = await sql.query<{ 'QUERY PLAN': Array<{ Plan: Step }> }>(
          `EXPLAIN (ANALYZE, VERBOSE, FORMAT JSON) ${text}`,
          values,
        );
        visit(rows[0]!['QUERY PLAN'][0]!.Plan);
        return { rows: [], rowCount: 0 };
      },
    } as unknown as Queryable;
    await run(explaining);
    return most;
  };

  for (const [name, filter, index] of [
    ['userName eq', { op: 'eq', attribute: 'userName', value: 'missing@example.test' }, /_users_user_name/],
    ['externalId eq', { op: 'eq', attribute: 'externalId', value: 'ext-404' }, /_users_external_id$/],
    ['emails.value eq', { op: 'eq', attribute: 'emails.value', value: 'Person7@example.test' }, /_users_emails$/],
    [
      'emails[value eq]',
      {
        op: 'has',
        attribute: 'emails',
        filter: { op: 'eq', attribute: 'emails.value', value: 'person7@example.test' },
      },
      /_users_emails$/,
    ],
  ] as const) {
    it(`finds users by ${name} through the key's index, never the organization's order of creation`, async () => {
      const read = await indexesRead((db) => findUsers(db, NEW, { ...page, filter }));
      expect(read).to.not.include('gatehouse_directory_users_created');
      expect(
        read.some((used) => index.test(used)),
        read.join(', '),
      ).to.equal(true);
    });
  }

  it('matches a sign-in through the indexes of userName, externalId and e-mails', async () => {
    const who = { subjects: ['user7@example.test', 'ext-7'], emails: ['person7@example.test'] };
    const read = await indexesRead((db) => selectSignInMatch(db, NEW, who));
    expect(read).to.not.include('gatehouse_directory_users_created');
    for (const index of [/_users_user_name/, /_users_external_id$/, /_users_emails$/])
      expect(
        read.some((used) => index.test(used)),
        `${index}: ${read.join(', ')}`,
      ).to.equal(true);
  });

  it('reads a user by id through its primary key', async () => {
    expect(await indexesRead((db) => selectUser(db, NEW, someone))).to.deep.equal(['gatehouse_directory_users_pkey']);
  });

  it('finds groups by displayName eq through its index, and reads one by id through its primary key', async () => {
    const filter = { op: 'eq', attribute: 'displayName', value: 'Group 77' } as const;
    const read = await indexesRead((db) => findGroups(db, NEW, { ...page, filter }));
    expect(read).to.not.include('gatehouse_directory_groups_created');
    expect(read).to.include('gatehouse_directory_groups_display_name');
    expect(await indexesRead((db) => selectGroup(db, NEW, someGroup))).to.deep.equal([
      'gatehouse_directory_groups_pkey',
    ]);
  });

  it("plans each of the store's statements for its values, never with a plan kept from a younger table", async () => {
    const pool = directoryPool(server.connectionString);
    try {
      const { rows } = await pool.query<{ plan_cache_mode: string }>('SHOW plan_cache_mode');
      expect(rows[0]?.plan_cache_mode).to.equal('force_custom_plan');
    } finally {
      await pool.end();
    }
  });

  it('pages deep reading whole only the rows of the page: those before it are skipped by their key alone', async () => {
    expect(await mostWholeRows((db) => findUsers(db, NEW, { startIndex: 19_901, count: 100 }))).to.equal(100);
    const broad = { op: 'eq', attribute: 'active', value: true } as const;
    expect(await mostWholeRows((db) => findUsers(db, NEW, { startIndex: 19_901, count: 100, filter: broad }))).to.equal(
      100,
    );
    expect(await mostWholeRows((db) => findGroups(db, NEW, { startIndex: 1_951, count: 50 }))).to.equal(50);
  });

  it('pages an organization, and answers a filter no key serves, in the order of creation of its own rows', async () => {
    expect(await indexesRead((db) => findUsers(db, NEW, page))).to.include('gatehouse_directory_users_created');
    const broad = { op: 'eq', attribute: 'active', value: true } as const;
    expect(await indexesRead((db) => findUsers(db, NEW, { ...page, filter: broad }))).to.include(
      'gatehouse_directory_users_created',
    );
  });
});
