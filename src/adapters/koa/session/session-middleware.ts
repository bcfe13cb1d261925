import type Koa from 'koa';
import type { Middleware } from 'koa';
import createSession from 'koa-session';
import type { Clock } from '../../../application/ports/clock.js';
import type { SessionStore, StoredRecord } from '../../../application/ports/session-store.js';
import type { SessionSettings } from '../../../domain/settings/settings.js';
import { isExpired, readTimes, remainingMs, type SessionLifetime } from './session-lifetime.js';
import { isSessionToken, newSessionToken, sessionStoreKey } from './session-token.js';

export interface SessionMiddlewareOptions {
  app: Koa;
  store: SessionStore;
  settings: SessionSettings;
  production: boolean;
  clock: Clock;
  /** Removes the records an expired session points to (its sign-in, its saved tokens). */
  releaseExpired: (record: StoredRecord) => Promise<void>;
}

/** `__Host-` keeps subdomains from setting or shadowing the cookie; it needs Secure, so production only. */
export function sessionCookieName(settings: SessionSettings, production: boolean): string {
  if (settings.CookieName !== '') return settings.CookieName;
  return production ? '__Host-gatehouse.sid' : 'gatehouse.sid';
}

export function sessionLifetime(settings: SessionSettings): SessionLifetime {
  return { idleMs: settings.IdleTimeout * 1000, absoluteMs: settings.AbsoluteLifetime * 1000 };
}

/**
 * koa-session over the SessionStore port. The cookie is an opaque 256-bit token
 * (HttpOnly, SameSite=Lax, Secure in production, a browser-session cookie); the state
 * lives server-side under a hash of the token; idle and absolute expiry are enforced
 * from `createdAt` / `lastSeenAt` on every read. Signing is off unless
 * `ProjectTemplate:Session:Keys` is set: an unguessable token that must exist
 * server-side gains nothing from an HMAC, which halves throughput here (README).
 */
export function sessionMiddleware(options: SessionMiddlewareOptions): Middleware {
  const { app, store, settings, production, clock, releaseExpired } = options;
  const lifetime = sessionLifetime(settings);
  const signed = settings.Keys.length > 0;
  if (signed) app.keys = [...settings.Keys];

  const externalStore = {
    async get(token: string): Promise<StoredRecord | undefined> {
      if (!isSessionToken(token)) return undefined;
      const key = sessionStoreKey(token);
      const record = await store.get(key);
      if (!record) return undefined;
      const times = readTimes(record);
      if (!times || isExpired(times, lifetime, clock.now())) {
        await Promise.all([store.destroy(key), releaseExpired(record)]);
        return undefined;
      }
      return record;
    },
    async set(token: string, record: StoredRecord): Promise<void> {
      const now = clock.now();
      const times = readTimes(record) ?? { createdAt: now, lastSeenAt: now };
      await store.set(sessionStoreKey(token), { ...record, ...times }, remainingMs(times, lifetime, now));
    },
    async destroy(token: string): Promise<void> {
      await store.destroy(sessionStoreKey(token));
    },
  };

  return createSession(
    {
      key: sessionCookieName(settings, production),
      store: externalStore,
      genid: newSessionToken,
      maxAge: 'session',
      httpOnly: true,
      sameSite: 'lax',
      secure: production,
      signed,
      overwrite: true,
      rolling: false,
      renew: false,
    },
    app,
  ) as Middleware;
}
