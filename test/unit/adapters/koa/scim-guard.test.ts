import Router from '@koa/router';
import { expect } from 'chai';
import Koa from 'koa';
import type { Server } from 'node:http';
import { scimGuard } from '../../../../src/adapters/koa/scim/scim-guard.js';
import { MemorySessionStore } from '../../../../src/adapters/session/memory-session-store.js';
import { FixedClock } from '../../../support/fixed-clock.js';

const RIGHT = 'gh_scim_right-token-of-acme';
const LIMIT = 3;

/**
 * The SCIM guard's per-client limit on refused credentials, through a real Koa app behind
 * a trusted proxy (so each test names its client in X-Forwarded-For): under the limit a
 * refusal is a 401; past it the client gets 429 with Retry-After, and no token of it is
 * looked up until the minute ends, while other clients go on.
 */
describe('scimGuard: refused credentials per client', () => {
  let clock: FixedClock;
  let server: Server;
  let url: string;
  let lookups: string[];

  beforeEach(async () => {
    clock = new FixedClock();
    lookups = [];
    const app = new Koa({ proxy: true });
    const router = new Router();
    const guard = scimGuard({
      tokens: {
        organizationOf: async (token: string) => {
          lookups.push(token);
          return token === RIGHT ? { organization: 'acme', tokenId: 'token-1' } : undefined;
        },
        markUsed: async () => undefined,
      },
      counters: new MemorySessionStore({ maxEntries: 1000, clock }),
      requestsPerMinute: 1000,
      failedAuthenticationsPerMinute: LIMIT,
      ipv6PrefixLength: 64,
      now: () => clock.now(),
    });
    router.get('/scim/v2/:organization/Users', guard, (ctx) => {
      ctx.body = { ok: true };
    });
    app.use(router.routes());
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const address = server.address();
    if (typeof address !== 'object' || !address) throw new Error('not listening');
    url = `http://127.0.0.1:${address.port}/scim/v2/acme/Users`;
  });
  afterEach(() => new Promise((resolve) => server.close(resolve)));

  const request = (client: string, token: string) =>
    fetch(url, { headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': client } });

  it('answers 401 to each refused token under the limit, and lets a right one through', async () => {
    for (let i = 0; i < LIMIT; i++) expect((await request('203.0.113.7', `wrong-${i}`)).status).to.equal(401);
    expect((await request('203.0.113.7', RIGHT)).status).to.equal(200);
  });

  it('past the limit answers 429 with Retry-After, and looks up no token of that client until the minute ends', async () => {
    for (let i = 0; i < LIMIT; i++) await request('203.0.113.7', `wrong-${i}`);
    const over = await request('203.0.113.7', 'wrong-last');
    expect(over.status).to.equal(429);
    expect(Number(over.headers.get('retry-after'))).to.be.within(1, 60);
    const body = (await over.json()) as { schemas: string[]; status: string };
    expect(body).to.include({ status: '429' });
    expect(body.schemas).to.deep.equal(['urn:ietf:params:scim:api:messages:2.0:Error']);

    const looked = lookups.length;
    const blocked = await request('203.0.113.7', RIGHT);
    expect(blocked.status, 'even a right token').to.equal(429);
    expect(lookups.length, 'no token looked up').to.equal(looked);

    // Another client, the directory's own, goes on; the blocked one again once the minute has passed.
    expect((await request('198.51.100.20', RIGHT)).status).to.equal(200);
    await clock.sleep(60_000);
    expect((await request('203.0.113.7', RIGHT)).status).to.equal(200);
  });

  it('counts an IPv6 client by its /64 network', async () => {
    for (let i = 0; i <= LIMIT; i++) await request(`2001:db8:1:2::${i + 1}`, `wrong-${i}`);
    expect((await request('2001:db8:1:2::ffff', RIGHT)).status, 'same /64').to.equal(429);
    expect((await request('2001:db8:1:3::1', RIGHT)).status, 'another /64').to.equal(200);
  });
});
