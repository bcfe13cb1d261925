import { expect } from 'chai';
import { MemorySessionStore } from '../../../src/adapters/session/memory-session-store.js';
import { RedisSessionStore } from '../../../src/adapters/session/redis-session-store.js';
import { SessionStoreHealthCheck } from '../../../src/adapters/session/session-store-health-check.js';
import { FixedClock } from '../../support/fixed-clock.js';
import { TcpProxy } from '../../support/tcp-proxy.js';

describe('SessionStoreHealthCheck', function () {
  it('is the required check named sessionStore', function () {
    const check = new SessionStoreHealthCheck(new MemorySessionStore({ maxEntries: 1, clock: new FixedClock() }));
    expect([check.name, check.required]).to.deep.equal(['sessionStore', true]);
  });

  it('is up for the memory store', async function () {
    const check = new SessionStoreHealthCheck(new MemorySessionStore({ maxEntries: 1, clock: new FixedClock() }));
    expect(await check.check()).to.equal('up');
  });

  it('is down, quickly, for a Redis store that cannot connect (no Redis needed)', async function () {
    // A proxy opened then closed: a port on this machine where nothing listens.
    const proxy = await TcpProxy.start({ host: '127.0.0.1', port: 1 });
    await proxy.close();
    const logger = { warn: () => undefined, error: () => undefined };
    const store = new RedisSessionStore({
      connection: { topology: { mode: 'Standalone', url: `redis://127.0.0.1:${proxy.port}` } },
      waitForReplica: false,
      keyPrefix: 'unused:',
      commandTimeoutMs: 300,
      logger,
    });
    try {
      await store.connect();
      const started = performance.now();
      expect(await new SessionStoreHealthCheck(store).check()).to.equal('down');
      expect(performance.now() - started).to.be.below(600);
    } finally {
      await store.close();
    }
  });

  it('is down, not thrown, when ping itself throws', async function () {
    const check = new SessionStoreHealthCheck({ ping: () => Promise.reject(new Error('broken')) });
    expect(await check.check()).to.equal('down');
  });
});
