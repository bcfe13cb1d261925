import { Cluster } from 'ioredis';
import type { SessionStore, StoredRecord } from '../../application/ports/session-store.js';
import { decodeRecord, encodeRecord } from './record-json.js';
import { ConnectionReports } from './redis-connection-reports.js';
import { unavailable } from './redis-errors.js';
import {
  clientAnswers,
  connectClient,
  createRedisClient,
  type RedisClient,
  type RedisConnection,
} from './redis-client.js';
import { checkAmount } from './counter-amount.js';
import { checkTimeToLive } from './time-to-live.js';

export interface RedisSessionStoreOptions {
  /** One server, a cluster or a Sentinel-watched primary, and its credentials: secrets, never logged. */
  connection: RedisConnection;
  /**
   * Creates, takes, removals and index entries succeed only once a replica has them
   * (WAIT), so that a failover cannot bring back a logged-out session or a used
   * single-use record, nor lose a sign-in it confirmed or the index entries its ending
   * needs. For a primary that has replicas (Cluster, Sentinel).
   */
  waitForReplica: boolean;
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
local count = redis.call('INCRBY', KEYS[1], ARGV[2])
if count == tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
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

/**
 * Sessions in Redis, shared by every instance of the application. One key per record,
 * always written with a time-to-live, so Redis itself forgets abandoned sessions and
 * nothing ever needs KEYS or SCAN.
 *
 * While Redis is unreachable every call fails within `commandTimeoutMs` with
 * `session.store_unavailable` (commands are neither queued nor replayed later), and
 * the client keeps reconnecting in the background with a capped backoff.
 *
 * Cluster safety: every command and the counter script touch exactly one key, the one
 * the caller named, passed to the script as KEYS[1] (never built inside it), so Redis
 * Cluster routes each to the primary of that key's slot and no command can fail with
 * CROSSSLOT. No script or transaction touches two keys, so no two keys need a shared hash
 * tag, and none has one, on purpose: the per-client challenge counters
 * (`challenges:<client>`), the single-use flow records (`flow:<hash>`, taken with GETDEL),
 * the SAML assertion replay records (`saml-assertion:<hash>`, claimed with SET NX; an
 * OpenID ID token's `jti` is not recorded: its nonce in the flow record makes it single
 * use), refresh claims (`refreshing:<ref>:<hash>`), sessions, sign-in records and provider
 * sessions each hash on their whole key, so they spread over every primary instead of
 * piling onto the one a shared tag would pick (the startup rules refuse a `{` in the key
 * prefix in Cluster mode for the same reason). What a sign-in writes to several keys is
 * ordered instead, each write confirmed by a replica (`waitForReplica`) before the next:
 * the sign-in record before the session that points to it, and each index entry
 * (`sessions-of:`, `sessions-by-logout:`) confirmed on the primary that holds it, so no
 * failover leaves a session pointing to a missing sign-in, nor a session that no ending
 * (sign out everywhere, a provider's logout) can find. The one command sent beside another is WAIT,
 * which names no key: it goes in a pipeline with the write it confirms, so it reaches that
 * write's primary on the same connection.
 */
export class RedisSessionStore implements SessionStore {
  private readonly redis: RedisClient;
  private readonly keyPrefix: string;
  private readonly logger: RedisSessionStoreOptions['logger'];
  private readonly waitForReplica: boolean;
  /** WAIT's own limit: half the command time-out, so that its answer arrives before the client gives up. */
  private readonly replicaWaitMs: number;
  private readonly connectWaitMs: number;
  // A reconnect loop emits the same error every attempt: each cause is logged once per outage.
  private readonly reports: ConnectionReports;

  constructor(options: RedisSessionStoreOptions) {
    this.keyPrefix = options.keyPrefix;
    this.logger = options.logger;
    this.reports = new ConnectionReports(options.logger);
    this.waitForReplica = options.waitForReplica;
    this.replicaWaitMs = Math.max(1, Math.floor(options.commandTimeoutMs / 2));
    this.connectWaitMs = options.commandTimeoutMs * 3;
    this.redis = createRedisClient(options.connection, options.commandTimeoutMs);
    // Always listen: without a listener ioredis writes each connection error's stack to
    // stderr on every reconnection attempt. Ours logs a code, once per cause and outage.
    this.redis.on('error', (error: unknown) => this.reports.connectionFailed(error));
    // A cluster reports a lost node apart from its own state.
    if (this.redis instanceof Cluster)
      this.redis.on('node error', (error: unknown) => this.reports.connectionFailed(error));
    this.redis.on('ready', () => this.reports.connected());
  }

