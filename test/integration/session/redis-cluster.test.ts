import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { LocalCluster } from '../../../scripts/local-redis/local-cluster.js';
import { freePort } from '../../../scripts/free-port.js';
import { RedisSessionStore } from '../../../src/adapters/session/redis-session-store.js';
import { parseRedisNode, type RedisNodeAddress } from '../../../src/domain/settings/redis-rules.js';
import { sessionStoreContract } from './session-store-contract.js';
import {
  keysOn,
  RecordingLogger,
  replicatedStoreTests,
  shortenTimesToLive,
  type ReplicatedRedis,
} from './replicated-redis.js';

const redisUrl = process.env.REDIS_URL ?? '';

function nodes(seeds: string[]): RedisNodeAddress[] {
  return seeds.map((seed) => parseRedisNode(seed) ?? expect.fail(`not host:port: ${seed}`));
}

if (redisUrl === '') {
  it.skip(
    'RedisSessionStore on a Redis Cluster (skipped: REDIS_URL is not set; e.g. REDIS_URL=redis://127.0.0.1:6379)',
  );
} else {
  describe('RedisSessionStore on a local Redis Cluster (three primaries, three replicas; TLS and an ACL user)', function () {
    this.timeout(15_000);
    const prefix = `gatehouse-test:${randomUUID()}:`;
    const user = { username: 'gatehouse-app', password: `SENTINEL-cluster-password-${randomUUID()}` };
    let cluster: LocalCluster;
    let deployment: ReplicatedRedis;

    before(async function () {
      this.timeout(60_000);
      cluster = await LocalCluster.start({ tls: true, user });
      deployment = {
        connection: (wrong = {}) => ({
          topology: { mode: 'Cluster', nodes: nodes(cluster.seeds) },
          username: user.username,
          password: wrong.password ?? user.password,
          tls: { ca: [cluster.caPem ?? ''] },
        }),
        primaryPorts: async () =>
          (await cluster.view()).filter((node) => node.role === 'primary').map((node) => node.port),
        primaryOf: (key) => cluster.primaryOf(key),
        replicaOf: (primary) => cluster.replicaOf(primary),
        clientOptions: cluster.clientOptions,
        secrets: [user.password],
        gatehouseEnv: () => ({
          ProjectTemplate__Session__Store: 'Redis',
          ProjectTemplate__Session__Redis__Mode: 'Cluster',
          ...Object.fromEntries(
            cluster.seeds.map((seed, index) => [`ProjectTemplate__Session__Redis__Nodes__${index}`, seed]),
          ),
          ProjectTemplate__Session__Redis__Username: user.username,
          ProjectTemplate__Session__Redis__Password: user.password,
          ProjectTemplate__Session__Redis__Tls: 'true',
        }),
        caFile: cluster.caFile ?? '',
      };
    });

    after(async function () {
      await cluster?.stop();
    });

    const newStore = (seeds = cluster.seeds) =>
      new RedisSessionStore({
        connection: { ...deployment.connection(), topology: { mode: 'Cluster', nodes: nodes(seeds) } },
        waitForReplica: true,
        keyPrefix: prefix,
        commandTimeoutMs: 1_000,
        logger: new RecordingLogger(),
      });

    sessionStoreContract('RedisSessionStore on a Redis Cluster', async () => {
      const store = newStore();
      await store.connect();
      return {
        store,
        elapse: (ms) => shortenTimesToLive(deployment, prefix, ms),
        now: () => Date.now(),
        close: () => store.close(),
      };
    });

    replicatedStoreTests(() => deployment, prefix);

    it('spreads records and counters over every primary: no hash tag gathers them on one', async function () {
      const store = newStore();
      await store.connect();
      const spread = `spread-${randomUUID()}:`;
      // 40 of each: the chance that keys hashed on their whole name miss one of three primaries is 3 x (2/3)^40.
      await Promise.all(
        Array.from({ length: 40 }, (_, i) => [
          store.create(`${spread}session:${randomUUID()}`, { i }, 60_000),
          store.increment(`${spread}challenges:198.51.100.${i}`, 60_000),
        ]).flat(),
      );
      await store.close();
      const primaries = await deployment.primaryPorts();
      for (const kind of ['session', 'challenges']) {
        const byNode = await keysOn(primaries, cluster.clientOptions, `${prefix}${spread}${kind}:`);
        expect(
          [...byNode.values()].map((keys) => keys.length > 0),
          kind,
        ).to.deep.equal([true, true, true]);
      }
    });

    it('follows a primary that moved (a manual failover): the next confirmed write goes to the new one', async function () {
      const store = newStore();
      await store.connect();
      // One hash tag: the second key is in the first one's slot, which moves.
      const key = `{${randomUUID()}}`;
      expect(await store.create(key, { n: 1 }, 60_000)).to.equal(true);
      const primary = await cluster.primaryOf(prefix + key);
      const replica = await cluster.replicaOf(primary);
      // The replica takes over in step with its primary: no write is lost, and the store has not been told.
      await cluster.command(replica.port, 'CLUSTER', 'FAILOVER');
      await cluster.waitUntilHealthy();
      expect(await cluster.primaryOf(prefix + key)).to.equal(replica);
      expect(await store.create(`${key}-after`, { n: 2 }, 60_000)).to.equal(true);
      expect(await store.take(key)).to.deep.equal({ n: 1 });
      await store.close();
    });

    it('starts from any seed that answers: the first listed may be down', async function () {
      const nothingThere = `127.0.0.1:${await freePort()}`;
      const store = newStore([nothingThere, ...cluster.seeds.slice(3)]);
      await store.connect();
      const key = randomUUID();
      expect(await store.create(key, { n: 1 }, 60_000)).to.equal(true);
      expect(await store.get(key)).to.deep.equal({ n: 1 });
      await store.close();
    });
  });
}
