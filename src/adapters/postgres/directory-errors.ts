import pg from 'pg';
import { CatalogUnavailable } from '../../application/ports/connection-catalog.js';
import { GatehouseError } from '../../domain/errors.js';
import { isUnreachable } from './catalog-errors.js';

/**
 * The directory store out of reach: a CatalogUnavailable (isCatalogUnavailable holds, so the
 * application answers 503 as it does for the catalog) carrying the port's error code.
 */
export class DirectoryUnavailable extends CatalogUnavailable {
  readonly code = 'catalog.unavailable';

  constructor() {
    super();
    this.message = 'the directory store cannot be reached now';
  }
}

/**
 * What a directory store method rejects with instead of pg's error, whose message may name the
 * host, the user or the database and whose `detail` may quote a value (a userName, an e-mail):
 * DirectoryUnavailable, or an error naming the SQLSTATE only. Neither keeps the cause.
 */
export function directoryError(error: unknown): Error {
  if (isUnreachable(error)) return new DirectoryUnavailable();
  const what =
    error instanceof pg.DatabaseError ? `SQLSTATE ${error.code}` : error instanceof Error ? error.name : 'unknown';
  return new GatehouseError('directory.query_failed', `the directory store refused a query (${what})`);
}

/** Whether `error` is the unique index `constraint` refusing a row (SQLSTATE 23505): a name taken. */
export function violates(error: unknown, constraint: string): boolean {
  return error instanceof pg.DatabaseError && error.code === '23505' && error.constraint === constraint;
}
