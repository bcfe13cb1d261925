import type pg from 'pg';
import { catalogPool } from './catalog-pool.js';

/**
 * The directory store's pool: the catalog's (catalog-pool.ts: its sizes and time-outs), each
 * connection planning every statement for the values it runs with (`plan_cache_mode =
 * force_custom_plan`, a setting of the connection's start; a database URL naming `options`
 * of its own replaces it). PostgreSQL otherwise keeps, per connection, a generic plan made
 * after a statement's fifth run, from the table's size then: one made while a table was
 * young (a deployment's first push) scanned the whole table for ever after, until an
 * ANALYZE. It did for the check of each group member's foreign key (a plan PostgreSQL keeps
 * of its own): 54,000 scans of the groups table for 1,000 groups pushed, measured; 4,400
 * with this. The store's statements are still parsed once per connection
 * (prepared-statements.ts).
 */
export function directoryPool(connectionString: string): pg.Pool {
  return catalogPool(connectionString, { options: '-c plan_cache_mode=force_custom_plan' });
}
