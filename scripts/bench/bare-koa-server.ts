/**
 * The reference row: bare Koa and @koa/router answering `GET /api/app-info` with the
 * same JSON shape as Gatehouse, with no log, headers, session or authorization.
 *
 *   node --import tsx scripts/bench/bare-koa-server.ts
 *
 * Prints `READY <port>` once listening; exits on SIGTERM.
 */
import Router from '@koa/router';
import Koa from 'koa';
import { serveReference } from './serve-reference.js';

const startedAt = Date.now();
const app = new Koa();
const router = new Router();
router.get('/api/app-info', (ctx) => {
  ctx.body = {
    name: 'gatehouse',
    version: '0.1.0',
    environment: 'production',
    uptimeSeconds: Math.floor((Date.now() - startedAt) / 1000),
  };
});
app.use(router.routes());
app.use(router.allowedMethods());

serveReference(app);
