import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { migrateCatalog } from '../../../src/adapters/postgres/migrate.js';
import type { Queryable } from '../../../src/adapters/postgres/directory-feed.js';
import { MEMBERS_PER_STATEMENT, insertGroup, updateGroup } from '../../../src/adapters/postgres/directory-groups.js';
import { startPostgres, type PostgresServer } from '../../support/postgres-server.js';
import { RecordingLogger } from '../postgres/catalog-harness.js';

const projectRoot = fileURLToPath(new URL('../../..', import.meta.url));
const ORG = 'org-big';
/** More than the body of a PATCH may carry at the default MaxBodyBytes (about 40,000 members). */
const JOINING = 42_000;

/**
 * A change of a group's members as large as a PATCH can carry: every statement it sends stays
 * far below the statement timeout (catalog-pool.ts, 1.5 s), because no statement adds more
 * than MEMBERS_PER_STATEMENT members (about 20 µs each), and the change is still one
 * transaction that adds them all, in order.
 */
describe('PostgreSQL directory store: a change of 42,000 members (PostgreSQL 17)', function () {
  this.timeout(120_000);
  let server: PostgresServer;
  let sql: pg.Client;
  let ids: string[];

  before(async () => {
    server = await startPostgres(17);
    await migrateCatalog(server.connectionString, new RecordingLogger(), projectRoot);
    sql = new pg.Client({ connectionString: server.connectionString });
    await sql.connect();
    const { rows } = await sql.query<{ id: string }>(
      `INSERT INTO gatehouse_directory_users (id, organization, attributes, version, created, last_modified)
       SELECT gen_random_uuid(), $1, jsonb_build_object('userName', 'user' || i, 'active', true), 1, now(), now()
         FROM generate_series(1, $2::integer) i RETURNING id`,
      [ORG, JOINING],
    );
    ids = rows.map((row) => row.id);
  });
  after(async () => {
    await sql?.end();
    await server?.close();
  });

  it('adds them in one transaction, no statement adding more than MEMBERS_PER_STATEMENT, in the order given', async () => {
    const statements: Array<{ text: string; ids: number }> = [];
    const recording = {
      query: async (text: string, values?: unknown[]) => {
        const largest = Math.max(0, ...(values ?? []).map((value) => (Array.isArray(value) ? value.length : 0)));
        statements.push({ text, ids: largest });
        return sql.query(text, values);
      },
    } as unknown as Queryable;
    await sql.query('BEGIN');
    const created = await insertGroup(recording, ORG, { displayName: 'Everyone' }, [], 0);
    if (created.kind !== 'written') throw new Error(created.kind);
    const changed = await updateGroup(recording, ORG, created.resource.id, { members: { add: ids, remove: [] } }, 1, 0);
    await sql.query('COMMIT');
    expect(changed.kind).to.equal('written');

    const inserts = statements.filter(({ text }) => text.includes('INSERT INTO gatehouse_directory_members'));
    expect(inserts.map((insert) => insert.ids)).to.deep.equal([
      5_000, 5_000, 5_000, 5_000, 5_000, 5_000, 5_000, 5_000, 2_000,
    ]);
    expect(MEMBERS_PER_STATEMENT).to.equal(5_000);
    // How long they take is a bench row (BENCH_EXTRAS=directory), not a timed test.

    const { rows } = await sql.query<{ user_id: string }>(
      'SELECT user_id FROM gatehouse_directory_members WHERE group_id = $1 ORDER BY added_order',
      [created.resource.id],
    );
    expect(rows.map((row) => row.user_id)).to.deep.equal(ids);
  });
});
