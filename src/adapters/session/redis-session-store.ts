import { Redis } from 'ioredis';
import type { SessionStore, StoredRecord } from '../../application/ports/session-store.js';
import { GatehouseError } from '../../domain/errors.js';
import { decodeRecord, encodeRecord } from './record-json.js';
import { checkTimeToLive } from './time-to-live.js';

export interface RedisSessionStoreOptions {
  /** `redis://[user:password@]host:port[/db]` or `rediss://...`; a secret, never logged. */
  url: string;
  /** Prepended to every key, so several applications can share one Redis. */
  keyPrefix: string;
  /** Upper bound for connecting and for each command, in milliseconds. */
  commandTimeoutMs: number;
  logger: {
    warn(fields: object, msg: string): void;
    error(fields: object, msg: string): void;
  };
}

/**
 * One more event in a fixed window, atomically (a script runs alone on the server): the
 * first event starts the window; a counter left without a time-to-live (never, but
 * cheaply made sure) gets one, so it cannot count for ever.
 */
const INCREMENT_IN_WINDOW = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local left = redis.call('PTTL', KEYS[1])
if left < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  left = tonumber(ARGV[1])
end
return { count, left }`;

/**
 * One more member of an index (a sorted set scored by when each member ends), atomically:
 * the members whose time has passed are dropped, and the set lives until its latest member
 * ends, so an index never outlives what it lists nor grows for ever.
 */
const ADD_TO_INDEX = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
local latest = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[1], latest[2])
return 1`;

/** Longest pause between reconnection attempts, however long the outage lasts. */
const MAX_RECONNECT_DELAY_MS = 2_000;

/**
 * Sessions in Redis, shared by every instance of the application. One key per record,
 * always written with a time-to-live, so Redis itself forgets abandoned sessions and
 * nothing ever needs KEYS or SCAN.
 *
 * While Redis is unreachable every call fails within `commandTimeoutMs` with
 * `session.store_unavailable` (commands are neither queued nor replayed later), and
 * the client keeps reconnecting in the background with a capped backoff.
 */
export class RedisSessionStore implements SessionStore {
  private readonly redis: Redis;
  private readonly keyPrefix: string;
  private readonly logger: RedisSessionStoreOptions['logger'];
  // Connection error codes already logged during the current outage: a reconnect loop
  // emits the same error every attempt, and one line per cause is enough.
  private readonly reportedErrors = new Set<string>();

  constructor(options: RedisSessionStoreOptions) {
    this.keyPrefix = options.keyPrefix;
    this.logger = options.logger;
    this.redis = createClient(options.url, options.commandTimeoutMs);
    // Always listen: without a listener ioredis writes each connection error's stack to
    // stderr on every reconnection attempt. Ours logs a code, once per cause and outage.
    this.redis.on('error', (error: unknown) => this.reportConnectionError(error));
    this.redis.on('ready', () => this.reportRecovery());
  }

  /**
   * Opens the connection. Resolves once connected, or once the first attempt failed:
   * an application whose Redis is down at start still starts (readiness reports it),
   * and the client goes on reconnecting by itself.
   */
  async connect(): Promise<void> {
    // Only a client that has never connected accepts connect(); a command sent before
    // it may already have started connecting, and a closed store stays closed.
    if (this.redis.status !== 'wait') return;
    try {
      await this.redis.connect();
    } catch {
      // The `error` listener has logged the cause's code already.
      this.logger.warn({}, 'The Redis session store is not reachable at start; retrying in the background.');
    }
  }

  async get(key: string): Promise<StoredRecord | undefined> {
    const json = await this.run(() => this.redis.get(this.keyPrefix + key));
    return json === null ? undefined : this.decode(json);
  }

  async create(key: string, record: StoredRecord, ttlMs: number): Promise<boolean> {
    const ttl = checkTimeToLive(ttlMs);
    const json = encodeRecord(record);
    // SET … NX answers OK only to the one client that created the key.
    return (await this.run(() => this.redis.set(this.keyPrefix + key, json, 'PX', ttl, 'NX'))) === 'OK';
  }

  async replace(key: string, record: StoredRecord, ttlMs: number): Promise<boolean> {
    const ttl = checkTimeToLive(ttlMs);
    const json = encodeRecord(record);
    // SET … XX writes nothing when the key is gone: a record removed meanwhile (a logout
    // on another instance) is never brought back by a request that loaded it earlier.
    return (await this.run(() => this.redis.set(this.keyPrefix + key, json, 'PX', ttl, 'XX'))) === 'OK';
  }

  async destroy(key: string): Promise<void> {
    await this.run(() => this.redis.del(this.keyPrefix + key));
  }

  async take(key: string): Promise<StoredRecord | undefined> {
    // GETDEL (Redis 6.2) reads and deletes in one command: a flow record is used once.
    const json = await this.run(() => this.redis.getdel(this.keyPrefix + key));
    return json === null ? undefined : this.decode(json);
  }

  async increment(key: string, windowMs: number): Promise<{ count: number; resetsInMs: number }> {
    const window = checkTimeToLive(windowMs);
    const reply = await this.run(() => this.redis.eval(INCREMENT_IN_WINDOW, 1, this.keyPrefix + key, window));
    if (!Array.isArray(reply) || typeof reply[0] !== 'number' || typeof reply[1] !== 'number') {
      throw unavailable(new Error('Unexpected reply to the counter script.'));
    }
    return { count: reply[0], resetsInMs: reply[1] };
  }

