import type Koa from 'koa';
import type { Middleware } from 'koa';
import createSession from 'koa-session';
import type { Clock } from '../../../application/ports/clock.js';
import type { SessionStore, StoredRecord } from '../../../application/ports/session-store.js';
import { isExpired, readTimes, remainingMs, sessionLifetime } from '../../../domain/session-lifetime.js';
import type { SessionSettings } from '../../../domain/settings/settings.js';
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

/** On a request: the session token whose record this request loaded or created. */
const STORED_TOKEN = Symbol('storedSessionToken');

/** `__Host-` keeps subdomains from setting or shadowing the cookie; it needs Secure, so production only. */
export function sessionCookieName(settings: SessionSettings, production: boolean): string {
  if (settings.CookieName !== '') return settings.CookieName;
  return production ? '__Host-gatehouse.sid' : 'gatehouse.sid';
}

/**
 * koa-session over the SessionStore port. The cookie is an opaque 256-bit token
 * (HttpOnly, SameSite=Lax, Secure in production, a browser-session cookie); the state
 * lives server-side under a hash of the token; idle and absolute expiry are enforced
 * from `createdAt` / `lastSeenAt` on every read. Signing is off unless
 * `ProjectTemplate:Session:Keys` is set: an unguessable token that must exist
 * server-side gains nothing from an HMAC (README, Sessions).
 *
 * koa-session writes the whole session back at the end of any request that changed it.
 * A record this request loaded is written back only while it still exists (`replace`),
 * and a new id only if it is new (`create`): a request that loaded the session before a
 * logout (on this instance or another) and ends after it can never bring it back.
 */
export function sessionMiddleware(options: SessionMiddlewareOptions): Middleware {
  const { app, store, settings, production, clock, releaseExpired } = options;
  const lifetime = sessionLifetime(settings);
  const signed = settings.Keys.length > 0;
  if (signed) app.keys = [...settings.Keys];
  // The token whose record exists in the store as far as this request knows (loaded or
  // created by it), kept on the request itself: a per-request entry in a WeakMap costs
  // the garbage collector more than a property does.
  const remember = (ctx: unknown, token: string) => {
    if (typeof ctx === 'object' && ctx !== null) Reflect.set(ctx, STORED_TOKEN, token);
  };
  const isStored = (ctx: unknown, token: string) =>
    typeof ctx === 'object' && ctx !== null && Reflect.get(ctx, STORED_TOKEN) === token;

  const externalStore = {
    async get(token: string, _maxAge: unknown, { ctx }: { ctx?: unknown }): Promise<StoredRecord | undefined> {
      if (!isSessionToken(token)) return undefined;
      const key = sessionStoreKey(token);
      const record = await store.get(key);
      if (!record) return undefined;
      const times = readTimes(record);
      if (!times || isExpired(times, lifetime, clock.now())) {
        await Promise.all([store.destroy(key), releaseExpired(record)]);
        return undefined;
      }
      remember(ctx, token);
      return record;
    },
    async set(token: string, record: StoredRecord, _maxAge: unknown, { ctx }: { ctx?: unknown }): Promise<void> {
      const now = clock.now();
      const times = readTimes(record) ?? { createdAt: now, lastSeenAt: now };
      const key = sessionStoreKey(token);
      const ttl = remainingMs(times, lifetime, now);
      if (isStored(ctx, token)) {
        // false: removed meanwhile (a logout); the request's changes go with it.
        await store.replace(key, { ...record, ...times }, ttl);
        return;
      }
      if (!(await store.create(key, { ...record, ...times }, ttl))) throw new Error('A new session id collided.');
      remember(ctx, token);
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
