import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { LocalCluster } from '../../scripts/local-redis/local-cluster.js';
import { LocalSentinel } from '../../scripts/local-redis/local-sentinel.js';
import { parseRedisNode, type RedisNodeAddress } from '../../src/domain/settings/redis-rules.js';
import type { FailoverSubject } from './failover-harness.js';

/**
 * How long a silent primary has before it is replaced (cluster-node-timeout, Sentinel's
 * down-after-milliseconds): one second here; Redis's defaults are 15 and 30 seconds, and the
 * window of 503s grows with it.
 */
export const DETECTION_MS = 1_000;
export const COMMAND_TIMEOUT_MS = 1_000;

function nodes(addresses: string[]): RedisNodeAddress[] {
  return addresses.map((address) => parseRedisNode(address) ?? expect.fail(`not host:port: ${address}`));
}

/** The deployment's ACL user, which Gatehouse connects as. */
export const user = { username: 'gatehouse-app', password: `SENTINEL-failover-password-${randomUUID()}` };

export async function cluster(): Promise<Deployment> {
  const deployment = await LocalCluster.start({ user, nodeTimeoutMs: DETECTION_MS });
  return {
    stop: () => deployment.stop(),
    subject: {
      connection: () => ({ topology: { mode: 'Cluster', nodes: nodes(deployment.seeds) }, ...user }),
      gatehouseEnv: () => ({
        ProjectTemplate__Session__Redis__Mode: 'Cluster',
        ...Object.fromEntries(
          deployment.seeds.map((seed, i) => [`ProjectTemplate__Session__Redis__Nodes__${i}`, seed]),
        ),
      }),
      primaryOf: (key) => deployment.primaryOf(key),
      restart: (node) => deployment.restart(node),
      cutReplication: (primary) => deployment.cutReplication(primary),
      // cluster-replica-validity-factor 10 × cluster-node-timeout + repl-ping-replica-period (10 s).
      promotableAfterCutMs: 10 * DETECTION_MS + 4_000,
      secrets: [user.password],
    },
  };
}

export async function sentinel(): Promise<Deployment> {
  const sentinelPassword = `SENTINEL-failover-sentinel-password-${randomUUID()}`;
  const deployment = await LocalSentinel.start({ user, sentinelPassword, downAfterMs: DETECTION_MS });
  const sentinels = nodes(deployment.sentinelAddresses);
  return {
    stop: () => deployment.stop(),
    subject: {
      connection: () => ({
        topology: { mode: 'Sentinel', sentinels, masterName: deployment.masterName, sentinelPassword },
        ...user,
      }),
      gatehouseEnv: () => ({
        ProjectTemplate__Session__Redis__Mode: 'Sentinel',
        ...Object.fromEntries(
          deployment.sentinelAddresses.map((address, i) => [`ProjectTemplate__Session__Redis__Nodes__${i}`, address]),
        ),
        ProjectTemplate__Session__Redis__SentinelMasterName: deployment.masterName,
        ProjectTemplate__Session__Redis__SentinelPassword: sentinelPassword,
      }),
      primaryOf: () => deployment.primary(),
      restart: (node) => deployment.restart(node),
      cutReplication: (primary) => deployment.cutReplication(primary),
      // 10 × down-after-milliseconds, of which the kill and the detection take a part.
      promotableAfterCutMs: 4 * DETECTION_MS,
      secrets: [user.password, sentinelPassword],
    },
  };
}

/** A running deployment, and how to stop it. */
export type Deployment = { subject: FailoverSubject; stop(): Promise<void> };

/** Each topology the failover suites run on. */
export const deployments = [
  ['a Redis Cluster', cluster],
  ['Sentinel', sentinel],
] as const satisfies ReadonlyArray<readonly [string, () => Promise<Deployment>]>;
