import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { LocalSentinel } from '../../../scripts/local-redis/local-sentinel.js';
import { RedisSessionStore } from '../../../src/adapters/session/redis-session-store.js';
import { parseRedisNode, type RedisNodeAddress } from '../../../src/domain/settings/redis-rules.js';
import { sessionStoreContract } from './session-store-contract.js';
import { RecordingLogger, replicatedStoreTests, shortenTimesToLive, type ReplicatedRedis } from './replicated-redis.js';

const redisUrl = process.env.REDIS_URL ?? '';

function nodes(addresses: string[]): RedisNodeAddress[] {
  return addresses.map((address) => parseRedisNode(address) ?? expect.fail(`not host:port: ${address}`));
}

if (redisUrl === '') {
  it.skip('RedisSessionStore through Sentinel (skipped: REDIS_URL is not set; e.g. REDIS_URL=redis://127.0.0.1:6379)');
} else {
  describe('RedisSessionStore through Sentinel (a primary, a replica, three sentinels; TLS, an ACL user, a sentinel password)', function () {
    this.timeout(15_000);
    const prefix = `gatehouse-test:${randomUUID()}:`;
    const user = { username: 'gatehouse-app', password: `SENTINEL-data-password-${randomUUID()}` };
    const sentinelPassword = `SENTINEL-sentinel-password-${randomUUID()}`;
    let sentinel: LocalSentinel;
    let deployment: ReplicatedRedis;

    before(async function () {
      this.timeout(60_000);
      // Two seconds before a silent primary is replaced: the tests freeze one for less.
      sentinel = await LocalSentinel.start({ tls: true, user, sentinelPassword, downAfterMs: 2_000 });
      deployment = {
        connection: (wrong = {}) => ({
          topology: {
            mode: 'Sentinel',
            sentinels: nodes(sentinel.sentinelAddresses),
            masterName: sentinel.masterName,
            sentinelPassword: wrong.sentinelPassword ?? sentinelPassword,
          },
          username: user.username,
          password: wrong.password ?? user.password,
          tls: { ca: [sentinel.caPem ?? ''] },
        }),
        primaryPorts: async () => [(await sentinel.primary()).port],
        primaryOf: () => sentinel.primary(),
        replicaOf: () => sentinel.replica(),
        clientOptions: sentinel.clientOptions,
        secrets: [user.password, sentinelPassword],
        gatehouseEnv: () => ({
          ProjectTemplate__Session__Store: 'Redis',
          ProjectTemplate__Session__Redis__Mode: 'Sentinel',
          ...Object.fromEntries(
            sentinel.sentinelAddresses.map((address, index) => [
              `ProjectTemplate__Session__Redis__Nodes__${index}`,
              address,
            ]),
          ),
          ProjectTemplate__Session__Redis__SentinelMasterName: sentinel.masterName,
          ProjectTemplate__Session__Redis__SentinelPassword: sentinelPassword,
          ProjectTemplate__Session__Redis__Username: user.username,
          ProjectTemplate__Session__Redis__Password: user.password,
          ProjectTemplate__Session__Redis__Tls: 'true',
        }),
        caFile: sentinel.caFile ?? '',
      };
    });

    after(async function () {
      await sentinel?.stop();
    });

    sessionStoreContract('RedisSessionStore through Sentinel', async () => {
      const store = new RedisSessionStore({
        connection: deployment.connection(),
        waitForReplica: true,
        keyPrefix: prefix,
        commandTimeoutMs: 1_000,
        logger: new RecordingLogger(),
      });
      await store.connect();
      return {
        store,
        elapse: (ms) => shortenTimesToLive(deployment, prefix, ms),
        now: () => Date.now(),
        close: () => store.close(),
      };
    });

    replicatedStoreTests(() => deployment, prefix);

    it('refuses a wrong sentinel password without naming it, and logs that the sentinels refused it', async function () {
      const wrong = `SENTINEL-wrong-sentinel-password-${randomUUID()}`;
      const logger = new RecordingLogger();
      const store = new RedisSessionStore({
        connection: deployment.connection({ sentinelPassword: wrong }),
        waitForReplica: true,
        keyPrefix: prefix,
        commandTimeoutMs: 300,
        logger,
      });
      await store.connect();
      expect(await store.ping()).to.equal(false);
      await store.close();
      expect(logger.text()).to.include('"code":"SENTINELS_UNREACHABLE_WRONGPASS"');
      for (const secret of [wrong, sentinelPassword, user.password]) expect(logger.text()).to.not.include(secret);
    });
  });
}
