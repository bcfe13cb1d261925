import pg from 'pg';
import { CatalogUnavailable } from '../../application/ports/connection-catalog.js';
import { GatehouseError } from '../../domain/errors.js';

/**
 * SQLSTATE classes that mean "the catalog cannot be used now", not "this query is wrong":
 * 08 connection exception, 28 invalid authorization (a password changed under us), 3D no
 * such database, 53 insufficient resources (too many connections), 57 operator
 * intervention (a shutdown, a statement timed out), 58 system error (I/O).
 * https://www.postgresql.org/docs/current/errcodes-appendix.html
 */
const UNREACHABLE_CLASSES = new Set(['08', '28', '3D', '53', '57', '58']);

/**
 * Whether a pg error means the database cannot be reached: a SQLSTATE of the classes above,
 * or no answer from the server at all (a socket error such as ECONNREFUSED, or pg's own
 * "Connection terminated", "timeout exceeded when trying to connect", "Query read timeout").
 * JavaScript's own errors (a TypeError, a RangeError from a bad time) are bugs, not outages.
 */
export function isUnreachable(error: unknown): boolean {
  if (error instanceof pg.DatabaseError) return UNREACHABLE_CLASSES.has(String(error.code).slice(0, 2));
  return !(
    error instanceof TypeError ||
    error instanceof RangeError ||
    error instanceof ReferenceError ||
    error instanceof SyntaxError
  );
}

/**
 * What a catalog method rejects with instead of pg's error, whose message may name the host,
 * the user or the database, and whose `detail` and `where` may quote a value: the port's
 * CatalogUnavailable, or an error naming the SQLSTATE only. Neither keeps the cause.
 */
export function catalogError(error: unknown): Error {
  if (isUnreachable(error)) return new CatalogUnavailable();
  // 42P01 undefined_table: the database answers, but its migrations never ran (Database:Migrate
  // false, and no `npm run db:migrate`). Not an outage: no wait makes the tables appear.
  if (error instanceof pg.DatabaseError && error.code === '42P01') {
    return new GatehouseError(
      'catalog.not_migrated',
      'the connection catalog refused a query (SQLSTATE 42P01, no such table): its migrations have not been applied',
    );
  }
  const what =
    error instanceof pg.DatabaseError ? `SQLSTATE ${error.code}` : error instanceof Error ? error.name : 'unknown';
  return new GatehouseError('catalog.query_failed', `the connection catalog refused a query (${what})`);
}

/**
 * A short identifier safe to log: the SQLSTATE, Node's socket code (`ECONNREFUSED`), or
 * `CONNECTION` for pg's own errors. Never the message.
 */
export function reasonOf(error: unknown): string {
  const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
  return typeof code === 'string' && /^[A-Z0-9_]{1,40}$/.test(code) ? code : 'CONNECTION';
}
