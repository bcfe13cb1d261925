import type { Clock } from '../application/ports/clock.js';
import type { Logger } from '../application/ports/logger.js';
import type { SessionStore } from '../application/ports/session-store.js';
import { MemorySessionStore } from '../adapters/session/memory-session-store.js';
import type { RedisConnection, RedisNode, RedisTopology } from '../adapters/session/redis-client.js';
import { parseRedisNode } from '../domain/settings/redis-rules.js';
import type { ProjectTemplateSettings, RedisSettings } from '../domain/settings/settings.js';

type ManagedStore = SessionStore & { ping(): Promise<boolean>; close(): Promise<void> };

export interface SessionStores {
  /** Signed-in state: sessions, sign-in records, saved tokens, claims. */
  sessions: ManagedStore;
  /** Pending sign-ins and per-client counts: never able to crowd out a signed-in user. */
  pendingSignIns: SessionStore;
  /** Replay records and ended provider sessions: never evicted by traffic before they expire. */
  replayRecords: SessionStore;
  /** Opens connections; never throws when the backend is down (readiness reports it). */
  connect(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The stores of one instance, from validated settings. In memory, pending sign-ins get a store of their own with
 * its own bound (`MaxPendingSignIns`), so that a flood of anonymous challenges evicts only
 * other pending sign-ins, never a signed-in session; replay records get a third
 * (`MaxReplayRecords`), which evicts nothing and refuses a new record when full, so that
 * no number of sign-ins can make a used message usable again. On Redis all three are the
 * same server (one connection): pending records carry short time-to-lives and the
 * per-client limit bounds how many there can be; that Redis evicts nothing is the
 * operator's part (`maxmemory-policy noeviction`, docs/operations.md). ioredis is imported
 * only when Redis is configured: it adds a noticeable part to a cold start that does not
 * use it (docs/performance.md).
 */
export async function createSessionStores(
  settings: ProjectTemplateSettings,
  logger: Logger,
  clock: Clock,
): Promise<SessionStores> {
  const session = settings.Session;
  if (session.Store === 'Redis') {
    const { RedisSessionStore } = await import('../adapters/session/redis-session-store.js');
    const store = new RedisSessionStore({
      connection: redisConnection(session.Redis),
      // A single server has no replica to confirm a write, nor a failover to survive.
      waitForReplica: session.Redis.Mode !== 'Standalone' && session.Redis.WaitForReplica,
      keyPrefix: session.Redis.KeyPrefix,
      commandTimeoutMs: session.Redis.CommandTimeoutMs,
      logger,
    });
    return {
      sessions: store,
      pendingSignIns: store,
      replayRecords: store,
      connect: () => store.connect(),
      close: () => store.close(),
    };
  }
  const sessions = new MemorySessionStore({ maxEntries: session.MaxSessions, clock });
  const pendingSignIns = new MemorySessionStore({ maxEntries: session.MaxPendingSignIns, clock });
  const replayRecords = new MemorySessionStore({
    maxEntries: session.MaxReplayRecords,
    clock,
    refuseWhenFull: { setting: 'ProjectTemplate:Session:MaxReplayRecords', logger },
  });
  return {
    sessions,
    pendingSignIns,
    replayRecords,
    connect: async () => undefined,
    close: async () => {
      await Promise.all([sessions.close(), pendingSignIns.close(), replayRecords.close()]);
    },
  };
}

/**
 * Where the Redis settings (already checked by the startup rules) point. With `Tls` the
 * system's certificate authorities are trusted, plus those in NODE_EXTRA_CA_CERTS.
 */
export function redisConnection(redis: RedisSettings): RedisConnection {
  return {
    topology: redisTopology(redis),
    ...(redis.Username !== '' ? { username: redis.Username } : {}),
    ...(redis.Password !== '' ? { password: redis.Password } : {}),
    ...(redis.Tls ? { tls: {} } : {}),
  };
}

function redisTopology(redis: RedisSettings): RedisTopology {
  switch (redis.Mode) {
    case 'Standalone':
      return { mode: 'Standalone', url: redis.Url };
    case 'Cluster':
      return { mode: 'Cluster', nodes: redisNodes(redis.Nodes) };
    case 'Sentinel':
      return {
        mode: 'Sentinel',
        sentinels: redisNodes(redis.Nodes),
        masterName: redis.SentinelMasterName,
        ...(redis.SentinelPassword !== '' ? { sentinelPassword: redis.SentinelPassword } : {}),
      };
  }
}

function redisNodes(values: readonly string[]): RedisNode[] {
  return values.map((value, index) => {
    const node = parseRedisNode(value);
    // The startup rules refuse such a value before any store is made.
    if (!node) throw new Error(`ProjectTemplate:Session:Redis:Nodes:${index} is not host:port.`);
    return node;
  });
}
