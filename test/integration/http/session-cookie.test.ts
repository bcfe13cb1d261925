import { builtInProviders } from '../../../src/bootstrap/provider-catalogue.js';
import { expect } from 'chai';
import { createHmac } from 'node:crypto';
import type { Server } from 'node:http';
import Koa from 'koa';
import { sessionMiddleware } from '../../../src/adapters/koa/session/session-middleware.js';
import { MemorySessionStore } from '../../../src/adapters/session/memory-session-store.js';
import { SystemClock } from '../../../src/adapters/system-clock.js';
import { defaultSettings } from '../../../src/domain/settings/default-settings.js';

/** A Koa app with only the session middleware: `/write` stores a value, `/read` echoes it. */
async function serve(options: { production: boolean; keys?: string[]; proxy?: boolean }) {
  const settings = { ...defaultSettings(builtInProviders).Session, Keys: options.keys ?? [] };
  const app = new Koa({ proxy: options.proxy ?? false });
  app.use(
    sessionMiddleware({
      app,
      store: new MemorySessionStore({ maxEntries: 10, clock: new SystemClock() }),
      settings,
      production: options.production,
      clock: new SystemClock(),
      releaseExpired: async () => undefined,
    }),
  );
  app.use((ctx) => {
    const session = ctx.session as unknown as Record<string, unknown>;
    if (ctx.path === '/write') session.value = 'kept';
    ctx.body = { value: session.value ?? null };
  });
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const address = server.address();
  return {
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    close: () => new Promise((r) => server.close(r)),
  };
}

/** Keygrip's signature: HMAC-SHA1 of "name=value", base64url without padding. */
const sign = (data: string, key: string) => createHmac('sha1', key).update(data).digest('base64url');

describe('session cookie', () => {
  it('is an opaque 256-bit token, HttpOnly, SameSite=Lax, a browser-session cookie, not Secure outside production', async () => {
    const running = await serve({ production: false });
    const header = (await fetch(`${running.url}/write`)).headers.get('set-cookie') ?? '';
    expect(header).to.match(/^gatehouse\.sid=[A-Za-z0-9_-]{43}; path=\/; samesite=lax; httponly$/);
    await running.close();
  });

  it('is __Host- prefixed and Secure in production (behind a trusted TLS proxy)', async () => {
    const running = await serve({ production: true, proxy: true });
    const response = await fetch(`${running.url}/write`, { headers: { 'x-forwarded-proto': 'https' } });
    expect(response.headers.get('set-cookie')).to.match(
      /^__Host-gatehouse\.sid=[A-Za-z0-9_-]{43}; path=\/; samesite=lax; secure; httponly$/,
    );
    await running.close();
  });

  describe('signed with ProjectTemplate:Session:Keys (the first signs, all verify)', () => {
    const [k1, k2, k3] = ['k1'.repeat(20), 'k2'.repeat(20), 'k3'.repeat(20)];

    it('accepts a cookie signed by any configured key and refuses an unknown signature', async () => {
      const old = await serve({ production: false, keys: [k1] });
      const written = await fetch(`${old.url}/write`);
      const token = /gatehouse\.sid=([^;]+)/.exec(written.headers.getSetCookie().join(';'))?.[1] ?? '';
      expect(written.headers.getSetCookie().join(';')).to.contain(
        `gatehouse.sid.sig=${sign(`gatehouse.sid=${token}`, k1)}`,
      );
      const read = (sig: string, url = old.url) =>
        fetch(`${url}/read`, { headers: { cookie: `gatehouse.sid=${token}; gatehouse.sid.sig=${sig}` } }).then((r) =>
          r.json(),
        );
      expect(await read(sign(`gatehouse.sid=${token}`, k1))).to.deep.equal({ value: 'kept' });
      expect(await read(sign(`gatehouse.sid=${token}`, k3))).to.deep.equal({ value: null });
      expect(
        await fetch(`${old.url}/read`, { headers: { cookie: `gatehouse.sid=${token}` } }).then((r) => r.json()),
      ).to.deep.equal({ value: null });
      await old.close();

      // After rotation to [k2, k1] a k1 signature still verifies (the store is per process here, so only the signature check is observable).
      const rotated = await serve({ production: false, keys: [k2, k1] });
      const fresh = await fetch(`${rotated.url}/write`);
      const freshToken = /gatehouse\.sid=([^;]+)/.exec(fresh.headers.getSetCookie().join(';'))?.[1] ?? '';
      const byOldKey = await fetch(`${rotated.url}/read`, {
        headers: {
          cookie: `gatehouse.sid=${freshToken}; gatehouse.sid.sig=${sign(`gatehouse.sid=${freshToken}`, k1)}`,
        },
      });
      expect(await byOldKey.json()).to.deep.equal({ value: 'kept' });
      expect(fresh.headers.getSetCookie().join(';')).to.contain(
        `gatehouse.sid.sig=${sign(`gatehouse.sid=${freshToken}`, k2)}`,
      );
      await rotated.close();
    });
  });
});
