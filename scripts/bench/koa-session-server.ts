/**
 * A second reference row: bare Koa + @koa/router + koa-session and nothing else, holding
 * the same signed-in session record Gatehouse reads per request (signed-in-record.ts) as
 * JSON text in a Map,
 * with an unsigned cookie. It measures what the session middleware the design keeps costs
 * by itself with that record: the floor under Gatehouse's authenticated rows, before
 * security headers, the request log, hashing the token into a store key, lifetimes and
 * authorization.
 *
 *   node --import tsx scripts/bench/koa-session-server.ts
 *
 * Prints `READY <port> <cookie header>` once listening; exits on SIGTERM.
 */
import Router from '@koa/router';
import Koa from 'koa';
import createSession from 'koa-session';
import { randomText, signedInRecords } from './signed-in-record.js';
import { serveReference } from './serve-reference.js';

const startedAt = Date.now();
const token = randomText(32);
const records = new Map<string, string>([[token, JSON.stringify(signedInRecords(1, startedAt).session)]]);
const store = {
  async get(key: string) {
    const json = records.get(key);
    return json === undefined ? undefined : (JSON.parse(json) as Record<string, unknown>);
  },
  async set(key: string, record: Record<string, unknown>) {
    records.set(key, JSON.stringify(record));
  },
  async destroy(key: string) {
    records.delete(key);
  },
};

const app = new Koa();
app.use(
  createSession(
    { key: 'sid', store, signed: false, maxAge: 'session', httpOnly: true, sameSite: 'lax' },
    app,
  ) as Koa.Middleware,
);
const router = new Router();
router.get('/api/app-info', (ctx) => {
  if (typeof ctx.session?.createdAt !== 'number') {
    ctx.status = 401;
    ctx.body = { title: 'Sign-in required' };
    return;
  }
  ctx.body = {
    name: 'gatehouse',
    version: '0.1.0',
    environment: 'production',
    uptimeSeconds: Math.floor((Date.now() - startedAt) / 1000),
  };
});
app.use(router.routes());
app.use(router.allowedMethods());

serveReference(app, `sid=${token}`);
