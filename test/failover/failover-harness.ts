import { expect } from 'chai';
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RedisProcess } from '../../scripts/local-redis/redis-process.js';
import { sessionStoreKey } from '../../src/adapters/koa/session/session-token.js';
import type { RedisConnection } from '../../src/adapters/session/redis-client.js';
import { RedisSessionStore } from '../../src/adapters/session/redis-session-store.js';
import { builtInProviders } from '../../src/bootstrap/provider-catalogue.js';
import { defaultSettings } from '../../src/domain/settings/default-settings.js';
import { listeningUrl, spawnMain, exitOf } from '../support/run-main.js';
import { signIn, type SignedIn } from '../support/sign-in.js';

/** A Cluster or Sentinel deployment under failover, as the suite drives it. */
export interface FailoverSubject {
  /** How a store in the test process reaches it (to sign users in as a completed sign-in would). */
  connection(): RedisConnection;
  /** Settings of the Gatehouse processes, as environment variables. */
  gatehouseEnv(): Record<string, string>;
  /** The primary that holds a store key (prefix included) now. */
  primaryOf(key: string): Promise<RedisProcess>;
  /** Starts a killed node again, as an orchestrator would, and waits until the deployment is whole. */
  restart(node: RedisProcess): Promise<void>;
  /** Leaves `primary` acknowledging writes that no replica receives. */
  cutReplication(primary: RedisProcess): Promise<void>;
  /**
   * How long after `cutReplication` its replica may still be promoted, with a margin: Redis
   * passes over a replica that lost its primary longer ago than ten times the detection
   * time (Sentinel), or than that plus the replication ping period (Cluster).
   */
  promotableAfterCutMs: number;
  /** Secrets of the deployment, which no output may hold. */
  secrets: string[];
}

/**
 * The nodes a test killed and has not restarted (it failed half-way), started again after
 * each test of the enclosing suite: the next test needs the deployment whole.
 */
export function killedNodesRestartedAfterEach(subject: () => FailoverSubject): Set<RedisProcess> {
  const killed = new Set<RedisProcess>();
  afterEach(async function () {
    this.timeout(60_000);
    for (const node of killed) await subject().restart(node);
    killed.clear();
  });
  return killed;
}

/** A Gatehouse process of the pair the suite loads. */
export interface Instance {
  name: string;
  url: string;
  child: ChildProcess;
  output(): { stdout: string; stderr: string };
}

export async function startInstances(env: Record<string, string>): Promise<Instance[]> {
  return Promise.all(
    ['A', 'B'].map(async (name) => {
      const { child, output } = spawnMain(env);
      const url = await listeningUrl(output, child, 20_000);
      return { name, url, child, output };
    }),
  );
}

export async function stopInstances(instances: Instance[]): Promise<(number | null)[]> {
  return Promise.all(
    instances.map(async (instance) => {
      instance.child.kill('SIGTERM');
      return exitOf(instance.child);
    }),
  );
}

/** A store in the test process on the same keys as the instances. */
export function testStore(subject: FailoverSubject, prefix: string): RedisSessionStore {
  return new RedisSessionStore({
    connection: subject.connection(),
    waitForReplica: true,
    keyPrefix: prefix,
    commandTimeoutMs: 1_000,
    logger: { warn: () => undefined, error: () => undefined },
  });
}

/**
 * Signs users in until one whose records (the session, and with `signInToo` its sign-in
 * record) are held by `primary`: in a cluster, keys spread over three primaries.
 */
export async function signInOn(
  store: RedisSessionStore,
  prefix: string,
  subject: FailoverSubject,
  claims: Array<[string, string]>,
  primary: RedisProcess | undefined,
  signInToo = false,
): Promise<SignedIn> {
  const settings = defaultSettings(builtInProviders);
  for (let attempt = 0; attempt < 200; attempt++) {
    const user = await signIn({ stores: { sessions: store }, settings }, claims);
    if (primary === undefined) return user;
    const holders = [await subject.primaryOf(prefix + sessionStoreKey(user.token))];
    if (signInToo) holders.push(await subject.primaryOf(`${prefix}signin:${user.signInRef}`));
    if (holders.every((holder) => holder === primary)) return user;
  }
  throw new Error('no user landed on the primary');
}

