import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { ConnectionOptions } from 'node:tls';
import { GatehouseError } from '../../domain/errors.js';

export interface RedisNode {
  host: string;
  port: number;
}

/** Which Redis the store talks to: one server, a cluster found from its seeds, or the primary sentinels name. */
export type RedisTopology =
  | { mode: 'Standalone'; url: string }
  | { mode: 'Cluster'; nodes: readonly RedisNode[] }
  | { mode: 'Sentinel'; sentinels: readonly RedisNode[]; masterName: string; sentinelPassword?: string };

export interface RedisConnection {
  topology: RedisTopology;
  /** ACL user and password of the data nodes; a Standalone URL may carry them instead. Secrets, never logged. */
  username?: string;
  password?: string;
  /** TLS to every node and sentinel (`{}`: the system's certificate authorities); a `rediss://` URL turns it on too. */
  tls?: ConnectionOptions;
}

export type RedisClient = Redis | Cluster;

/** Longest pause between reconnection attempts, however long the outage lasts. */
const MAX_RECONNECT_DELAY_MS = 2_000;

/**
 * The same under Sentinel, shorter: after a failover the sentinels name the new primary at
 * once, and each attempt asks them first; the client finds it at most this late.
 */
const MAX_SENTINEL_RECONNECT_DELAY_MS = 500;

/** Every slot of a Redis Cluster (CLUSTER KEYSLOT is CRC16 mod 16384). */
const CLUSTER_SLOTS = 16_384;

/**
 * A client for the topology that opens nothing until `connect()`, fails every command within
 * `commandTimeoutMs` while its node is unreachable, and never sends a command twice.
 */
export function createRedisClient(connection: RedisConnection, commandTimeoutMs: number): RedisClient {
  const perConnection: RedisOptions = {
    connectTimeout: commandTimeoutMs,
    commandTimeout: commandTimeoutMs,
    // A connection that stops answering is replaced instead of timing out every
    // command until TCP keep-alive notices, minutes later.
    socketTimeout: commandTimeoutMs * 2,
    // Commands caught by a disconnect fail instead of being sent again after it: a
    // replayed SET could overwrite a newer session, a replayed GETDEL consume a flow
    // record whose caller already saw an error.
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    connectionName: 'gatehouse-sessions',
    ...(connection.username ? { username: connection.username } : {}),
    ...(connection.password ? { password: connection.password } : {}),
    ...(connection.tls ? { tls: connection.tls } : {}),
  };
  const client: RedisOptions = {
    ...perConnection,
    // Constructing opens nothing; bootstrap calls connect() when it is ready to.
    lazyConnect: true,
    // While disconnected a command fails at once instead of waiting in a queue.
    enableOfflineQueue: false,
    retryStrategy: reconnectDelay(MAX_RECONNECT_DELAY_MS),
    // Commands issued in one turn of the event loop (the session reads of the requests
    // that arrived together) go out in one write: a system call per command was the
    // largest single cost of a Redis-backed request (npm run bench). Each command keeps
    // its own reply, time-out and error.
    enableAutoPipelining: true,
  };
  const topology = connection.topology;
  switch (topology.mode) {
    case 'Standalone':
      try {
        return new Redis(topology.url, client);
      } catch {
        // Node's URL error carries the whole input, password included: drop the cause.
        throw new GatehouseError('config.invalid', 'ProjectTemplate:Session:Redis:Url is not a valid Redis URL.');
      }
    case 'Sentinel':
      return new Redis({
        ...client,
        retryStrategy: reconnectDelay(MAX_SENTINEL_RECONNECT_DELAY_MS),
        sentinels: topology.sentinels.map(({ host, port }) => ({ host, port })),
        name: topology.masterName,
        role: 'master',
        ...(topology.sentinelPassword ? { sentinelPassword: topology.sentinelPassword } : {}),
        ...(connection.tls ? { enableTLSForSentinelMode: true, sentinelTLS: connection.tls } : {}),
        sentinelCommandTimeout: commandTimeoutMs,
        // While no sentinel answers (or each refuses the password), asked again with the same capped backoff.
        sentinelRetryStrategy: reconnectDelay(MAX_SENTINEL_RECONNECT_DELAY_MS),
        // No failover detector: it reconnects on every sentinel's +switch-master, and the
        // sentinels announce one failover seconds apart, so a client already on the new
        // primary would drop it again. Sentinel closes the clients of a primary it demotes,
        // and they ask the sentinels anew (every half second at most, see above).
      });
    case 'Cluster': {
      const cluster = new Cluster(
        topology.nodes.map(({ host, port }) => ({ host, port })),
        clusterOptions(perConnection, connection.tls !== undefined, commandTimeoutMs),
      );
      // A primary learnt of while serving (after a failover) is connected to at once, not
      // on its first command: commands sent while its connection is still opening fail at
      // once (no offline queue), and a burst of requests would all meet that. At start,
      // connectClient opens them; the seeds are the cluster's own to try.
      cluster.on('+node', (node: Redis) => {
        if (cluster.status === 'ready' && !node.options.readOnly && node.status === 'wait')
          node.connect().catch(() => undefined);
      });
      return cluster;
    }
  }
}

