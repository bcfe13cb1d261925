import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isCatalogUnavailable } from '../../../src/application/ports/connection-catalog.js';
import { directoryError } from '../../../src/adapters/sqlite/directory-errors.js';
import { findUsers } from '../../../src/adapters/sqlite/directory-pages.js';
import { selectSignInMatch } from '../../../src/adapters/sqlite/directory-users.js';
import {
  loadNodeSqlite,
  type SqliteDatabase,
  type SqliteDatabaseConstructor,
  type SqliteValue,
} from '../../../src/adapters/sqlite/node-sqlite.js';
import { SqliteDirectoryStore } from '../../../src/adapters/sqlite/sqlite-directory-store.js';
import { RecordingLogger } from '../postgres/catalog-harness.js';
import { directoryStoreContract } from './directory-store-contract.js';
import { T0, organization, userAttributes, written } from './contract/contract-stores.js';

const projectRoot = fileURLToPath(new URL('../../..', import.meta.url));
const DatabaseSync = await loadNodeSqlite();

/** What a promise rejected with (the test fails if it resolved). */
async function rejection(promise: Promise<unknown>): Promise<Error & { code?: string }> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(outcome instanceof Error)) throw new Error('expected a rejection');
  return outcome;
}

if (!DatabaseSync) {
  describe('SqliteDirectoryStore (the embedded directory store)', () => {
    it.skip(`needs node:sqlite (Node.js 22.13 or later): not run on Node.js ${process.version}`);
  });
} else {
  sqliteSuites(DatabaseSync);
}