export function logout(instance: Instance, user: SignedIn): Promise<Response> {
  return fetch(`${instance.url}/Account/Logout`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: user.cookie, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: `_csrf=${encodeURIComponent(user.csrf)}`,
  });
}

/** The administrators' API: 200 for an administrator, 403 for another user, 401 for nobody. */
export async function askAdminApi(instance: Instance, user: SignedIn): Promise<{ status: number; code?: string }> {
  const response = await fetch(`${instance.url}/api/app-info/admin`, {
    headers: { cookie: user.cookie, accept: 'application/json' },
    signal: AbortSignal.timeout(10_000),
  });
  const body = await response.text();
  const code = /"code":"([^"]+)"/.exec(body)?.[1];
  return { status: response.status, ...(code ? { code } : {}) };
}

export interface Sample {
  who: string;
  instance: string;
  /** Milliseconds since the primary was killed (negative: before). */
  at: number;
  ms: number;
  status: number;
  code?: string;
}

/**
 * Requests in loops, one loop per user and instance, and readiness probes of each instance,
 * from before the kill until every loop has answered `settled` times in a row without a
 * 503, at least `minimumMs` after the kill.
 */
export async function underLoad(
  instances: Instance[],
  users: Record<string, SignedIn>,
  kill: () => Promise<void>,
  options: { settled: number; minimumMs: number; deadlineMs: number },
): Promise<{ requests: Sample[]; readiness: Sample[]; killedAt: number }> {
  const requests: Sample[] = [];
  const readiness: Sample[] = [];
  let killedAt = Number.POSITIVE_INFINITY;
  let stopping = false;
  const since = (time: number) => time - killedAt;
  const requestLoops = instances.flatMap((instance) =>
    Object.entries(users).map(async ([who, user]) => {
      while (!stopping) {
        const started = performance.now();
        const answer = await askAdminApi(instance, user).catch(() => ({ status: 0 }));
        requests.push({ who, instance: instance.name, at: since(started), ms: performance.now() - started, ...answer });
        await sleep(10);
      }
    }),
  );
  const probeLoops = instances.map(async (instance) => {
    while (!stopping) {
      const started = performance.now();
      const status = await fetch(`${instance.url}/health/ready`, { signal: AbortSignal.timeout(10_000) }).then(
        (response) => response.status,
        () => 0,
      );
      readiness.push({
        who: 'probe',
        instance: instance.name,
        at: since(started),
        ms: performance.now() - started,
        status,
      });
      await sleep(50);
    }
  });
  await sleep(1_000);
  killedAt = performance.now();
  await kill();
  const loops = instances.length * Object.keys(users).length;
  const deadline = performance.now() + options.deadlineMs;
  for (;;) {
    await sleep(100);
    const elapsed = performance.now() - killedAt;
    const settled = instances.every((instance) =>
      Object.keys(users).every((who) => {
        const own = requests.filter(
          (sample) => sample.instance === instance.name && sample.who === who && sample.at + sample.ms > 0,
        );
        return own.length >= options.settled && own.slice(-options.settled).every((sample) => sample.status !== 503);
      }),
    );
    if ((settled && elapsed >= options.minimumMs) || performance.now() > deadline) break;
  }
  stopping = true;
  await Promise.all([...requestLoops, ...probeLoops]);
  expect(requests.length).to.be.greaterThan(loops);
  return { requests, readiness, killedAt };
}

/** First to last 503 among `samples`, in milliseconds, or 0. */
export function unavailableWindow(samples: Sample[]): { from: number; to: number; ms: number } {
  const failed = samples.filter((sample) => sample.status === 503 && sample.at + sample.ms > 0);
  if (failed.length === 0) return { from: 0, to: 0, ms: 0 };
  const from = Math.min(...failed.map((sample) => sample.at));
  const to = Math.max(...failed.map((sample) => sample.at + sample.ms));
  return { from: Math.round(from), to: Math.round(to), ms: Math.round(to - from) };
}