  /**
   * Opens the connection. Resolves once connected, or once the first attempt failed, or
   * after three command time-outs (the sentinels may keep the first attempt going): an
   * application whose Redis is down at start still starts (readiness reports it), and the
   * client goes on connecting by itself.
   */
  async connect(): Promise<void> {
    // Only a client that has never connected accepts connect(); a command sent before
    // it may already have started connecting, and a closed store stays closed.
    if (this.redis.status !== 'wait') return;
    const connecting = connectClient(this.redis).then(
      () => true,
      () => false,
    );
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), this.connectWaitMs)));
    const connected = await Promise.race([connecting, waited]);
    clearTimeout(timer);
    // The `error` listener has logged the cause's code already.
    if (!connected)
      this.logger.warn({}, 'The Redis session store is not reachable at start; retrying in the background.');
    else await this.checkEvictionPolicy();
  }

  /**
   * Warns, once at connection, when Redis may evict keys before they expire: replay
   * records and index entries must live their whole time-to-live, and every key here has
   * one, so only `noeviction` keeps them (docs/operations.md). Read from INFO, on every
   * primary of a cluster; a user denied INFO gets a line saying nothing was checked.
   * Never throws, and never fails readiness.
   */
  private async checkEvictionPolicy(): Promise<void> {
    const primaries = this.redis instanceof Cluster ? this.redis.nodes('master') : [this.redis];
    const policies = await Promise.all(
      primaries.map((node) =>
        node.info('memory').then(
          (info) => /^maxmemory_policy:(\S+)/m.exec(info)?.[1],
          () => undefined,
        ),
      ),
    );
    const evicting = [...new Set(policies.filter((policy) => policy !== undefined && policy !== 'noeviction'))];
    if (evicting.length > 0) {
      this.logger.warn(
        { maxmemoryPolicy: evicting.join(',') },
        'Redis may evict keys before they expire: a replay record or an index entry evicted early lets a used message be used again, or leaves a session no logout finds. Set maxmemory-policy noeviction.',
      );
    } else if (policies.includes(undefined)) {
      this.logger.warn(
        {},
        'Could not read maxmemory-policy from Redis (INFO denied or unanswered): make sure it is noeviction.',
      );
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
    const reply = await this.confirmed('SET', this.keyPrefix + key, json, 'PX', ttl, 'NX');
    return reply === 'OK';
  }

  async replace(key: string, record: StoredRecord, ttlMs: number): Promise<boolean> {
    const ttl = checkTimeToLive(ttlMs);
    const json = encodeRecord(record);
    // SET … XX writes nothing when the key is gone: a record removed meanwhile (a logout
    // on another instance) is never brought back by a request that loaded it earlier.
    return (await this.run(() => this.redis.set(this.keyPrefix + key, json, 'PX', ttl, 'XX'))) === 'OK';
  }

  async destroy(key: string): Promise<void> {
    await this.confirmed('DEL', this.keyPrefix + key);
  }

  async take(key: string): Promise<StoredRecord | undefined> {
    // GETDEL (Redis 6.2) reads and deletes in one command: a flow record is used once.
    const json = await this.confirmed('GETDEL', this.keyPrefix + key);
    if (json !== null && typeof json !== 'string') throw unavailable(new Error('Unexpected reply to GETDEL.'));
    return json === null ? undefined : this.decode(json);
  }

  async increment(key: string, windowMs: number, amount = 1): Promise<{ count: number; resetsInMs: number }> {
    const window = checkTimeToLive(windowMs);
    checkAmount(amount);
    const reply = await this.run(() => this.redis.eval(INCREMENT_IN_WINDOW, 1, this.keyPrefix + key, window, amount));
    if (!Array.isArray(reply) || typeof reply[0] !== 'number' || typeof reply[1] !== 'number') {
      throw unavailable(new Error('Unexpected reply to the counter script.'));
    }
    return { count: reply[0], resetsInMs: reply[1] };
  }

  // Confirmed like a create: an ending finds a session through its indexes only (sign out
  // everywhere, a provider's logout), so an entry a failover lost would leave a session
  // nothing can end. In a cluster an index lives on its own primary, which the session's
  // confirmation does not reach: each entry is confirmed where it is written.
  async addToIndex(key: string, member: string, expiresAt: number): Promise<void> {
    const now = Date.now();
    if (!(expiresAt > now)) return;
    await this.confirmed('EVAL', ADD_TO_INDEX, 1, this.keyPrefix + key, expiresAt, member, now);
  }

  async indexMembers(key: string): Promise<string[]> {
    return this.run(() => this.redis.zrangebyscore(this.keyPrefix + key, `(${Date.now()}`, '+inf'));
  }

  // Not confirmed: a removal a failover lost leaves a handle whose session record was taken
  // (a confirmed write), which a listing skips and the next ending drops.
  async removeFromIndex(key: string, member: string): Promise<void> {
    await this.run(() => this.redis.zrem(this.keyPrefix + key, member));
  }

  /**
   * True when Redis answers within the command time-out: the server or the sentinels'
   * primary, or in a cluster the primary of every slot. Never throws.
   */
  async ping(): Promise<boolean> {
    const answered = await clientAnswers(this.redis);
    // A cluster stays `ready` while one of its primaries is replaced: its recovery is
    // seen here, by the readiness probe, rather than by a `ready` event.
    if (answered) this.reports.connected();
    return answered;
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

  /**
   * Runs a write that a failover must not undo. With `waitForReplica` it is followed by
   * WAIT 1 on the same connection, and succeeds only once a replica has it: a replica that
   * has not answered within half the command time-out makes it fail, though the primary
   * holds it (the caller answers 503; a retry sees what the primary holds). Redis promotes
   * the replica that has received the most, so a confirmed write survives the failover of
   * its primary.
   */
  private async confirmed(
    command: 'SET' | 'DEL' | 'GETDEL' | 'EVAL',
    ...args: Array<string | number>
  ): Promise<unknown> {
    if (!this.waitForReplica) return this.run(() => this.redis.call(command, ...args));
    const send = () =>
      this.run(() =>
        this.redis
          .pipeline()
          .call(command, ...args)
          .wait(1, this.replicaWaitMs)
          .exec(),
      );
    let [written, waited] = (await send()) ?? [];
    // A cluster node that no longer serves the key's slot (a failover it has not learnt
    // of yet) ran nothing and says where the slot is: learn the new map and send it once
    // more. (The client follows such a redirection by itself for a lone command, not for
    // a pipeline whose WAIT, naming no key, was answered.)
    const moved = written?.[0] ? /^MOVED \d+ (\S+)$/.exec(written[0].message)?.[1] : undefined;
    if (this.redis instanceof Cluster && moved !== undefined) {
      await refreshedMap(this.redis, moved);
      [written, waited] = (await send()) ?? [];
    }
    if (!written || !waited) throw unavailable(new Error('No reply to a confirmed write.'));
    if (written[0]) throw unavailable(written[0]);
    if (waited[0]) throw unavailable(waited[0]);
    if (typeof waited[1] !== 'number' || waited[1] < 1) {
      this.reports.unconfirmed();
      throw unavailable(new Error('No replica confirmed the write in time.'));
    }
    this.reports.confirmed();
    return written[1];
  }

  private decode(json: string): StoredRecord {
    try {
      return decodeRecord(json);
    } catch (error) {
      throw unavailable(error);
    }
  }
}

/**
 * Learns a cluster's slot map anew after a MOVED redirection to `nodeKey`, and waits until
 * the connection to that primary is open: a pipeline sent while it is still opening would
 * fail at once (no offline queue). Bounded by the refresh and connect time-outs.
 */
async function refreshedMap(cluster: Cluster, nodeKey: string): Promise<void> {
  await new Promise<void>((resolve) => cluster.refreshSlotsCache(() => resolve()));
  const primary = cluster.nodes('master').find((node) => `${node.options.host}:${node.options.port}` === nodeKey);
  await primary?.ping().catch(() => undefined);
}
