import { expect } from 'chai';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApp } from '../../../src/adapters/koa/app.js';
import type { Endpoint } from '../../../src/adapters/koa/endpoint.js';
import { allowAnonymous } from '../../../src/domain/authorization/endpoint-metadata.js';
import { GatehouseError } from '../../../src/domain/errors.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const SENTINEL = 'SENTINEL-internal-detail-91c2';

/** Endpoints that fail on purpose, to see what the error middleware shows. */
const failing: Endpoint[] = [
  {
    method: 'GET',
    path: '/boom',
    metadata: allowAnonymous(),
    handler: () => {
      throw new Error(`database password ${SENTINEL}`);
    },
  },
  {
    method: 'GET',
    path: '/api/boom',
    metadata: allowAnonymous(),
    handler: () => {
      throw new Error(`internal ${SENTINEL}`);
    },
  },
  {
    method: 'GET',
    path: '/refused',
    metadata: allowAnonymous(),
    handler: () => {
      throw new GatehouseError('request.bad', 'Shown to users.', { safe: true });
    },
  },
  {
    method: 'GET',
    path: '/limited',
    metadata: allowAnonymous(),
    handler: () => {
      throw new GatehouseError('auth.too_many_sign_ins', 'Too many sign-ins were started from here. Try again later.', {
        safe: true,
        retryAfterMs: 765_200,
      });
    },
  },
  {
    method: 'GET',
    path: '/unsafe',
    metadata: allowAnonymous(),
    handler: () => {
      throw new GatehouseError('session.store_unavailable', `redis://:${SENTINEL}@host`);
    },
  },
];

async function serve(options: { production: boolean; showStackTraces: boolean }) {
  const logs: string[] = [];
  const app = createApp({
    logger: {
      debug() {},
      info() {},
      warn() {},
      error: (fields: object, msg: string) =>
        void logs.push(
          `${msg} ${JSON.stringify(fields, (_k, v) => (v instanceof Error ? { code: (v as { code?: string }).code } : v))}`,
        ),
    },
    ...options,
    trustProxy: false,
    viewsDir: join(root, 'views'),
    publicDir: join(root, 'public'),
    applicationName: 'Gatehouse',
    formActionOrigins: [],
    endpoints: failing,
    authorizeEndpoint: () => undefined,
  });
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return { url, logs, close: () => new Promise((resolve) => server.close(resolve)) };
}

describe('error handling', () => {
  it('answers an unhandled exception 500 with no stack or internal message outside development', async () => {
    const running = await serve({ production: true, showStackTraces: false });
    const page = await fetch(`${running.url}/boom`);
    expect(page.status).to.equal(500);
    const html = await page.text();
    expect(html).to.contain('Something went wrong');
    expect(html).not.to.contain(SENTINEL);
    expect(html).not.to.contain('at ');
    const api = await fetch(`${running.url}/api/boom`);
    expect(api.status).to.equal(500);
    expect(await api.json()).to.deep.equal({ type: 'about:blank', title: 'Something went wrong', status: 500 });
    expect(page.headers.get('strict-transport-security')).to.equal('max-age=31536000; includeSubDomains');
    await running.close();
  });

  it('shows the stack trace in development only, and only for a server error: a refusal is no crash', async () => {
    const running = await serve({ production: false, showStackTraces: true });
    const html = await (await fetch(`${running.url}/boom`)).text();
    expect(html).to.contain('Stack trace (development only)');
    for (const path of ['/refused', '/limited']) {
      const refusal = await fetch(`${running.url}${path}`, { headers: { accept: 'text/html' } });
      expect(refusal.status, path).to.be.within(400, 499);
      expect(await refusal.text(), path).not.to.contain('Stack trace');
    }
    await running.close();
  });

  it('says how long a rate-limited client waits: in minutes on the page, in seconds in Retry-After', async () => {
    const running = await serve({ production: false, showStackTraces: true });
    const page = await fetch(`${running.url}/limited`, { headers: { accept: 'text/html' } });
    expect(page.status).to.equal(429);
    expect(page.headers.get('retry-after')).to.equal('766');
    const html = await page.text();
    expect(html).to.contain('<h1>Too many requests</h1>');
    expect(html).to.contain('Too many sign-ins were started from here. Try again later.');
    expect(html).to.contain('You can try again in about 13 minutes.');
    const api = await fetch(`${running.url}/limited`, { headers: { accept: 'application/json' } });
    expect(api.headers.get('retry-after')).to.equal('766');
    expect(await api.json()).to.include({ status: 429, title: 'Too many requests', code: 'auth.too_many_sign_ins' });
    await running.close();
  });

  it('shows messages marked safe, maps codes to statuses, and hides unsafe messages', async () => {
    const running = await serve({ production: true, showStackTraces: false });
    const refused = await fetch(`${running.url}/refused`, { headers: { accept: 'application/json' } });
    expect(refused.status).to.equal(400);
    expect(await refused.json()).to.include({ detail: 'Shown to users.', code: 'request.bad' });
    const unavailable = await fetch(`${running.url}/unsafe`);
    expect(unavailable.status).to.equal(503);
    expect(await unavailable.text()).not.to.contain(SENTINEL);
    await running.close();
  });

  it('answers a wrong method on a known path with 405 through the error page', async () => {
    const running = await serve({ production: false, showStackTraces: false });
    const response = await fetch(`${running.url}/boom`, { method: 'DELETE' });
    expect(response.status).to.equal(405);
    expect(response.headers.get('allow')).to.contain('GET');
    expect(await response.text()).to.contain('Method not allowed');
    await running.close();
  });
});
