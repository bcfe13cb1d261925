import type { Clock } from '../application/ports/clock.js';
import type { Logger } from '../application/ports/logger.js';
import type { SessionStore } from '../application/ports/session-store.js';
import { MemorySessionStore } from '../adapters/session/memory-session-store.js';
import type { ProjectTemplateSettings } from '../domain/settings/settings.js';

type ManagedStore = SessionStore & { ping(): Promise<boolean>; close(): Promise<void> };

export interface SessionStores {
  /** Signed-in state: sessions, sign-in records, saved tokens, claims. */
  sessions: ManagedStore;
  /** Pending sign-ins and per-client counts: never able to crowd out a signed-in user. */
  pendingSignIns: SessionStore;
  /** Opens connections; never throws when the backend is down (readiness reports it). */
  connect(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The stores of one instance, from validated settings. In memory, pending sign-ins get a store of their own with
 * its own bound (`MaxPendingSignIns`), so that a flood of anonymous challenges evicts only
 * other pending sign-ins, never a signed-in session. On Redis both live on the same server
 * (one connection): pending records carry short time-to-lives and the per-client limit
 * bounds how many there can be. ioredis is imported only when Redis is configured: it
 * adds a noticeable part to a cold start that does not use it (README, Performance).
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
      url: session.Redis.Url,
      keyPrefix: session.Redis.KeyPrefix,
      commandTimeoutMs: session.Redis.CommandTimeoutMs,
      logger,
    });
    return { sessions: store, pendingSignIns: store, connect: () => store.connect(), close: () => store.close() };
  }
  const sessions = new MemorySessionStore({ maxEntries: session.MaxSessions, clock });
  const pendingSignIns = new MemorySessionStore({ maxEntries: session.MaxPendingSignIns, clock });
  return {
    sessions,
    pendingSignIns,
    connect: async () => undefined,
    close: async () => {
      await Promise.all([sessions.close(), pendingSignIns.close()]);
    },
  };
}