  async addToIndex(key: string, member: string, expiresAt: number): Promise<void> {
    const now = Date.now();
    if (!(expiresAt > now)) return;
    await this.run(() => this.redis.eval(ADD_TO_INDEX, 1, this.keyPrefix + key, expiresAt, member, now));
  }

  async indexMembers(key: string): Promise<string[]> {
    return this.run(() => this.redis.zrangebyscore(this.keyPrefix + key, `(${Date.now()}`, '+inf'));
  }

  async removeFromIndex(key: string, member: string): Promise<void> {
    await this.run(() => this.redis.zrem(this.keyPrefix + key, member));
  }

  /** True when Redis answers PING within the command time-out. Never throws. */
  async ping(): Promise<boolean> {
    try {
      return (await this.redis.ping()) === 'PONG';
    } catch {
      return false;
    }
  }

  /** Ends the connection and stops reconnecting: QUIT when possible, else at once. */
  async close(): Promise<void> {
    const status = this.redis.status;
    if (status === 'end') return;
    // QUIT on a never-connected client would open a connection just to close it.
    if (status === 'wait') {
      this.redis.disconnect();
      return;
    }
    try {
      await this.redis.quit();
    } catch {
      this.redis.disconnect();
    }
  }

  /** Runs one command and translates every failure into the one code callers handle. */
  private async run<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (error) {
      throw unavailable(error);
    }
  }

  private decode(json: string): StoredRecord {
    try {
      return decodeRecord(json);
    } catch (error) {
      throw unavailable(error);
    }
  }

  private reportConnectionError(error: unknown): void {
    const code = errorCode(error);
    if (this.reportedErrors.has(code)) return;
    this.reportedErrors.add(code);
    // The code only: ioredis errors may name the host, and the URL may hold a password.
    this.logger.warn({ code }, 'The Redis session store connection failed; reconnecting in the background.');
  }

  private reportRecovery(): void {
    if (this.reportedErrors.size === 0) return;
    this.reportedErrors.clear();
    this.logger.warn({}, 'The Redis session store connection is restored.');
  }
}

function createClient(url: string, commandTimeoutMs: number): Redis {
  try {
    return new Redis(url, {
      // Constructing opens nothing; bootstrap calls connect() when it is ready to.
      lazyConnect: true,
      connectTimeout: commandTimeoutMs,
      commandTimeout: commandTimeoutMs,
      // A connection that stops answering is replaced instead of timing out every
      // command until TCP keep-alive notices, minutes later.
      socketTimeout: commandTimeoutMs * 2,
      // While disconnected a command fails at once instead of waiting in a queue, and
      // commands caught by a disconnect fail instead of being sent again after it: a
      // replayed SET could overwrite a newer session, a replayed GETDEL consume a
      // flow record whose caller already saw an error.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      retryStrategy: reconnectDelay,
      connectionName: 'gatehouse-sessions',
      // Commands issued in one turn of the event loop (the session reads of the requests
      // that arrived together) go out in one write: a system call per command was the
      // largest single cost of a Redis-backed request (npm run bench). Each command keeps
      // its own reply, time-out and error.
      enableAutoPipelining: true,
    });
  } catch {
    // Node's URL error carries the whole input, password included: drop the cause.
    throw new GatehouseError('config.invalid', 'ProjectTemplate:Session:Redis:Url is not a valid Redis URL.');
  }
}

/** Exponential backoff from 50 ms, capped, with jitter so instances do not reconnect in step. */
function reconnectDelay(attempt: number): number {
  const exponential = 50 * 2 ** Math.min(attempt - 1, 10);
  return Math.min(exponential, MAX_RECONNECT_DELAY_MS) + Math.floor(Math.random() * 100);
}

/**
 * The store's one failure. The cause keeps name, message and code but not the
 * `command` ioredis attaches to reply errors: its arguments hold the session JSON.
 */
function unavailable(error: unknown): GatehouseError {
  const cause = error instanceof Error ? redacted(error) : new Error('Non-error thrown by the Redis client.');
  return new GatehouseError('session.store_unavailable', 'The session store is unavailable.', { cause });
}

function redacted(error: Error): Error {
  const copy = new Error(error.message);
  copy.name = error.name;
  if (error.stack !== undefined) copy.stack = error.stack;
  if ('code' in error && typeof error.code === 'string') Object.assign(copy, { code: error.code });
  return copy;
}

/**
 * A short identifier that is safe to log: Node's `ECONNREFUSED`, Redis's `WRONGPASS`,
 * or the error's class name. Never the message, which may name the host.
 */
function errorCode(error: unknown): string {
  if (!(error instanceof Error)) return 'UNKNOWN';
  if ('code' in error && typeof error.code === 'string' && /^[A-Z0-9_]{1,40}$/.test(error.code)) return error.code;
  const replyPrefix = /^([A-Z]{2,20}) /.exec(error.message);
  if (error.name === 'ReplyError' && replyPrefix?.[1] !== undefined) return replyPrefix[1];
  return /^[A-Za-z]{1,40}$/.test(error.name) ? error.name : 'UNKNOWN';
}
