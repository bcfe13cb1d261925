import type { RedisSessionStoreOptions } from './redis-session-store.js';
import { errorCode } from './redis-errors.js';

/**
 * What the Redis session store says in the log about its connection: each cause of failure
 * once per outage (by a code, never the message, which may name the host), a write no
 * replica confirmed once until one is, and the recovery once. Never a line per request.
 */
export class ConnectionReports {
  readonly #reportedErrors = new Set<string>();
  #unconfirmedReported = false;

  constructor(private readonly logger: RedisSessionStoreOptions['logger']) {}

  /** A connection error: logged by its code, once per code until the connection is back. */
  connectionFailed(error: unknown): void {
    const code = errorCode(error);
    if (this.#reportedErrors.has(code)) return;
    this.#reportedErrors.add(code);
    // The code only: ioredis errors may name the host, and the URL may hold a password.
    this.logger.warn({ code }, 'The Redis session store connection failed; reconnecting in the background.');
  }

  /** A write no replica confirmed in time: logged once until a write is confirmed again. */
  unconfirmed(): void {
    if (this.#unconfirmedReported) return;
    this.#unconfirmedReported = true;
    this.logger.warn(
      {},
      'A session-store write was refused: no replica confirmed it in time (ProjectTemplate:Session:Redis:WaitForReplica). Is a replica of every primary up?',
    );
  }

  /** The connection answers again: one line, if a failure was logged. */
  connected(): void {
    if (this.#reportedErrors.size === 0) return;
    this.#reportedErrors.clear();
    this.logger.warn({}, 'The Redis session store connection is restored.');
  }

  /** A write a replica confirmed: the next unconfirmed one is logged again. */
  confirmed(): void {
    this.#unconfirmedReported = false;
  }
}
