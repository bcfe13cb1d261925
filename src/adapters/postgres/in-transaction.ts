import type pg from 'pg';
import { isUnreachable } from './catalog-errors.js';

/**
 * Runs `work` in one transaction on one connection of `pool`, committed when `commits`
 * says its outcome wrote, rolled back otherwise: a refusal (a stale version, a name taken)
 * leaves nothing behind. A connection that failed is destroyed rather than rolled back (the
 * server rolls back what a closed connection left), so that an outage costs one time-out,
 * not two; while it is held, an 'error' it emits between statements is handled here. Any
 * failure, connecting included, is passed through `failed` (the store's own error mapping).
 */
export async function inTransaction<T>(
  pool: pg.Pool,
  work: (db: pg.PoolClient) => Promise<T>,
  commits: (outcome: T) => boolean,
  failed: (error: unknown) => Error,
): Promise<T> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw failed(error);
  }
  const ignore = () => undefined;
  client.on('error', ignore);
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const outcome = await work(client);
    await client.query(commits(outcome) ? 'COMMIT' : 'ROLLBACK');
    return outcome;
  } catch (error) {
    if (isUnreachable(error)) broken = error instanceof Error ? error : new Error('unreachable');
    else await client.query('ROLLBACK').catch((rollback: unknown) => (broken = rollback as Error));
    throw failed(error);
  } finally {
    client.off('error', ignore);
    client.release(broken);
  }
}
