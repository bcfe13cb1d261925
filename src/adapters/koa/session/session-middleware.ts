import type Koa from 'koa';
import type { Context, Middleware } from 'koa';
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

/**
 * The token koa-session drew for a request's session (a new session, or the new id of a
 * sign-in's rotation), kept beside the request rather than on `ctx.state`, which every view
 * can read.
 */
const drawnTokens = new WeakMap<object, string>();

/** The token of the request's session: the one drawn during the request, else the one its cookie named. */
export function sessionTokenOf(ctx: Context): string | undefined {
  return drawnTokens.get(ctx) ?? ctx.session?.externalKey;
}

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
 * server-side gains nothing from an HMAC (docs/sessions-and-sign-out.md).
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
  const cookieName = sessionCookieName(settings, production);
  // The record of the token the browser sent was loaded by this request, and may have been
  // removed since (a logout elsewhere): written back only while it exists. Any other token
  // is one koa-session drew for this request (no session yet, or a new id at sign-in).
  const sentByBrowser = (ctx: unknown, token: string) =>
    typeof ctx === 'object' && ctx !== null && (ctx as Context).cookies.get(cookieName, { signed }) === token;

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
    async set(token: string, record: StoredRecord, _maxAge: unknown, { ctx }: { ctx?: unknown }): Promise<void> {
      const now = clock.now();
      const times = readTimes(record) ?? { createdAt: now, lastSeenAt: now };
      const key = sessionStoreKey(token);
      const ttl = remainingMs(times, lifetime, now);
      if (sentByBrowser(ctx, token)) {
        // false: removed meanwhile (a logout); the request's changes go with it.
        await store.replace(key, { ...record, ...times }, ttl);
        return;
      }
      // A token drawn for this request: new, unless this request created it a moment ago
      // (koa-session saves a regenerated session once more at the end of the request).
      if (!(await store.create(key, { ...record, ...times }, ttl)))
        await store.replace(key, { ...record, ...times }, ttl);
    },
    async destroy(token: string): Promise<void> {
      await store.destroy(sessionStoreKey(token));
    },
  };

  return createSession(
    {
      key: cookieName,
      store: externalStore,
      genid: (ctx?: Context) => {
        const token = newSessionToken();
        if (ctx) drawnTokens.set(ctx, token);
        return token;
      },
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
