import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { runner } from 'node-pg-migrate';
import pg from 'pg';
import type { Logger } from '../../application/ports/logger.js';
import { catalogError, reasonOf } from './catalog-errors.js';
import { CONNECT_TIMEOUT_MS } from './catalog-pool.js';
import { GatehouseError } from '../../domain/errors.js';

/**
 * Where the catalog's migrations are, from the project root: SQL files read at run time
 * (the caller finds the root: bootstrap/project-root.ts). The build copies them beside the
 * bundle (scripts/build/bundle-gatehouse.ts), for a deployment of dist/ without src/.
 */
export const CATALOG_MIGRATIONS = join('src', 'adapters', 'postgres', 'migrations');
const BUNDLED_MIGRATIONS = join('dist', 'bundle', 'migrations');

/** The sources' folder in a checkout; the bundle's copy in a deployment of dist/ alone. */
export function migrationsFolder(projectRoot: string): string {
  const sources = join(projectRoot, CATALOG_MIGRATIONS);
  return existsSync(sources) ? sources : join(projectRoot, BUNDLED_MIGRATIONS);
}

/** The table recording which migrations ran: the catalog's own, beside any the application keeps. */
const MIGRATIONS_TABLE = 'gatehouse_migrations';

/**
 * The advisory lock the migrations run under: a number of the catalog's own rather than
 * node-pg-migrate's shared default, so that an application migrating its own tables with
 * node-pg-migrate in the same database neither waits for these nor makes these wait.
 */
const MIGRATIONS_LOCK = 0x6761_7465_686f; // "gateho"

/**
 * Applies the catalog's pending migrations (node-pg-migrate, SQL files, all in one
 * transaction) and returns their names, none when the database is up to date. Instances
 * starting at once are safe: each waits for the migrations' advisory lock, and finds the
 * work done when it gets it. Fails with CatalogUnavailable when the database cannot be
 * reached, or an error naming a SQLSTATE: never with the URL or pg's message.
 */
export async function migrateCatalog(connectionString: string, logger: Logger, projectRoot: string): Promise<string[]> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, keepAlive: true });
  client.on('error', () => undefined); // a connection lost between statements fails the statement that follows
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    logger.error({ reason: reasonOf(error) }, 'the connection catalog migrations could not connect to the database');
    throw catalogError(error);
  }
  try {
    const applied = await runner({
      dbClient: client,
      dir: migrationsFolder(projectRoot),
      migrationsTable: MIGRATIONS_TABLE,
      direction: 'up',
      count: Number.POSITIVE_INFINITY,
      singleTransaction: true,
      checkOrder: true,
      advisoryLockMode: 'wait',
      lockValue: MIGRATIONS_LOCK,
      logger: {
        // Its lines list the files and their SQL: details for a debug log.
        debug: (message) => logger.debug({}, String(message)),
        info: (message) => logger.debug({}, String(message)),
        warn: (message) => logger.warn({}, String(message)),
        error: (message) => logger.error({}, String(message)),
      },
    });
    const names = applied.map((migration) => migration.name);
    if (names.length > 0) logger.info({ migrations: names }, 'the connection catalog migrations were applied');
    return names;
  } catch (error) {
    logger.error({ reason: reasonOf(error) }, 'the connection catalog migrations failed');
    // The server's errors by SQLSTATE. node-pg-migrate wraps some of the server's in a plain
    // Error whose text quotes the server ("permission denied for schema public"), so no text
    // of its passes on: the migration files' names are in the migrations table and the log.
    if (error instanceof pg.DatabaseError || !(error instanceof Error)) throw catalogError(error);
    throw new GatehouseError(
      'catalog.migration_failed',
      'the migrations failed: the database refused one (its own log says why, for example a role without the right to create tables), or a migration file is missing or out of order; no later migration was applied',
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}