function sqliteSuites(DatabaseSync: SqliteDatabaseConstructor): void {
  describe('SqliteDirectoryStore (the embedded directory store)', function () {
    this.timeout(60_000);
    let folder: string;
    const open = (file: string, logger = new RecordingLogger()) => SqliteDirectoryStore.open({ file, logger });

    before(() => {
      folder = mkdtempSync(join(tmpdir(), 'gatehouse-sqlite-directory-'));
    });
    after(() => {
      rmSync(folder, { recursive: true, force: true });
    });

    describe('the contract', () => {
      // One store owns its file (a second is refused: below), so the contract's "another
      // instance" is the same store: its concurrent writers and its watch are then those of
      // one process, which is what a deployment on the embedded store is.
      let shared: SqliteDirectoryStore | undefined;
      directoryStoreContract('SQLite (node:sqlite)', async () => {
        if (shared) return { store: shared, close: async () => undefined };
        const store = await open(join(folder, 'contract', 'directory.sqlite'));
        shared = store;
        return { store, close: () => store.close() };
      });
    });

    describe('its file', () => {
      it('makes the folder and a file readable by its owner only, its lock file too', async () => {
        const file = join(folder, 'made', 'deeper', 'directory.sqlite');
        const store = await open(file);
        await store.close();
        expect(statSync(file).mode & 0o777).to.equal(0o600);
        expect(statSync(`${file}-lock`).mode & 0o777).to.equal(0o600);
        expect(statSync(join(folder, 'made', 'deeper')).mode & 0o777).to.equal(0o700);
      });

      it('keeps every kind of row across a close and a reopen, and the feed goes on after its last position', async () => {
        const file = join(folder, 'reopened.sqlite');
        const org = organization();
        const first = await open(file);
        const user = written(
          await first.createUser(
            org,
            userAttributes('Kept@Example.com', { externalId: 'ext-kept', emails: [{ value: 'kept@example.com' }] }),
            T0,
          ),
        );
        const group = written(await first.createGroup(org, { displayName: 'Kept' }, [user.id], T0));
        await first.recordSignIn(org, user.id, 'Acme', 'subject-kept', T0);
        await first.addToken(org, { id: 'token-kept', hash: 'a'.repeat(64), createdAt: T0 });
        const last = await first.latestPosition();
        await first.close();

        const second = await open(file);
        try {
          expect(await second.getUser(org, user.id)).to.deep.equal(user);
          expect(await second.getGroup(org, group.id)).to.deep.equal(group);
          expect(await second.membersOf(org, group.id)).to.deep.equal([
            { value: user.id, display: 'Kept@Example.com' },
          ]);
          expect(await second.signInsOf(org, user.id)).to.deep.equal([{ provider: 'Acme', subject: 'subject-kept' }]);
          expect(await second.signInMatch(org, { subjects: [], emails: ['KEPT@example.com'] })).to.deep.equal({
            userId: user.id,
            state: 'active',
          });
          expect((await second.tokenByHash('a'.repeat(64)))?.id).to.equal('token-kept');
          expect(await second.latestPosition()).to.equal(last);
          written(await second.createUser(org, userAttributes('after'), T0));
          const [next] = await second.changesAfter(last, 10);
          expect(BigInt(next!.position) > BigInt(last!)).to.equal(true);
        } finally {
          await second.close();
        }
      });

      it('refuses a second store on the file while the first holds it, in this process or another; opens once it is closed', async () => {
        const file = join(folder, 'held.sqlite');
        const first = await open(file);
        try {
          const refused = await rejection(open(file));
          expect(refused.code).to.equal('directory.file_in_use');
          expect(refused.message).not.to.contain(file);

          const script = `
            const { SqliteDirectoryStore } = await import('./src/adapters/sqlite/sqlite-directory-store.ts');
            const logger = { debug() {}, info() {}, warn() {}, error() {} };
            await SqliteDirectoryStore.open({ file: process.env.DIRECTORY_FILE, logger }).then(
              () => console.log('opened'),
              (error) => console.log(error.code),
            );
          `;
          const child = spawnSync(
            process.execPath,
            ['--no-warnings', '--import', 'tsx', '--input-type=module', '-e', script],
            { cwd: projectRoot, encoding: 'utf8', env: { ...process.env, DIRECTORY_FILE: file } },
          );
          expect(child.stdout.trim(), child.stderr).to.equal('directory.file_in_use');
          // The first store goes on as before.
          written(await first.createUser(organization(), userAttributes('still-here'), T0));
        } finally {
          await first.close();
        }
        const again = await open(file);
        await again.close();
      });

      it('can be read by another program while the store runs: an online backup with SQLite', async () => {
        const file = join(folder, 'backed-up.sqlite');
        const org = organization();
        const store = await open(file);
        try {
          const user = written(await store.createUser(org, userAttributes('backed-up'), T0));
          const reader = new DatabaseSync(file);
          try {
            // VACUUM INTO: a consistent copy of the database, as sqlite3's .backup makes.
            reader.exec(`VACUUM INTO '${join(folder, 'backup-copy.sqlite').replaceAll("'", "''")}'`);
          } finally {
            reader.close();
          }
          const copy = await open(join(folder, 'backup-copy.sqlite'));
          expect(await copy.getUser(org, user.id)).to.deep.equal(user);
          await copy.close();
        } finally {
          await store.close();
        }
      });

      it('refuses a file of a newer schema, and lets it go', async () => {
        const file = join(folder, 'newer.sqlite');
        await (await open(file)).close();
        const raw = new DatabaseSync(file);
        raw.exec('PRAGMA user_version = 2');
        raw.close();
        const refused = await rejection(open(file));
        expect(refused.code).to.equal('directory.file_newer');
        expect(refused.message).to.contain('directory schema 2; this one reads up to 1');
        // Refused without keeping the lock: a store of the right version could open it.
        const lock = new DatabaseSync(`${file}-lock`);
        lock.exec('PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; COMMIT');
        lock.close();
      });

      it("refuses another program's database and a file that is no database, naming no path", async () => {
        const foreign = join(folder, 'foreign.sqlite');
        const raw = new DatabaseSync(foreign);
        raw.exec('CREATE TABLE notes (body TEXT)');
        raw.close();
        expect((await rejection(open(foreign))).code).to.equal('directory.file_foreign');

        const garbage = join(folder, 'garbage.sqlite');
        writeFileSync(garbage, 'SENTINEL-not-a-database '.repeat(400));
        const unusable = await rejection(open(garbage));
        expect(unusable.code).to.equal('directory.file_unusable');
        expect(unusable.message).not.to.contain(garbage);
        expect(unusable.message).not.to.contain('SENTINEL');
      });
    });

    describe('its errors', () => {
      it('rejects with catalog.unavailable once closed', async () => {
        const store = await open(join(folder, 'closed.sqlite'));
        await store.close();
        await store.close();
        const error = await rejection(store.getUser('org', '00000000-0000-4000-8000-000000000000'));
        expect(error.code).to.equal('catalog.unavailable');
        expect(isCatalogUnavailable(error)).to.equal(true);
      });

      it("says a statement refused by SQLite's code, never its message or a value", async () => {
        const store = await open(join(folder, 'refused.sqlite'));
        try {
          // A hash that is no SHA-256 in hex breaks the table's CHECK.
          const error = await rejection(
            store.addToken('org', { id: 'SENTINEL-token-id', hash: 'SENTINEL-not-a-hash', createdAt: T0 }),
          );
          expect(error.code).to.equal('directory.query_failed');
          expect(error.message).to.equal('the directory store refused a query (SQLite result 275)');
          expect(`${error.message} ${error.stack} ${JSON.stringify(error)}`).not.to.contain('SENTINEL');
        } finally {
          await store.close();
        }
      });

      it('takes a full disk, an I/O error, a busy or a damaged file for a store that cannot be used now (catalog.unavailable)', () => {
        for (const errcode of [13, 10 | (4 << 8), 5, 26]) {
          const error = directoryError(
            Object.assign(new Error('SENTINEL disk I/O error at /secret/path'), { errcode }),
          );
          expect((error as Error & { code?: string }).code, String(errcode)).to.equal('catalog.unavailable');
          expect(error.message).not.to.contain('SENTINEL');
        }
      });
    });

    describe('an organization of 100,000 users', () => {
      const org = 'org-large';
      let store: SqliteDirectoryStore;
      let file: string;
      before(async function () {
        this.timeout(120_000);
        file = join(folder, 'large.sqlite');
        await (await open(file)).close();
        // Written with SQL in one transaction, as fast as SQLite can: the store's own writes are the contract's.
        const raw = new DatabaseSync(file);
        raw.exec('BEGIN');
        const user = raw.prepare(
          `INSERT INTO directory_users (id, organization, attributes, user_name, user_name_key, external_id, active,
             version, created, last_modified) VALUES (?, ?, ?, ?, ?, ?, 1, 1, ?, ?)`,
        );
        const email = raw.prepare(
          'INSERT INTO directory_user_emails (user_id, organization, value_key) VALUES (?, ?, ?)',
        );
        for (const organization of [org, 'org-neighbour']) {
          for (let i = 1; i <= 100_000; i += 1) {
            const id = crypto.randomUUID();
            const attributes = {
              userName: `User${i}@big.example`,
              externalId: `ext-${i}`,
              active: true,
              emails: [{ value: `person${i}@Mail.Example`, type: 'work' }],
            };
            user.run(
              id,
              organization,
              JSON.stringify(attributes),
              attributes.userName,
              attributes.userName.toLowerCase(),
              attributes.externalId,
              T0 + i,
              T0 + i,
            );
            email.run(id, organization, `person${i}@mail.example`);
          }
        }
        raw.exec('COMMIT');
        raw.exec('ANALYZE');
        raw.close();
        store = await open(file);
      });
      after(() => store?.close());

      /**
       * The plan SQLite makes for each statement `run` sends (EXPLAIN QUERY PLAN, against the
       * store's file with its statistics): the work a lookup does, not its time, so that a
       * busy machine cannot fail it and a lost index can. The answers are placeholders that
       * let `run` reach its next statement.
       */
      const plansOf = (run: (db: SqliteDatabase) => unknown): string[] => {
        const raw = new DatabaseSync(file);
        const plans: string[] = [];
        const explain = (sql: string, parameters: SqliteValue[]) =>
          plans.push(
            (raw.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...parameters) as { detail: string }[])
              .map((step) => step.detail)
              .join('; '),
          );
        const explaining: SqliteDatabase = {
          exec: () => undefined,
          function: () => undefined,
          close: () => undefined,
          prepare: (sql) => ({
            all: (...parameters) => (explain(sql, parameters), []),
            get: (...parameters) => (explain(sql, parameters), { total: 1 }),
            run: () => ({ changes: 0, lastInsertRowid: 0 }),
          }),
        };
        try {
          run(explaining);
        } finally {
          raw.close();
        }
        return plans;
      };
      /** No step walks a table (only the lists of values passed in), and each named index is searched. */
      const expectIndexed = (plans: string[], indexes: RegExp[]) => {
        const joined = plans.join('\n');
        expect(joined, joined).to.not.match(/\bSCAN (?!json_each VIRTUAL TABLE)/);
        for (const index of indexes) expect(joined, joined).to.match(index);
      };

      for (const [attribute, value, index] of [
        ['userName', 'user77777@BIG.example', /SEARCH r USING (COVERING )?INDEX directory_users_user_name(_any)? /],
        ['externalId', 'ext-77777', /SEARCH r USING (COVERING )?INDEX directory_users_external_id /],
        ['emails.value', 'PERSON77777@mail.example', /USING (COVERING )?INDEX directory_user_emails_value /],
      ] as const) {
        it(`finds a user by ${attribute} eq among 100,000 through its index`, async () => {
          const query = { startIndex: 1, count: 10, filter: { op: 'eq', attribute, value } } as const;
          const page = await store.findUsers(org, query);
          expect(page.total).to.equal(1);
          expect(page.resources[0]?.attributes.externalId).to.equal('ext-77777');
          expectIndexed(
            plansOf((db) => findUsers(db, org, query)),
            [index],
          );
        });
      }

      it("refuses an organization's searches once those no index serves spent its share, and only its own", async () => {
        // The suite's store, reopened with the smallest share: the hostile customer's token
        // sends `displayName co`, which reads each of its 100,000 users on the event loop.
        await store.close();
        store = await SqliteDirectoryStore.open({ file, logger: new RecordingLogger(), searchMsPerMinute: 500 });
        const scan = (organization: string) =>
          store.findUsers(organization, {
            startIndex: 1,
            count: 10,
            filter: { op: 'co', attribute: 'displayName', value: 'nobody' },
          });
        let refused: (Error & { code?: string; retryAfterMs?: number }) | undefined;
        for (let searches = 0; !refused && searches < 50; searches += 1)
          refused = await scan(org).then(
            () => undefined,
            (error: Error) => error,
          );
        expect(refused?.code).to.equal('directory.busy');
        expect(refused?.retryAfterMs).to.be.above(0);
        expect(refused?.message).to.not.contain('nobody');
        const lookup = {
          startIndex: 1,
          count: 10,
          filter: { op: 'eq', attribute: 'externalId', value: 'ext-7' },
        } as const;
        expect(await rejection(store.findUsers(org, lookup)), 'its lookups wait too').to.have.property(
          'code',
          'directory.busy',
        );
        expect((await scan('org-neighbour')).total, "the neighbour's search runs").to.equal(0);
        expect((await store.findUsers('org-neighbour', lookup)).total).to.equal(1);
        const who = { subjects: ['nobody'], emails: ['person42@mail.example'] };
        expect((await store.signInMatch(org, who))?.state, 'its sign-ins are matched still').to.equal('active');
        // The next tests search with a share of their own.
        await store.close();
        store = await open(file);
      });

      it('matches a sign-in through the indexes of subjects and e-mails, and pages deep by creation', async () => {
        const who = { subjects: ['nobody'], emails: ['person4242@mail.example'] };
        expect((await store.signInMatch(org, who))?.state).to.equal('active');
        expectIndexed(
          plansOf((db) => selectSignInMatch(db, org, who)),
          [
            /INDEX directory_users_user_name_any /,
            /INDEX directory_users_external_id /,
            /INDEX directory_user_emails_value /,
          ],
        );
        const page = await store.findUsers(org, { startIndex: 99_991, count: 20 });
        expect(page.total).to.equal(100_000);
        expect(page.resources).to.have.length(10);
        expect(page.resources[9]?.attributes.externalId).to.equal('ext-100000');
      });
    });
  });
}
