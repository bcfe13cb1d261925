import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { CatalogUnavailable, type PutOutcome } from '../../../src/application/ports/connection-catalog.js';
import { migrateCatalog } from '../../../src/adapters/postgres/migrate.js';
import { startPostgres, type PostgresServer } from '../../support/postgres-server.js';
import {
  CHANGE_WAIT_MS,
  ChangeRecorder,
  OpenCatalogs,
  RecordingLogger,
  connectionWrite,
  declared,
  removed,
  withSql,
  declareAsIs,
} from './catalog-harness.js';
import { catalogPool } from '../../../src/adapters/postgres/catalog-pool.js';
import { selectAll, selectByIds } from '../../../src/adapters/postgres/catalog-queries.js';
import { CatalogWatch } from '../../../src/adapters/postgres/catalog-watch.js';
import { KnownEntries } from '../../../src/adapters/postgres/known-entries.js';

const projectRoot = fileURLToPath(new URL('../../..', import.meta.url));
const T0 = Date.UTC(2026, 10, 1, 12, 0, 0, 123);
const DAY = 86_400_000;

/** Rejects with what `promise` rejected with, or fails the test if it resolved. */
async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

function written(outcome: PutOutcome): Extract<PutOutcome, { kind: 'written' }> {
  if (outcome.kind !== 'written') throw new Error(`expected a write, got ${JSON.stringify(outcome)}`);
  return outcome;
}

