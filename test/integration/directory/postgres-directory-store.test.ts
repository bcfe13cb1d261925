import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { isCatalogUnavailable } from '../../../src/application/ports/connection-catalog.js';
import { migrateCatalog } from '../../../src/adapters/postgres/migrate.js';
import { PostgresDirectoryStore } from '../../../src/adapters/postgres/postgres-directory-store.js';
import { startPostgres, type PostgresServer } from '../../support/postgres-server.js';
import { RecordingLogger, withSql } from '../postgres/catalog-harness.js';
import { directoryStoreContract } from './directory-store-contract.js';

const projectRoot = fileURLToPath(new URL('../../..', import.meta.url));

for (const major of [15, 17] as const) {
  describe(`PostgresDirectoryStore on PostgreSQL ${major}`, function () {
    this.timeout(60_000);
    let server: PostgresServer;

    before(async () => {
      server = await startPostgres(major);
      await migrateCatalog(server.connectionString, new RecordingLogger(), projectRoot);
    });
    after(async () => {
      await server?.close();
    });

    const open = (logger = new RecordingLogger()) =>
      new PostgresDirectoryStore({ connectionString: server.connectionString, logger, reconnectMs: 200 });

    directoryStoreContract(`PostgreSQL ${major}`, async () => {
      const store = open();
      return { store, close: () => store.close() };
    });

    describe('an organization of 100,000 users', () => {
      const org = 'org-large';
      let store: PostgresDirectoryStore;
      before(async function () {
        this.timeout(120_000);
        // Written by SQL, as fast as the server can: the store's own writes are the contract's.
        await withSql(server.connectionString, async (sql) => {
          await sql.query(
            `INSERT INTO gatehouse_directory_users (id, organization, attributes, version, created, last_modified)
             SELECT gen_random_uuid(), o.organization, jsonb_build_object(
                      'userName', 'User' || i || '@big.example', 'externalId', 'ext-' || i, 'active', true,
                      'emails', jsonb_build_array(jsonb_build_object('value', 'person' || i || '@Mail.Example', 'type', 'work'))),
                    1, now(), now()
               FROM generate_series(1, 100000) i, (VALUES ($1), ('org-neighbour')) o(organization)`,
            [org],
          );
          // As autovacuum leaves a table after a bulk load: a deep page then skips the rows before
          // it by the index alone. Before a first vacuum it reads each of them from the table
          // (docs/performance.md), which a loaded machine can stretch past the statement timeout.
          await sql.query('VACUUM (ANALYZE) gatehouse_directory_users');
        });
        store = open();
      });
      after(() => store?.close());

      // How each lookup reaches its rows (through its key's index) is postgres-directory-plans'
      // test; how long it takes, `npm run bench` (BENCH_EXTRAS=directory), never a timed test.
      for (const [attribute, value] of [
        ['userName', 'user77777@BIG.example'],
        ['externalId', 'ext-77777'],
        ['emails.value', 'PERSON77777@mail.example'],
      ] as const) {
        it(`finds a user by ${attribute} eq among 100,000, and none of the neighbour's`, async () => {
          const page = await store.findUsers(org, { startIndex: 1, count: 10, filter: { op: 'eq', attribute, value } });
          expect(page.total).to.equal(1);
          expect(page.resources[0]?.attributes.externalId).to.equal('ext-77777');
        });
      }

      it('matches a sign-in by e-mail, and pages deep by creation', async () => {
        const match = await store.signInMatch(org, { subjects: ['nobody'], emails: ['person4242@mail.example'] });
        expect(match?.state).to.equal('active');
        const page = await store.findUsers(org, { startIndex: 99_991, count: 20 });
        expect(page.total).to.equal(100_000);
        expect(page.resources).to.have.length(10);
      });
    });

    describe('its watch across a restart of the server', () => {
      it('calls the watch again once it listens again, and then for changes as before', async function () {
        this.timeout(60_000);
        const logger = new RecordingLogger();
        const [watching, writing] = [open(logger), open()];
        let calls = 0;
        const stop = watching.watch(() => (calls += 1));
        try {
          const waitFor = async (count: number) => {
            const deadline = Date.now() + 15_000;
            while (calls < count) {
              if (Date.now() > deadline) throw new Error(`called ${calls} times, not ${count}`);
              await sleep(20);
            }
          };
          await waitFor(1);
          await server.stop();
          await server.start();
          await waitFor(2);
          expect(logger.lines.join('\n')).to.contain('the directory feed cannot be followed');
          const before = calls;
          await writing.createUser('org-restart', { userName: 'back', active: true }, Date.now());
          await waitFor(before + 1);
        } finally {
          stop();
          await Promise.all([watching.close(), writing.close()]);
        }
      });
    });
  });
}

describe('PostgresDirectoryStore without its database', function () {
  this.timeout(20_000);

  it('rejects every call with catalog.unavailable, and no URL, user or password in the error or the log', async () => {
    const password = 'sentinel-directory-password-7f3a';
    const logger = new RecordingLogger();
    // A port on loopback where nothing listens: refused at once.
    const store = new PostgresDirectoryStore({
      connectionString: `postgresql://gatehouse_user:${password}@127.0.0.1:1/gatehouse_directory_db`,
      logger,
    });
    try {
      const calls: Array<[string, () => Promise<unknown>]> = [
        ['getUser', () => store.getUser('org', '00000000-0000-4000-8000-000000000000')],
        ['createUser', () => store.createUser('org', { userName: 'a', active: true }, 0)],
        ['findUsers', () => store.findUsers('org', { startIndex: 1, count: 1 })],
        ['changesAfter', () => store.changesAfter(undefined, 1)],
        ['tokenByHash', () => store.tokenByHash('0'.repeat(64))],
      ];
      for (const [method, call] of calls) {
        const error = await call().then(
          () => undefined,
          (rejection: unknown) => rejection,
        );
        expect(error, method).to.be.instanceOf(Error);
        expect((error as { code?: unknown }).code, method).to.equal('catalog.unavailable');
        expect(isCatalogUnavailable(error), method).to.equal(true);
        const shown = `${(error as Error).message} ${(error as Error).stack} ${JSON.stringify(error)}`;
        for (const secret of [password, 'gatehouse_user', '127.0.0.1', 'gatehouse_directory_db']) {
          expect(shown, method).to.not.contain(secret);
        }
      }
      const log = logger.lines.join('\n');
      expect(log).to.contain('cannot be reached');
      for (const secret of [password, 'gatehouse_user', 'gatehouse_directory_db']) expect(log).to.not.contain(secret);
    } finally {
      await store.close();
    }
  });
});
