import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { inspect } from 'node:util';
import { Redis, type RedisOptions } from 'ioredis';
import type { RedisProcess } from '../../../scripts/local-redis/redis-process.js';
import { RedisSessionStore } from '../../../src/adapters/session/redis-session-store.js';
import type { RedisConnection } from '../../../src/adapters/session/redis-client.js';
import { isGatehouseError } from '../../../src/domain/errors.js';
import { builtInProviders } from '../../../src/bootstrap/provider-catalogue.js';
import { defaultSettings } from '../../../src/domain/settings/default-settings.js';
import { exitOf, listeningUrl, spawnMain } from '../../support/run-main.js';
import { adminClaims, signIn } from '../../support/sign-in.js';

/** A local Cluster or Sentinel deployment, as the shared tests below use it. */
export interface ReplicatedRedis {
  /** How the store reaches it with the run's credentials; `wrong` swaps in passwords that are refused. */
  connection(wrong?: { password?: string; sentinelPassword?: string }): RedisConnection;
  /** The data nodes that hold keys now: every primary. */
  primaryPorts(): Promise<number[]>;
  /** The primary of a store key (prefix included), and its replica. */
  primaryOf(key: string): Promise<RedisProcess>;
  replicaOf(primary: RedisProcess): Promise<RedisProcess>;
  /** Admin connections to the data nodes. */
  clientOptions: RedisOptions;
  /** The secrets of the deployment: no log line, error or output may hold one. */
  secrets: string[];
  /** Settings of a Gatehouse process on this deployment, as environment variables. */
  gatehouseEnv(): Record<string, string>;
  /** The run's certificate authority as a file, for NODE_EXTRA_CA_CERTS. */
  caFile: string;
}

/** Log lines a store wrote. */
export class RecordingLogger {
  readonly lines: { level: string; fields: object; msg: string }[] = [];
  warn(fields: object, msg: string): void {
    this.lines.push({ level: 'warn', fields, msg });
  }
  error(fields: object, msg: string): void {
    this.lines.push({ level: 'error', fields, msg });
  }
  text(): string {
    return JSON.stringify(this.lines);
  }
}

/** Shortens one key's time-to-live by ARGV[1] ms, in one step; a key without one is left alone. */
const SHORTEN_TIME_TO_LIVE = `
local left = redis.call('PTTL', KEYS[1])
if left > 0 then redis.call('PEXPIRE', KEYS[1], left - tonumber(ARGV[1])) end`;

/** Every key under `prefix` on each node (SCAN: a cluster has to be scanned node by node). */
export async function keysOn(ports: number[], options: RedisOptions, prefix: string): Promise<Map<number, string[]>> {
  const found = new Map<number, string[]>();
  for (const port of ports) {
    const node = new Redis({ host: '127.0.0.1', port, ...options, lazyConnect: true });
    try {
      await node.connect();
      const keys: string[] = [];
      for await (const batch of node.scanStream({ match: `${prefix}*`, count: 500 })) keys.push(...(batch as string[]));
      found.set(port, keys);
    } finally {
      node.disconnect();
    }
  }
  return found;
}

/**
 * Lets `ms` of Redis's time pass for the keys under `prefix` without waiting for it: each
 * time-to-live left is shortened by `ms`, on the node that holds the key, and Redis deletes
 * a key given one that is not positive, as it would on expiry.
 */
export async function shortenTimesToLive(
  deployment: Pick<ReplicatedRedis, 'primaryPorts' | 'clientOptions'>,
  prefix: string,
  ms: number,
): Promise<void> {
  for (const [port, keys] of await keysOn(await deployment.primaryPorts(), deployment.clientOptions, prefix)) {
    const node = new Redis({ host: '127.0.0.1', port, ...deployment.clientOptions, lazyConnect: true });
    try {
      await node.connect();
      for (const key of keys) await node.eval(SHORTEN_TIME_TO_LIVE, 1, key, ms);
    } finally {
      node.disconnect();
    }
  }
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail('expected a rejection'),
    (error: unknown) => error,
  );
}

function expectUnavailable(error: unknown): void {
  expect(isGatehouseError(error) && error.code, inspect(error)).to.equal('session.store_unavailable');
}

