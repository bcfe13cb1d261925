import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RedisOptions } from 'ioredis';
import { freePort } from '../free-port.js';
import {
  clientOptions,
  commandTo,
  confirmsWrites,
  cutReplication,
  portConfig,
  until,
  writeAccessFiles,
  type LocalRedisAccess,
} from './access.js';
import { RedisProcess } from './redis-process.js';

const SENTINELS = 3;
const QUORUM = 2;
const MASTER_NAME = 'gatehouse-sessions';

export interface LocalSentinelOptions extends LocalRedisAccess {
  /** The sentinels' own password (`requirepass`; they also use it between themselves). */
  sentinelPassword?: string;
  /** `down-after-milliseconds`: how long a silent primary has before the sentinels replace it. */
  downAfterMs?: number;
  /**
   * `failover-timeout`: a sentinel that took part in a failover starts none for the same
   * primary within twice this (so a second failover of a test waits for it).
   */
  failoverTimeoutMs?: number;
}

/**
 * One primary, one replica and three sentinels (quorum two) on free loopback ports, in a
 * temporary folder that `stop()` removes. No persistence: a node restarted empty is made
 * a replica of whoever is primary now by the sentinels, and copies it.
 */
export class LocalSentinel {
  /** The name the sentinels monitor the primary under. */
  readonly masterName = MASTER_NAME;

  private constructor(
    private readonly dir: string,
    /** The data nodes: the first started as the primary, the second as its replica. */
    readonly dataNodes: RedisProcess[],
    readonly sentinels: RedisProcess[],
    /** Options for a client of the data nodes (credentials, the run's certificate authority). */
    readonly clientOptions: RedisOptions,
    private readonly sentinelOptions: RedisOptions,
    readonly caPem: string | undefined,
  ) {}

  /** The run's certificate as a file (for NODE_EXTRA_CA_CERTS), when the deployment speaks TLS. */
  get caFile(): string | undefined {
    return this.caPem === undefined ? undefined : join(this.dir, 'redis.crt');
  }

