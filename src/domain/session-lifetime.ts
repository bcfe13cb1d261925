import type { SessionSettings } from './settings/settings.js';

/** Idle timeout (sliding) and absolute lifetime, both enforced from times kept in the session record. */
export interface SessionLifetime {
  idleMs: number;
  absoluteMs: number;
}

/** The lifetime the settings give a session (they are in seconds). */
export function sessionLifetime(settings: SessionSettings): SessionLifetime {
  return { idleMs: settings.IdleTimeout * 1000, absoluteMs: settings.AbsoluteLifetime * 1000 };
}

export interface SessionTimes {
  createdAt: number;
  lastSeenAt: number;
}

export function readTimes(record: Record<string, unknown>): SessionTimes | undefined {
  const { createdAt, lastSeenAt } = record;
  return typeof createdAt === 'number' && typeof lastSeenAt === 'number' ? { createdAt, lastSeenAt } : undefined;
}

export function isExpired(times: SessionTimes, lifetime: SessionLifetime, now: number): boolean {
  return now - times.lastSeenAt > lifetime.idleMs || now - times.createdAt > lifetime.absoluteMs;
}

/** How long the store keeps the record: until whichever limit comes first. */
export function remainingMs(times: SessionTimes, lifetime: SessionLifetime, now: number): number {
  return Math.max(1000, Math.min(times.lastSeenAt + lifetime.idleMs, times.createdAt + lifetime.absoluteMs) - now);
}

/**
 * `lastSeenAt` is rewritten at most this often: writing it on every request would save
 * the session (and send a cookie) on every request. The idle timeout is then exact to
 * within this interval.
 */
export function touchIntervalMs(lifetime: SessionLifetime): number {
  return Math.max(1000, Math.min(60_000, lifetime.idleMs / 10));
}