/**
 * Opens the connections: resolves once connected (in a cluster, to every primary), or
 * rejects when the first attempt failed; the client goes on reconnecting by itself.
 */
export async function connectClient(client: RedisClient): Promise<void> {
  await client.connect();
  if (client instanceof Cluster) {
    // A primary's own connection queues until it is open: the first requests find them all open.
    await Promise.all(client.nodes('master').map((node) => node.ping().catch(() => undefined)));
  }
}

function clusterOptions(perConnection: RedisOptions, tls: boolean, commandTimeoutMs: number): ClusterOptions {
  return {
    lazyConnect: true,
    enableOfflineQueue: false,
    enableAutoPipelining: true,
    // A command whose node went away fails instead of being sent again after a pause: it
    // may have run (see maxRetriesPerRequest), and the request is better answered 503 at
    // once than held through an election. A MOVED or ASK redirection is still followed:
    // the node refused the command, so it ran nowhere.
    retryDelayOnFailover: 0,
    retryDelayOnClusterDown: 0,
    retryDelayOnTryAgain: 0,
    clusterRetryStrategy: reconnectDelay(MAX_RECONNECT_DELAY_MS),
    slotsRefreshTimeout: commandTimeoutMs,
    // Reads go to primaries only: a replica may not have a session written a moment ago.
    scaleReads: 'master',
    // With TLS the seeds' host names are kept, so the certificate is checked against them.
    ...(tls ? { dnsLookup: (address: string, callback) => callback(null, address) } : {}),
    redisOptions: perConnection,
  };
}

/**
 * True when the client can serve every key within the command time-out: one server or the
 * sentinels' primary answers PING; in a cluster every slot has a primary and each of them
 * answers. Never throws.
 */
export async function clientAnswers(client: RedisClient): Promise<boolean> {
  try {
    if (!(client instanceof Cluster)) return (await client.ping()) === 'PONG';
    const answered = await everySlotServed(client);
    // A primary that went away (a failover under way or done) is learnt now, not at the
    // next periodic refresh.
    if (!answered) client.refreshSlotsCache();
    return answered;
  } catch {
    return false;
  }
}

async function everySlotServed(cluster: Cluster): Promise<boolean> {
  if (cluster.status !== 'ready') return false;
  const owners = new Set<string>();
  for (let slot = 0; slot < CLUSTER_SLOTS; slot++) {
    const owner = cluster.slots[slot]?.[0];
    if (owner === undefined) return false;
    owners.add(owner);
  }
  const primaries = new Map(cluster.nodes('master').map((node) => [`${node.options.host}:${node.options.port}`, node]));
  const replies = await Promise.all(
    [...owners].map(
      (owner) =>
        primaries
          .get(owner)
          ?.ping()
          .catch(() => undefined) ?? Promise.resolve(undefined),
    ),
  );
  return replies.every((reply) => reply === 'PONG');
}

/** Exponential backoff from 50 ms, capped, with jitter so instances do not reconnect in step. */
function reconnectDelay(capMs: number): (attempt: number) => number {
  return (attempt) => Math.min(50 * 2 ** Math.min(attempt - 1, 10), capMs) + Math.floor(Math.random() * 100);
}
