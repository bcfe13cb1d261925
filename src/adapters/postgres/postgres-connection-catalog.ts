import type pg from 'pg';
import type {
  CatalogEntry,
  CatalogPage,
  CatalogQuery,
  CatalogWrite,
  ConnectionCatalog,
  DeclareEntry,
  DomainClaim,
  ExpectedVersion,
  PutOutcome,
  RemoveOutcome,
} from '../../application/ports/connection-catalog.js';
import type { ConnectionChange } from '../../application/ports/connection-directory.js';
import type { Logger } from '../../application/ports/logger.js';
import type { ConnectionDeclaration } from '../../domain/connections/connection.js';
import { error as problem } from '../../domain/settings/problem.js';
import { catalogError, isUnreachable, reasonOf } from './catalog-errors.js';
import { catalogPool } from './catalog-pool.js';
import { inTransaction } from './in-transaction.js';
import {
  deleteEntry,
  idOf,
  selectAll,
  selectByIds,
  selectClaims,
  selectDue,
  selectPage,
  writeEntry,
} from './catalog-queries.js';
import { CatalogWatch } from './catalog-watch.js';
import { KnownEntries } from './known-entries.js';

export interface PostgresConnectionCatalogOptions {
  /** A libpq URL; it may hold a password, so it is never logged nor put in an error. */
  connectionString: string;
  declare: DeclareEntry;
  logger: Logger;
  /** How long after losing the database the listening connection is tried again. */
  reconnectMs?: number;
}

const DEFAULT_RECONNECT_MS = 1_000;

/**
 * The connection catalog in PostgreSQL (the tables of migrations/0001_connection-catalog.sql),
 * shared by every instance of the application. Writes are transactions whose version check
 * is the write's own condition (catalog-queries.ts), so two writers expecting the same
 * version cannot both win. Every change, by an instance or by anyone with SQL, is announced
 * by the tables' triggers, and `watch` reads only the entry a notification names
 * (catalog-watch.ts). While the database cannot be reached, every call rejects with
 * CatalogUnavailable within about two seconds (catalog-pool.ts), `health()` is `degraded`,
 * and the log says so once, and once more when it is back.
 */
export class PostgresConnectionCatalog implements ConnectionCatalog {
  readonly name = 'database';
  readonly #pool: pg.Pool;
  readonly #connectionString: string;
  readonly #declare: DeclareEntry;
  readonly #logger: Logger;
  readonly #reconnectMs: number;
  readonly #known = new KnownEntries();
  #watch: CatalogWatch | undefined;
  /** The last call failed for want of a connection. */
  #unreachable = false;
  /** A watch's changes do not flow (its listening connection is lost, or it has not read the catalog since). */
  #notFlowing = false;
  #reportedLost = false;
  #closed: Promise<void> | undefined;

  constructor(options: PostgresConnectionCatalogOptions) {
    this.#connectionString = options.connectionString;
    this.#declare = options.declare;
    this.#logger = options.logger;
    this.#reconnectMs = options.reconnectMs ?? DEFAULT_RECONNECT_MS;
    this.#pool = catalogPool(options.connectionString);
  }

  async read(): Promise<ConnectionDeclaration[]> {
    return this.#declareAll(await this.readEntries());
  }

  /**
   * Every entry as stored, not declared: for a registry that checks them later (a start on a
   * large catalog). What `watch` compares later reads with, as `read` does.
   */
  async readEntries(): Promise<CatalogEntry[]> {
    const entries = await this.#query(selectAll);
    this.#known.replaceAll(entries);
    return entries;
  }