async function eventually(condition: () => Promise<boolean>, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!(await condition())) {
    if (Date.now() > deadline) expect.fail(`condition not met within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** ioredis prints some warnings with console.warn: they must be free of secrets too. */
function captureConsole(): { text(): string; restore(): void } {
  const written: unknown[][] = [];
  const original = { warn: console.warn, error: console.error, log: console.log };
  for (const method of ['warn', 'error', 'log'] as const) console[method] = (...args: unknown[]) => written.push(args);
  return { text: () => inspect(written, { depth: 10 }), restore: () => Object.assign(console, original) };
}

/**
 * What a store on a replicated deployment (Cluster or Sentinel) must do beyond the
 * contract: refuse a write no replica confirmed, report a silent primary, keep every secret
 * out of what it writes, and run configured from Gatehouse's settings in a process of its own.
 */
export function replicatedStoreTests(deployment: () => ReplicatedRedis, prefix: string): void {
  const commandTimeoutMs = 300;
  const newStore = (logger = new RecordingLogger(), connection = deployment().connection()) =>
    new RedisSessionStore({ connection, waitForReplica: true, keyPrefix: prefix, commandTimeoutMs, logger });

  it('refuses a create, take, destroy or index entry that no replica confirmed in time, and goes on reading and sliding sessions', async function () {
    const logger = new RecordingLogger();
    const store = newStore(logger);
    await store.connect();
    // One hash tag: both keys live on the same primary, whose replica is frozen below.
    const tag = `{${randomUUID()}}`;
    const kept = `${tag}kept`;
    const fresh = `${tag}fresh`;
    await store.create(kept, { n: 1 }, 60_000);
    const replica = await deployment().replicaOf(await deployment().primaryOf(prefix + kept));
    replica.freeze();
    try {
      const started = performance.now();
      expectUnavailable(await rejection(store.create(fresh, { n: 2 }, 60_000)));
      expect(performance.now() - started, 'within the command time-out').to.be.below(commandTimeoutMs + 200);
      // Reads, slides and counters need no replica: signed-in users go on.
      expect(await store.replace(kept, { n: 3 }, 60_000)).to.equal(true);
      expect(await store.get(kept)).to.deep.equal({ n: 3 });
      expect((await store.increment(`${tag}count`, 60_000)).count).to.equal(1);
      expectUnavailable(await rejection(store.destroy(`${tag}other`)));
      expectUnavailable(await rejection(store.take(kept)));
      // An index entry is what an ending finds a session by: confirmed like the session.
      expectUnavailable(await rejection(store.addToIndex(`${tag}index`, 'handle', Date.now() + 60_000)));
    } finally {
      replica.thaw();
    }
    // Refused, though the primary ran it: the primary holds it, and a retry sees so.
    expect(await store.get(fresh)).to.deep.equal({ n: 2 });
    expect(await store.take(kept)).to.equal(undefined);
    expect(await store.indexMembers(`${tag}index`)).to.deep.equal(['handle']);
    await eventually(() => store.create(`${tag}later`, { n: 4 }, 60_000).catch(() => false), 5_000);
    const refusals = logger.lines.filter((line) => /no replica confirmed/.test(line.msg));
    expect(refusals, 'one line for the episode, not one per write').to.have.length(1);
    await store.close();
  });

  it('warns once at connection when a primary may evict keys before they expire (maxmemory-policy), or when it may not be asked', async function () {
    const ports = await deployment().primaryPorts();
    /** An admin command on each of `nodes`, each over a connection of its own. */
    const commandOn = async (nodes: number[], command: string, ...args: Array<string | number>) => {
      for (const port of nodes) {
        const node = new Redis({ host: '127.0.0.1', port, ...deployment().clientOptions, lazyConnect: true });
        try {
          await node.connect();
          await node.call(command, ...args);
        } finally {
          node.disconnect();
        }
      }
    };
    const warningsAtConnect = async () => {
      const logger = new RecordingLogger();
      const store = newStore(logger);
      await store.connect();
      await store.close();
      return logger.lines.filter((line) => /maxmemory-policy/.test(line.msg));
    };
    expect(await warningsAtConnect(), 'noeviction, as Redis ships').to.deep.equal([]);
    // One primary of a cluster is enough to be warned about: each is asked, not whichever a command reaches.
    const last = ports.at(-1) ?? expect.fail('no primary');
    await commandOn([last], 'CONFIG', 'SET', 'maxmemory-policy', 'volatile-ttl');
    try {
      const warned = await warningsAtConnect();
      expect(warned).to.have.length(1);
      expect(warned[0]?.fields).to.deep.equal({ maxmemoryPolicy: 'volatile-ttl' });
    } finally {
      await commandOn([last], 'CONFIG', 'SET', 'maxmemory-policy', 'noeviction');
    }
    const user = deployment().connection().username ?? expect.fail('no ACL user');
    await commandOn(ports, 'ACL', 'SETUSER', user, '-info');
    try {
      const warned = await warningsAtConnect();
      expect(warned.map((line) => line.msg)).to.have.length(1);
      expect(warned[0]?.msg).to.match(/^Could not read maxmemory-policy/);
    } finally {
      await commandOn(ports, 'ACL', 'SETUSER', user, '+info');
    }
  });

  it('reports readiness down while a primary does not answer, and up once it does', async function () {
    const store = newStore();
    await store.connect();
    expect(await store.ping()).to.equal(true);
    const silent = await deployment().primaryOf(`${prefix}readiness`);
    silent.freeze();
    try {
      // Three times: a check that asked any one node (a random one, in a cluster) would
      // mostly answer from another.
      for (let attempt = 0; attempt < 3; attempt++) {
        const started = performance.now();
        expect(await store.ping(), `attempt ${attempt + 1}`).to.equal(false);
        expect(performance.now() - started).to.be.below(commandTimeoutMs + 200);
      }
    } finally {
      silent.thaw();
    }
    await eventually(() => store.ping(), 3_000);
    await store.close();
  });

  it('logs a refused password by its code alone, and no secret reaches a log line, an error or the console', async function () {
    const wrong = {
      password: `SENTINEL-wrong-password-${randomUUID()}`,
      sentinelPassword: `SENTINEL-wrong-${randomUUID()}`,
    };
    const logger = new RecordingLogger();
    const consoleOutput = captureConsole();
    const seen: string[] = [];
    try {
      const refused = newStore(logger, deployment().connection(wrong));
      await refused.connect();
      seen.push(inspect(await rejection(refused.get(randomUUID())), { depth: 10, showHidden: true }));
      expect(await refused.ping()).to.equal(false);
      await refused.close();
      const right = newStore(logger);
      await right.connect();
      await right.create(randomUUID(), { n: 1 }, 60_000);
      await right.close();
    } finally {
      consoleOutput.restore();
    }
    expect(logger.text(), 'the refusal, by its code').to.match(/"code":"(SENTINELS_UNREACHABLE_)?WRONGPASS"/);
    for (const text of [logger.text(), consoleOutput.text(), ...seen])
      for (const secret of [...deployment().secrets, wrong.password, wrong.sentinelPassword])
        expect(text).to.not.include(secret);
  });

  it('runs a Gatehouse process configured from its settings (mode, nodes, ACL user, TLS): in, out, and no secret in its output', async function () {
    this.timeout(20_000);
    const env = deployment().gatehouseEnv();
    const { child, output } = spawnMain({
      ...env,
      ProjectTemplate__Session__Redis__KeyPrefix: prefix,
      NODE_EXTRA_CA_CERTS: deployment().caFile,
      ProjectTemplate__Logging__Level: 'debug',
    });
    try {
      const url = await listeningUrl(output, child);
      await eventually(async () => (await fetch(`${url}/health/ready`)).status === 200, 5_000);
      const store = newStore();
      await store.connect();
      const user = await signIn(
        { stores: { sessions: store }, settings: defaultSettings(builtInProviders) },
        adminClaims,
      );
      await store.close();
      const asUser = () => fetch(`${url}/api/app-info/admin`, { headers: { cookie: user.cookie } });
      expect((await asUser()).status).to.equal(200);
      const logout = await fetch(`${url}/Account/Logout`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: user.cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: `_csrf=${encodeURIComponent(user.csrf)}`,
      });
      expect(logout.status).to.equal(302);
      expect((await asUser()).status).to.equal(401);
    } finally {
      child.kill('SIGTERM');
      expect(await exitOf(child)).to.equal(0);
    }
    const { stdout, stderr } = output();
    expect(stdout).to.match(/"msg":"request"/);
    for (const secret of deployment().secrets) expect(stdout + stderr).to.not.include(secret);
  });
}