  static async start(options: LocalSentinelOptions = {}): Promise<LocalSentinel> {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-redis-sentinel-'));
    const started: RedisProcess[] = [];
    try {
      const files = writeAccessFiles(dir, options);
      const dataConfig = (port: number, replicaOf?: number) => [
        ...portConfig(port, options.tls),
        'bind 127.0.0.1',
        `dir ${dir}`,
        'save ""',
        'appendonly no',
        // A replica copies its primary at once, not after the default 5 s wait for others.
        'repl-diskless-sync-delay 0',
        ...files.tlsConfig,
        ...files.userConfig,
        ...(replicaOf === undefined ? [] : [`replicaof 127.0.0.1 ${replicaOf}`]),
      ];
      const primaryPort = await freePort();
      const primary = await RedisProcess.start({
        name: `data-${primaryPort}`,
        dir,
        port: primaryPort,
        config: dataConfig(primaryPort),
      });
      started.push(primary);
      const replicaPort = await freePort();
      const replica = await RedisProcess.start({
        name: `data-${replicaPort}`,
        dir,
        port: replicaPort,
        config: dataConfig(replicaPort, primaryPort),
      });
      started.push(replica);
      const name = MASTER_NAME;
      const sentinels: RedisProcess[] = [];
      for (let index = 0; index < SENTINELS; index++) {
        const port = await freePort();
        const sentinel = await RedisProcess.start({
          name: `sentinel-${port}`,
          dir,
          port,
          sentinel: true,
          config: [
            ...portConfig(port, options.tls),
            'bind 127.0.0.1',
            `dir ${dir}`,
            ...files.tlsConfig,
            ...(options.sentinelPassword
              ? [`requirepass ${options.sentinelPassword}`, `sentinel sentinel-pass ${options.sentinelPassword}`]
              : []),
            `sentinel monitor ${name} 127.0.0.1 ${primaryPort} ${QUORUM}`,
            `sentinel down-after-milliseconds ${name} ${options.downAfterMs ?? 1_000}`,
            `sentinel failover-timeout ${name} ${options.failoverTimeoutMs ?? 3_000}`,
            ...(options.user
              ? [
                  `sentinel auth-user ${name} ${options.user.username}`,
                  `sentinel auth-pass ${name} ${options.user.password}`,
                ]
              : []),
          ],
        });
        started.push(sentinel);
        sentinels.push(sentinel);
      }
      const client = clientOptions(options, files);
      const sentinelClient: RedisOptions = {
        ...(options.sentinelPassword ? { password: options.sentinelPassword } : {}),
        ...(files.caPem ? { tls: { ca: [files.caPem] } } : {}),
      };
      const deployment = new LocalSentinel(dir, [primary, replica], sentinels, client, sentinelClient, files.caPem);
      await deployment.waitUntilHealthy();
      return deployment;
    } catch (error) {
      await Promise.all(started.map((server) => server.kill()));
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
  }

  /** `host:port` of every sentinel: what a client is given. */
  get sentinelAddresses(): string[] {
    return this.sentinels.map((sentinel) => `127.0.0.1:${sentinel.port}`);
  }

  /** The data node the sentinels name as primary now. */
  async primary(): Promise<RedisProcess> {
    const sentinel = this.sentinels.find((candidate) => candidate.running);
    if (!sentinel) throw new Error('no sentinel is running');
    const address = (await this.sentinelCommand(
      sentinel.port,
      'SENTINEL',
      'GET-MASTER-ADDR-BY-NAME',
      this.masterName,
    )) as [string, string] | null;
    const found = this.dataNodes.find((node) => node.port === Number(address?.[1]));
    if (!found) throw new Error('the sentinels name no primary of this deployment');
    return found;
  }

  /** The other data node. */
  async replica(): Promise<RedisProcess> {
    const primary = await this.primary();
    const found = this.dataNodes.find((node) => node !== primary);
    if (!found) throw new Error('no replica');
    return found;
  }

  /**
   * Until every node runs, every sentinel names the same primary, sees it up with one
   * replica and the two other sentinels, and the replica has copied it.
   */
  async waitUntilHealthy(timeoutMs = 30_000): Promise<void> {
    await until(
      async () => {
        if (![...this.dataNodes, ...this.sentinels].every((server) => server.running)) return false;
        const primaries = new Set<string>();
        for (const sentinel of this.sentinels) {
          const fields = (await this.sentinelCommand(sentinel.port, 'SENTINEL', 'MASTER', this.masterName)) as string[];
          const master = Object.fromEntries(
            fields.flatMap((value, index) => (index % 2 === 0 ? [[value, fields[index + 1]]] : [])),
          );
          if (
            master.flags !== 'master' ||
            master['num-slaves'] !== '1' ||
            master['num-other-sentinels'] !== String(SENTINELS - 1)
          )
            return false;
          primaries.add(`${master.port}`);
          const replicas = (await this.sentinelCommand(
            sentinel.port,
            'SENTINEL',
            'REPLICAS',
            this.masterName,
          )) as string[][];
          if (!replicas.every((replica) => replica[replica.indexOf('flags') + 1] === 'slave')) return false;
        }
        if (primaries.size !== 1) return false;
        const replication = String(await this.command((await this.replica()).port, 'INFO', 'replication'));
        if (!replication.includes('master_link_status:up')) return false;
        // What the store needs of the primary: a write its replica confirms.
        return confirmsWrites((await this.primary()).port, this.clientOptions, 'local-sentinel-check');
      },
      timeoutMs,
      'the local Sentinel deployment is not healthy',
    );
  }

  /** Until the sentinels name another data node than `former` as primary. */
  async waitForNewPrimary(former: RedisProcess, timeoutMs = 30_000): Promise<RedisProcess> {
    await until(async () => (await this.primary()) !== former, timeoutMs, 'no failover');
    return this.primary();
  }

  /**
   * Starts a data node that was killed again, as a replica of the primary now. Never as an
   * empty primary: with no persistence, a sentinel that has not yet learnt of the failover
   * could make it primary again, and every session would be gone (Redis's documentation
   * warns of nodes restarted with persistence off).
   */
  async restart(node: RedisProcess): Promise<void> {
    const primary = await this.primary();
    await node.start(['--replicaof', '127.0.0.1', String(primary.port)]);
    await this.waitUntilHealthy();
  }

  /** See `cutReplication` in access.ts. */
  cutReplication(primary: RedisProcess): Promise<void> {
    return cutReplication(primary.port, this.clientOptions);
  }

  command(port: number, command: string, ...args: Array<string | number>): Promise<unknown> {
    return commandTo(port, this.clientOptions, command, ...args);
  }

  sentinelCommand(port: number, command: string, ...args: Array<string | number>): Promise<unknown> {
    return commandTo(port, this.sentinelOptions, command, ...args);
  }

  async stop(): Promise<void> {
    const servers = [...this.dataNodes, ...this.sentinels];
    for (const server of servers) server.thaw();
    await Promise.all(servers.map((server) => server.kill()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}