  /** One watch at a time: the registry has one, and what was reported is the catalog's to remember. */
  watch(onChanges: (changes: ConnectionChange[]) => void): () => void {
    if (this.#watch) throw new Error('the connection catalog is watched already');
    const watch = new CatalogWatch(
      this.#connectionString,
      this.#reconnectMs,
      this.#known,
      {
        all: () => this.#query(selectAll),
        byIds: (ids) => this.#query((db) => selectByIds(db, ids)),
        declare: (entries) => this.#declareAll(entries),
        originOf: (id) => this.originOf(id),
        flowing: (flowing, error) => {
          this.#notFlowing = !flowing;
          this.#healthChanged(error);
        },
      },
      onChanges,
    );
    this.#watch = watch;
    watch.start();
    return () => {
      if (this.#watch !== watch) return;
      this.#watch = undefined;
      this.#notFlowing = false;
      this.#healthChanged(undefined);
      void watch.stop();
    };
  }

  /** `database:<name in lower case>`: names compare case-insensitively, so one entry has one origin. */
  originOf(name: string): string {
    return `database:${idOf(name)}`;
  }

  get(name: string): Promise<CatalogEntry | undefined> {
    return this.#query(async (db) => (await selectByIds(db, [idOf(name)]))[0]);
  }

  list(query: CatalogQuery): Promise<CatalogPage> {
    return this.#query((db) => selectPage(db, query));
  }

  put(write: CatalogWrite, expected: ExpectedVersion, at: number): Promise<PutOutcome> {
    return this.#transaction((db) => writeEntry(db, write, expected, at));
  }

  remove(name: string, expected: ExpectedVersion): Promise<RemoveOutcome> {
    return this.#query((db) => deleteEntry(db, name, expected));
  }

  claimsOf(domain: string, exceptName: string): Promise<DomainClaim[]> {
    return this.#query((db) => selectClaims(db, domain, exceptName));
  }

  dueForRecheck(before: number, limit: number): Promise<CatalogEntry[]> {
    return this.#query((db) => selectDue(db, before, limit));
  }

  health(): 'up' | 'degraded' {
    return this.#unreachable || this.#notFlowing ? 'degraded' : 'up';
  }

  /** Idempotent: a second call waits for the first. */
  close(): Promise<void> {
    this.#closed ??= this.#close();
    return this.#closed;
  }

  async #close(): Promise<void> {
    const watch = this.#watch;
    this.#watch = undefined;
    await watch?.stop();
    await this.#pool.end();
  }

  /** Runs queries on the pool; pg's errors become the port's (catalog-errors.ts), and health follows. */
  async #query<T>(work: (db: pg.Pool) => Promise<T>): Promise<T> {
    try {
      const result = await work(this.#pool);
      this.#reached(true);
      return result;
    } catch (error) {
      throw this.#failed(error);
    }
  }

  /** Runs `work` in one transaction (in-transaction.ts), committed only when it wrote; health follows. */
  async #transaction(work: (db: pg.PoolClient) => Promise<PutOutcome>): Promise<PutOutcome> {
    const outcome = await inTransaction(
      this.#pool,
      work,
      (outcome) => outcome.kind === 'written',
      (error) => this.#failed(error),
    );
    this.#reached(true);
    return outcome;
  }

  #failed(error: unknown): Error {
    if (isUnreachable(error)) this.#reached(false, error);
    return catalogError(error);
  }

  #reached(reached: boolean, error?: unknown): void {
    this.#unreachable = !reached;
    this.#healthChanged(error);
  }

  /** One line when the catalog is lost, one when it is back: never the URL, never a value. */
  #healthChanged(error: unknown): void {
    const degraded = this.health() === 'degraded';
    if (degraded === this.#reportedLost) return;
    this.#reportedLost = degraded;
    if (degraded) {
      this.#logger.error(
        error === undefined ? {} : { reason: reasonOf(error) },
        'the connection catalog (PostgreSQL) cannot be reached; connections are unchanged until it is back',
      );
    } else {
      this.#logger.info({}, 'the connection catalog (PostgreSQL) is reachable again');
    }
  }

  /**
   * Every entry through `declare`. An entry `declare` fails on (a secret sealed with a key no
   * longer configured) is declared refused by its origin, never a reason to fail the others.
   */
  #declareAll(entries: readonly CatalogEntry[]): Promise<ConnectionDeclaration[]> {
    return Promise.all(
      entries.map(async (entry) => {
        const origin = this.originOf(entry.name);
        try {
          return await this.#declare(entry, origin);
        } catch {
          return { name: entry.name, origin, section: {}, problems: [problem(origin, 'could not be read')] };
        }
      }),
    );
  }
}