for (const major of [15, 17] as const) {
  describe(`PostgresConnectionCatalog on PostgreSQL ${major}`, function () {
    this.timeout(20_000);
    let server: PostgresServer;
    const catalogs = new OpenCatalogs();

    before(async () => {
      server = await startPostgres(major);
      await migrateCatalog(server.connectionString, new RecordingLogger(), projectRoot);
    });
    after(async () => {
      await catalogs.closeAll();
      await server?.close();
    });
    beforeEach(() =>
      withSql(server.connectionString, (sql) =>
        sql.query('TRUNCATE gatehouse_connections, gatehouse_connection_domains'),
      ),
    );
    afterEach(() => catalogs.closeAll());

    describe('writes and versions', () => {
      it('creates at version 1, reads it back whole, replaces it at +1, and refuses a write at a stale version', async () => {
        const catalog = catalogs.open(server.connectionString);
        const verified = {
          domain: 'acme.example',
          token: 't'.repeat(22),
          verifiedAt: T0,
          checkedAt: T0 + 1,
          misses: 2,
        };
        const first = written(await catalog.put(connectionWrite('Acme', { domains: [verified] }), 0, T0));
        expect(first).to.include({ created: true });
        expect(first.entry).to.include({ name: 'Acme', version: 1, updatedAt: T0 });

        const read = await catalog.get('ACME');
        expect(read).to.deep.equal({ ...connectionWrite('Acme', { domains: [verified] }), version: 1, updatedAt: T0 });

        const other = { domain: '*.acme.example', token: 'u'.repeat(22), misses: 0 };
        const second = written(await catalog.put(connectionWrite('acme', { domains: [other] }), 1, T0 + DAY));
        expect(second).to.include({ created: false });
        expect(second.entry.version).to.equal(2);
        const replaced = await catalog.get('Acme');
        expect(replaced?.name).to.equal('acme');
        expect(replaced?.domains).to.deep.equal([other]);
        expect(replaced?.updatedAt).to.equal(T0 + DAY);

        expect(await catalog.put(connectionWrite('Acme'), 1, T0)).to.deep.equal({
          kind: 'conflict',
          currentVersion: 2,
        });
        expect(await catalog.put(connectionWrite('Acme'), 0, T0)).to.deep.equal({
          kind: 'conflict',
          currentVersion: 2,
        });
        expect(await catalog.put(connectionWrite('Nobody'), 3, T0)).to.deep.equal({
          kind: 'conflict',
          currentVersion: undefined,
        });
        expect(await catalog.get('Nobody')).to.equal(undefined);

        // No expectation: the last writer wins, one version more.
        expect(written(await catalog.put(connectionWrite('Acme'), undefined, T0)).entry.version).to.equal(3);
        const fresh = written(await catalog.put(connectionWrite('Fresh'), undefined, T0));
        expect(fresh).to.include({ created: true });
        expect(fresh.entry.version).to.equal(1);
      });

      it('two instances writing at the same expected version: exactly one wins, the other learns the current version', async () => {
        const [a, b] = [catalogs.open(server.connectionString), catalogs.open(server.connectionString)];
        written(await a.put(connectionWrite('Race'), 0, T0));
        for (let version = 1; version <= 10; version += 1) {
          const outcomes = await Promise.all([
            a.put(connectionWrite('Race', { clientId: `a${version}` }), version, T0 + version),
            b.put(connectionWrite('Race', { clientId: `b${version}` }), version, T0 + version),
          ]);
          const wins = outcomes.filter((outcome) => outcome.kind === 'written');
          expect(wins, `round ${version}`).to.have.length(1);
          expect(outcomes.find((outcome) => outcome.kind === 'conflict')).to.deep.equal({
            kind: 'conflict',
            currentVersion: version + 1,
          });
          const winner = wins[0]?.kind === 'written' ? wins[0].entry.keys.ClientId : undefined;
          expect((await b.get('race'))?.keys.ClientId).to.equal(winner);
        }
        expect((await a.get('Race'))?.version).to.equal(11);
      });

      it('two instances creating one name at once (expected 0): one creates it, the other finds version 1', async () => {
        const [a, b] = [catalogs.open(server.connectionString), catalogs.open(server.connectionString)];
        for (let round = 0; round < 10; round += 1) {
          const outcomes = await Promise.all([
            a.put(connectionWrite(`New${round}`, { clientId: 'a' }), 0, T0),
            b.put(connectionWrite(`new${round}`, { clientId: 'b' }), 0, T0),
          ]);
          expect(outcomes.filter((outcome) => outcome.kind === 'written')).to.have.length(1);
          expect(outcomes.find((outcome) => outcome.kind === 'conflict')).to.deep.equal({
            kind: 'conflict',
            currentVersion: 1,
          });
        }
        expect((await a.list({ limit: 100 })).entries).to.have.length(10);
      });

      it('removes only at the expected version, with its domains', async () => {
        const catalog = catalogs.open(server.connectionString);
        written(await catalog.put(connectionWrite('Gone'), 0, T0));
        written(await catalog.put(connectionWrite('Gone'), 1, T0));
        expect(await catalog.remove('Gone', 1)).to.deep.equal({ kind: 'conflict', currentVersion: 2 });
        expect(await catalog.remove('Gone', 0)).to.deep.equal({ kind: 'conflict', currentVersion: 2 });
        expect(await catalog.remove('GONE', 2)).to.deep.equal({ kind: 'removed' });
        expect(await catalog.get('Gone')).to.equal(undefined);
        expect(await catalog.claimsOf('gone.example', 'someone')).to.deep.equal([]);
        expect(await catalog.remove('Gone', 2)).to.deep.equal({ kind: 'absent' });
        expect(await catalog.remove('Gone', undefined)).to.deep.equal({ kind: 'absent' });
        expect(await catalog.remove('Gone', 0)).to.deep.equal({ kind: 'absent' });
        written(await catalog.put(connectionWrite('Gone'), 0, T0));
        expect(await catalog.remove('Gone', undefined)).to.deep.equal({ kind: 'removed' });
      });
    });

    describe('queries', () => {
      it('lists 250 entries in three pages of at most 100, in name order, none twice and none lost; filters by organization and domain', async () => {
        const catalog = catalogs.open(server.connectionString);
        const names = Array.from({ length: 250 }, (_, index) => `Tenant${String(index).padStart(3, '0')}`);
        for (let start = 0; start < names.length; start += 25) {
          await Promise.all(
            names.slice(start, start + 25).map((name, offset) => {
              const index = start + offset;
              const domains = [{ domain: `${name.toLowerCase()}.example`, token: 'a'.repeat(22), misses: 0 }];
              if (index % 10 === 0) domains.push({ domain: 'shared.example', token: 'b'.repeat(22), misses: 0 });
              return catalog.put(connectionWrite(name, { organization: `org-${index % 2}`, domains }), 0, T0);
            }),
          );
        }

        const pages = [];
        let after: string | undefined;
        do {
          const page = await catalog.list({ limit: 100, after });
          pages.push(page.entries.map((entry) => entry.name));
          after = page.next;
        } while (after !== undefined);
        expect(pages.map((page) => page.length)).to.deep.equal([100, 100, 50]);
        expect(pages.flat()).to.deep.equal(names);

        // Pages that end exactly at the last entry: the last says so (no empty page after it).
        const fifties = [];
        after = undefined;
        do {
          const page = await catalog.list({ limit: 50, after });
          fifties.push(page.entries.length);
          after = page.next;
        } while (after !== undefined);
        expect(fifties).to.deep.equal([50, 50, 50, 50, 50]);

        const ofOrganization = [];
        after = undefined;
        do {
          const page = await catalog.list({ limit: 100, organization: 'org-1', after });
          ofOrganization.push(...page.entries.map((entry) => entry.name));
          after = page.next;
        } while (after !== undefined);
        expect(ofOrganization).to.deep.equal(names.filter((_, index) => index % 2 === 1));

        const shared = await catalog.list({ limit: 100, domain: 'shared.example' });
        expect(shared.entries.map((entry) => entry.name)).to.deep.equal(names.filter((_, index) => index % 10 === 0));
        expect(shared.next).to.equal(undefined);
        const both = await catalog.list({ limit: 10, domain: 'shared.example', organization: 'org-0' });
        expect(both.entries).to.have.length(10); // every tenth is even: 25 of them
        expect(both.next).to.equal('tenant090');
        expect((await catalog.list({ limit: 100, organization: 'org-9' })).entries).to.deep.equal([]);
      });

      it("claimsOf: the other entries holding a domain, with their organization and the domain's proof", async () => {
        const catalog = catalogs.open(server.connectionString);
        const proof = (verifiedAt?: number) => ({
          domain: 'contested.example',
          token: 'c'.repeat(22),
          verifiedAt,
          misses: 0,
        });
        await catalog.put(connectionWrite('Alpha', { organization: 'one', domains: [proof(T0)] }), 0, T0);
        await catalog.put(connectionWrite('Beta', { organization: 'two', domains: [proof()] }), 0, T0);
        await catalog.put(connectionWrite('Gamma', { organization: 'three', domains: [proof(T0)] }), 0, T0);
        expect(await catalog.claimsOf('contested.example', 'GAMMA')).to.deep.equal([
          { name: 'Alpha', organization: 'one', verified: true },
          { name: 'Beta', organization: 'two', verified: false },
        ]);
        expect(await catalog.claimsOf('elsewhere.example', 'Gamma')).to.deep.equal([]);
      });

      it('dueForRecheck: entries with a verified domain never checked or checked before the time, never-checked first, at most the limit', async () => {
        const catalog = catalogs.open(server.connectionString);
        const proof = (domain: string, verifiedAt?: number, checkedAt?: number) => ({
          domain,
          token: 'd'.repeat(22),
          verifiedAt,
          checkedAt,
          misses: 0,
        });
        const cutoff = T0 + DAY;
        await catalog.put(connectionWrite('Stale', { domains: [proof('stale.example', T0, T0)] }), 0, T0);
        await catalog.put(connectionWrite('Never', { domains: [proof('never.example', T0)] }), 0, T0);
        await catalog.put(connectionWrite('Recent', { domains: [proof('recent.example', T0, cutoff + 1)] }), 0, T0);
        await catalog.put(
          connectionWrite('Unverified', { domains: [proof('unverified.example', undefined, T0)] }),
          0,
          T0,
        );
        await catalog.put(
          connectionWrite('Mixed', {
            domains: [proof('a.mixed.example', T0, cutoff + 1), proof('b.mixed.example', T0, T0 - 1)],
          }),
          0,
          T0,
        );
        expect((await catalog.dueForRecheck(cutoff, 10)).map((entry) => entry.name)).to.deep.equal([
          'Never',
          'Mixed',
          'Stale',
        ]);
        expect((await catalog.dueForRecheck(cutoff, 2)).map((entry) => entry.name)).to.deep.equal(['Never', 'Mixed']);
        expect(await catalog.dueForRecheck(T0 - DAY, 10)).to.have.length(1); // Never, never checked
      });
    });

    describe('watching', () => {
      it("a change written by instance A reaches instance B's watch within 2 s, and so does a removal", async () => {
        const [a, b] = [catalogs.open(server.connectionString), catalogs.open(server.connectionString)];
        await a.put(connectionWrite('Seen', { clientId: 'before' }), 0, T0);
        expect((await b.read()).map((declaration) => declaration.origin)).to.deep.equal(['database:seen']);
        const recorder = new ChangeRecorder();
        b.watch(recorder.onChanges);

        const started = performance.now();
        await a.put(connectionWrite('Seen', { clientId: 'after' }), 1, T0);
        const seenAt = await recorder.next(declared('Seen', 'after'), CHANGE_WAIT_MS);
        console.log(
          `      (PostgreSQL ${major}: A's change seen through B's watch in ${(seenAt - started).toFixed(1)} ms)`,
        );
        expect(seenAt - started).to.be.below(2_000);

        await a.remove('Seen', 2);
        await recorder.next(removed('Seen'), CHANGE_WAIT_MS);
        expect(recorder.changes.map(({ change }) => change)).to.deep.include({
          kind: 'removed',
          name: 'seen',
          origin: 'database:seen',
        });
        // Nothing but what changed: the entry unchanged since B's read() was not reported again.
        expect(recorder.changes.filter(({ change }) => declared('Seen', 'before')(change))).to.deep.equal([]);
      });

      it('a change made with SQL by another client is seen too (insert, update of a domain, delete, truncate)', async () => {
        const b = catalogs.open(server.connectionString);
        await b.read();
        const recorder = new ChangeRecorder();
        b.watch(recorder.onChanges);
        await withSql(server.connectionString, async (sql) => {
          await sql.query(
            `INSERT INTO gatehouse_connections (id, name, keys, version, updated_at)
             VALUES ('byhand', 'ByHand', '{"Protocol":"Saml2","Organization":"by-hand"}', 1, now())`,
          );
          await recorder.next(declared('ByHand'), CHANGE_WAIT_MS);
          // The organization filter follows the keys, whoever wrote them.
          const byOrganization = await b.list({ limit: 10, organization: 'by-hand' });
          expect(byOrganization.entries.map((entry) => entry.name)).to.deep.equal(['ByHand']);
          // Taken before the write: on a busy machine the change can be reported before the write's own answer is read.
          const domainAt = performance.now();
          await sql.query(
            `INSERT INTO gatehouse_connection_domains (connection_id, domain, token) VALUES ('byhand', 'hand.example', 'tok')`,
          );
          await recorder.next(declared('ByHand'), CHANGE_WAIT_MS, domainAt);
          await sql.query(`DELETE FROM gatehouse_connections WHERE id = 'byhand'`);
          await recorder.next(removed('ByHand'), CHANGE_WAIT_MS);
          // TRUNCATE names no row: everything is read again, and what is gone is removed.
          await b.put(connectionWrite('Kept'), 0, T0);
          await recorder.next(declared('Kept'), CHANGE_WAIT_MS);
          await sql.query('TRUNCATE gatehouse_connections, gatehouse_connection_domains');
          await recorder.next(removed('Kept'), CHANGE_WAIT_MS);
        });
      });

      it('a burst of notifications for one entry is read a few times (those arriving during a read are read together next), not once each, and reports its last state', async () => {
        const a = catalogs.open(server.connectionString);
        await a.put(connectionWrite('Bursty', { clientId: 'v0' }), 0, T0);
        // The watch itself, with a source that counts its reads of named entries.
        const pool = catalogPool(server.connectionString);
        const known = new KnownEntries();
        known.replaceAll(await selectAll(pool));
        const readsOf: string[][] = [];
        const recorder = new ChangeRecorder();
        const watch = new CatalogWatch(
          server.connectionString,
          200,
          known,
          {
            all: () => selectAll(pool),
            byIds: (ids) => {
              readsOf.push([...ids]);
              return selectByIds(pool, ids);
            },
            declare: (entries) => Promise.all(entries.map((entry) => declareAsIs(entry, `database:${entry.name}`))),
            originOf: (id) => `database:${id}`,
            flowing: () => undefined,
          },
          recorder.onChanges,
        );
        try {
          watch.start();
          await a.put(connectionWrite('Bursty', { clientId: 'v1' }), 1, T0);
          await recorder.next(declared('Bursty', 'v1'), CHANGE_WAIT_MS); // listening
          readsOf.length = 0;
          // Fifty transactions in one round trip: fifty notifications, arriving together.
          const updates = Array.from(
            { length: 50 },
            (_, index) =>
              `BEGIN; UPDATE gatehouse_connections SET keys = keys || '{"ClientId":"w${index + 1}"}' WHERE id = 'bursty'; COMMIT;`,
          );
          await withSql(server.connectionString, (sql) => sql.query(updates.join('\n')));
          await recorder.next(declared('Bursty', 'w50'), CHANGE_WAIT_MS);
          expect(readsOf.length).to.be.within(1, 24); // about 10 here: those arriving during a read wait for the next
          expect(readsOf.every((ids) => ids.length === 1 && ids[0] === 'bursty')).to.equal(true);
        } finally {
          await watch.stop();
          await pool.end();
        }
      });
    });

    describe("at 10,000 connections (the issue's targets)", () => {
      it('pages of 100 by name, organization and domain, read() of all, and a change seen by a second instance within 2 s', async () => {
        await withSql(server.connectionString, async (sql) => {
          await sql.query(`
            INSERT INTO gatehouse_connections (id, name, keys, version, updated_at)
            SELECT 'bulk' || lpad(i::text, 5, '0'), 'Bulk' || lpad(i::text, 5, '0'),
                   jsonb_build_object(
                     'Protocol', 'OpenIdConnect', 'Organization', 'org-' || (i % 100),
                     'DisplayName', 'Bulk tenant ' || i, 'Domains', jsonb_build_array('bulk' || i || '.example'),
                     'Authority', 'https://bulk' || i || '.idp.example', 'ClientId', 'client-' || i,
                     'ClientSecret', 'sealed:v1:' || md5(i::text) || md5((i + 1)::text) || md5((i + 2)::text),
                     'RoleMappings', jsonb_build_object('admins', 'Administrator', 'staff', 'User')),
                   1, now()
              FROM generate_series(1, 10000) AS i`);
          await sql.query(`
            INSERT INTO gatehouse_connection_domains (connection_id, domain, token, verified_at, checked_at, misses)
            SELECT 'bulk' || lpad(i::text, 5, '0'), 'bulk' || i || '.example', md5(i::text), now(), now(), 0
              FROM generate_series(1, 10000) AS i`);
          await sql.query('ANALYZE gatehouse_connections; ANALYZE gatehouse_connection_domains');
        });
        const [a, b] = [catalogs.open(server.connectionString), catalogs.open(server.connectionString)];
        const declarations = await b.read();
        expect(declarations).to.have.length(10_000);
        // How long a read and a page take is a bench row (catalog-scale), not a timed test.
        const page = await b.list({ limit: 100, after: 'bulk07500' });
        expect(page.entries[0]?.name).to.equal('Bulk07501');
        expect(page.next).to.equal('bulk07600');
        const ofOrganization = await b.list({ limit: 100, organization: 'org-42', after: 'bulk05000' });
        expect(ofOrganization.entries.length).to.be.above(0);
        expect(ofOrganization.entries.every((entry) => entry.keys.Organization === 'org-42')).to.equal(true);
        const byDomain = await b.list({ limit: 100, domain: 'bulk9999.example' });
        expect(byDomain.entries.map((entry) => entry.name)).to.deep.equal(['Bulk09999']);

        const recorder = new ChangeRecorder();
        b.watch(recorder.onChanges);
        await a.put(connectionWrite('Bulk00001', { clientId: 'first' }), 1, T0);
        await recorder.next(declared('Bulk00001', 'first'), 5_000);
        const started = performance.now();
        await a.put(connectionWrite('Bulk05000', { clientId: 'changed' }), 1, T0);
        const seenAt = await recorder.next(declared('Bulk05000', 'changed'), CHANGE_WAIT_MS);
        expect(seenAt - started).to.be.below(2_000);
        // Only the changed entries were reported, not the 10,000 the watch read when it started.
        expect(recorder.changes.length).to.be.below(5);
      });
    });

    describe('when the database goes away', () => {
      it('health turns degraded and calls reject with CatalogUnavailable within 3 s; once back, health is up and a change made before B was back reaches its watch within 5 s', async () => {
        // B connects as a role of its own, so that the test can keep B out after the restart
        // until A has written: the change can reach B only by the read that follows its return.
        await withSql(server.connectionString, (sql) => sql.query('CREATE ROLE instance_b LOGIN SUPERUSER'));
        const setLogin = (login: boolean) =>
          withSql(server.connectionString, (sql) => sql.query(`ALTER ROLE instance_b ${login ? 'LOGIN' : 'NOLOGIN'}`));
        const logB = new RecordingLogger();
        const a = catalogs.open(server.connectionString);
        const b = catalogs.open(server.connectionString.replace('postgres@', 'instance_b@'), logB, 1_000);
        await a.put(connectionWrite('Before', { clientId: 'v1' }), 0, T0);
        await b.read();
        const recorder = new ChangeRecorder();
        b.watch(recorder.onChanges);
        await recorder.next(() => false, 300).catch(() => undefined); // listening by now
        await a.put(connectionWrite('Before', { clientId: 'v2' }), 1, T0);
        await recorder.next(declared('Before', 'v2'), CHANGE_WAIT_MS);
        expect(b.health()).to.equal('up');

        await setLogin(false); // B's connections stay; new ones are refused
        await server.stop();
        try {
          for (const [what, call] of [
            ['put', () => a.put(connectionWrite('During'), 0, T0)],
            ['get', () => a.get('Before')],
            ['list', () => a.list({ limit: 10 })],
            ['remove', () => a.remove('Before', undefined)],
            ['read', () => a.read()],
          ] as const) {
            const started = performance.now();
            const error = await rejectionOf(call());
            expect(error, what).to.be.instanceOf(CatalogUnavailable);
            expect(performance.now() - started, what).to.be.below(3_000);
          }
          expect(a.health()).to.equal('degraded');
          expect(b.health()).to.equal('degraded');
        } finally {
          await server.start();
        }

        written(await a.put(connectionWrite('During', { clientId: 'meanwhile' }), 0, T0));
        expect(a.health()).to.equal('up');
        await new Promise((resolve) => setTimeout(resolve, 1_200)); // B tried again, and was refused
        expect(b.health()).to.equal('degraded');
        expect(recorder.changes.some(({ change }) => declared('During')(change))).to.equal(false);

        await setLogin(true);
        const back = performance.now();
        const seenAt = await recorder.next(declared('During', 'meanwhile'), 5_000);
        console.log(
          `      (PostgreSQL ${major}: a change made while B was cut off seen ${(seenAt - back).toFixed(0)} ms after B could connect again, with reconnectMs 1 000)`,
        );
        expect(b.health()).to.equal('up');
        expect(logB.lines.filter((line) => line.includes('cannot be reached'))).to.have.length(1);
        expect(logB.lines.filter((line) => line.includes('reachable again'))).to.have.length(1);
      });
    });

    describe('migrations', () => {
      it('run again, they apply nothing; run by two callers at once on a new database, both succeed and one applies them', async () => {
        expect(await migrateCatalog(server.connectionString, new RecordingLogger(), projectRoot)).to.deep.equal([]);
        await withSql(server.connectionString, (sql) => sql.query('CREATE DATABASE gatehouse_twice'));
        const other = server.connectionString.replace('/gatehouse?', '/gatehouse_twice?');
        const results = await Promise.all([
          migrateCatalog(other, new RecordingLogger(), projectRoot),
          migrateCatalog(other, new RecordingLogger(), projectRoot),
        ]);
        expect(results.map((names) => names.length).sort()).to.deep.equal([0, 4]);
        expect(results.flat()).to.deep.equal([
          '0001_connection-catalog',
          '0002_directory',
          '0003_directory-lookup-indexes',
          '0004_directory-sign-ins-and-retention',
        ]);
        const catalog = catalogs.open(other);
        written(await catalog.put(connectionWrite('Works'), 0, T0));
      });
    });

    describe('secrets', () => {
      it("neither the connection string's password nor a key's value reaches the log or an error", async () => {
        const password = 'SENTINEL-PASSWORD-1f3a';
        const keyValue = 'SENTINEL-KEY-VALUE-9c2e';
        const withPassword = server.connectionString.replace('postgres@', `postgres:${password}@`);
        const logger = new RecordingLogger();
        const errors: unknown[] = [];
        const catalog = catalogs.open(withPassword, logger);
        await catalog.put(connectionWrite('Secretive', { secret: keyValue }), 0, T0);
        await catalog.read();
        const recorder = new ChangeRecorder();
        catalog.watch(recorder.onChanges);
        await catalog.put(connectionWrite('Secretive', { secret: `${keyValue}-2` }), 1, T0);
        await recorder.next(declared('Secretive'), CHANGE_WAIT_MS);
        errors.push(await rejectionOf(catalog.put(connectionWrite('Bad\u0000', { secret: keyValue }), 0, T0)));
        errors.push(
          await rejectionOf(catalog.put({ ...connectionWrite('Nul'), keys: { Secret: `${keyValue}\u0000` } }, 0, T0)),
        );

        // A database that is not there, reached with a password: the lost and failed lines.
        const nowhere = catalogs.open(
          `postgresql://gatehouse-user:${password}@/gatehouse?host=/nonexistent-${password}&port=5432`,
          logger,
        );
        nowhere.watch(() => undefined);
        errors.push(await rejectionOf(nowhere.get('Secretive')));
        errors.push(await rejectionOf(nowhere.put(connectionWrite('Secretive', { secret: keyValue }), 0, T0)));
        errors.push(
          await rejectionOf(migrateCatalog(withPassword.replace('host=', 'host=/nonexistent'), logger, projectRoot)),
        );
        expect(nowhere.health()).to.equal('degraded');

        expect(logger.lines.some((line) => line.includes('cannot be reached'))).to.equal(true);
        for (const text of [
          ...logger.lines,
          ...errors.map((error) => `${String(error)} ${JSON.stringify(error)} ${(error as Error).stack}`),
        ]) {
          expect(text).not.to.include(password);
          expect(text).not.to.include(keyValue);
        }
        expect(errors.slice(2).every((error) => error instanceof CatalogUnavailable)).to.equal(true);
      });
    });
  });
}
