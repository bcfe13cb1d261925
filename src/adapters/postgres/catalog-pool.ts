import pg from 'pg';

/**
 * How long a catalog call may wait for the database before it rejects with
 * CatalogUnavailable (the API answers 503): connecting (or waiting for a free connection),
 * and each statement, which the server cancels at STATEMENT_TIMEOUT_MS and the client gives
 * up on at QUERY_TIMEOUT_MS if the server does not answer at all.
 */
export const CONNECT_TIMEOUT_MS = 2_000;
export const STATEMENT_TIMEOUT_MS = 1_500;
export const QUERY_TIMEOUT_MS = 2_000;

/** Connections the pool opens at most: the API's writes and the registry's reads are few and short. */
const POOL_SIZE = 5;

/**
 * The pool of a catalog. An 'error' on an idle connection (the server restarted, the network
 * dropped it) is pg-pool's to handle: it drops the connection, and the next call opens
 * another; left without a listener, that error would end the process.
 */
export function catalogPool(connectionString: string, settings: { options?: string } = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    // Server settings for each connection (`-c name=value`); the URL's own `options` replaces them.
    ...settings,
    max: POOL_SIZE,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    statement_timeout: STATEMENT_TIMEOUT_MS,
    query_timeout: QUERY_TIMEOUT_MS,
    // A transaction of ours left open by a bug must not hold its rows locked for ever.
    idle_in_transaction_session_timeout: 10_000,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    application_name: 'gatehouse-catalog',
  });
  pool.on('error', () => undefined);
  return pool;
}
