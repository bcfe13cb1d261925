import { CatalogUnavailable } from '../../application/ports/connection-catalog.js';
import { GatehouseError } from '../../domain/errors.js';

/**
 * SQLite's primary result codes that mean "the file cannot be used now", not "this statement
 * is wrong": BUSY, LOCKED, NOMEM, READONLY, IOERR, CORRUPT, FULL, CANTOPEN, PROTOCOL, NOTADB.
 * https://sqlite.org/rescode.html
 */
const UNUSABLE = new Set([5, 6, 7, 8, 10, 11, 13, 14, 15, 26]);

/** The embedded store out of use: the port's `catalog.unavailable`, as the PostgreSQL store says it. */
export class DirectoryUnavailable extends CatalogUnavailable {
  readonly code = 'catalog.unavailable';

  constructor() {
    super();
    this.message = 'the directory store cannot be used now';
  }
}

/** SQLite's extended result code of a node:sqlite error, else undefined. */
export function resultCodeOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null || !('errcode' in error)) return undefined;
  return typeof error.errcode === 'number' ? error.errcode : undefined;
}

/**
 * Whether a node:sqlite error means the file cannot be used: one of the codes above, or the
 * database already closed (Node's ERR_INVALID_STATE). JavaScript's own errors are bugs.
 */
export function isUnusable(error: unknown): boolean {
  const code = resultCodeOf(error);
  if (code !== undefined) return UNUSABLE.has(code & 0xff);
  return typeof error === 'object' && error !== null && 'code' in error && error.code === 'ERR_INVALID_STATE';
}

/**
 * What a store method rejects with instead of node:sqlite's error, whose message may quote a
 * constraint's columns or, from a CHECK, a value: DirectoryUnavailable, or an error naming
 * SQLite's result code only. Neither keeps the cause.
 */
export function directoryError(error: unknown): Error {
  if (isUnusable(error)) return new DirectoryUnavailable();
  const code = resultCodeOf(error);
  const what = code !== undefined ? `SQLite result ${code}` : error instanceof Error ? error.name : 'unknown';
  return new GatehouseError('directory.query_failed', `the directory store refused a query (${what})`);
}

/** A short identifier safe to log: SQLite's result code, or Node's error code. Never the message. */
export function reasonOf(error: unknown): string {
  const code = resultCodeOf(error);
  if (code !== undefined) return `SQLITE_${code}`;
  const nodeCode = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
  return typeof nodeCode === 'string' && /^[A-Z0-9_]{1,40}$/.test(nodeCode) ? nodeCode : 'UNKNOWN';
}
