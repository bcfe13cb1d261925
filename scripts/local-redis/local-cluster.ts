import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
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

const run = promisify(execFile);
const NODES = 6;

export interface LocalClusterOptions extends LocalRedisAccess {
  /** `cluster-node-timeout`: how long a silent primary has before its replica may replace it. */
  nodeTimeoutMs?: number;
}

/** One node as CLUSTER NODES describes it now. */
export interface ClusterNodeView {
  id: string;
  port: number;
  role: 'primary' | 'replica';
  /** A replica's primary. */
  primaryId?: string;
  failed: boolean;
}

/**
 * A Redis Cluster of three primaries and three replicas on free loopback ports, made with
 * `redis-server --cluster-enabled yes` and `redis-cli --cluster create ... --cluster-replicas 1`
 * in a temporary folder that `stop()` removes. No persistence: a node restarted empty
 * rejoins as a replica of whoever holds its slots now, and copies it.
 */
export class LocalCluster {
  private constructor(
    private readonly dir: string,
    readonly servers: RedisProcess[],
    /** Options for a client of the nodes (credentials, the run's certificate authority). */
    readonly clientOptions: RedisOptions,
    /** The run's certificate, when the cluster speaks TLS. */
    readonly caPem: string | undefined,
  ) {}

  /** The run's certificate as a file (for NODE_EXTRA_CA_CERTS), when the deployment speaks TLS. */
  get caFile(): string | undefined {
    return this.caPem === undefined ? undefined : join(this.dir, 'redis.crt');
  }

  static async start(options: LocalClusterOptions = {}): Promise<LocalCluster> {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-redis-cluster-'));
    const servers: RedisProcess[] = [];
    try {
      const files = writeAccessFiles(dir, options);
      for (let index = 0; index < NODES; index++) {
        const port = await freePort();
        const busPort = await freePort();
        servers.push(
          await RedisProcess.start({
            name: `node-${port}`,
            dir,
            port,
            config: [
              ...portConfig(port, options.tls),
              'bind 127.0.0.1',
              `dir ${dir}`,
              'save ""',
              'appendonly no',
              // A replica copies its primary at once, not after the default 5 s wait for others.
              'repl-diskless-sync-delay 0',
              'cluster-enabled yes',
              `cluster-config-file nodes-${port}.conf`,
              `cluster-port ${busPort}`,
              `cluster-node-timeout ${options.nodeTimeoutMs ?? 2_000}`,
              ...files.tlsConfig,
              ...(options.tls ? ['tls-cluster yes'] : []),
              ...files.userConfig,
            ],
          }),
        );
      }
      const cluster = new LocalCluster(dir, servers, clientOptions(options, files), files.caPem);
      const caFile = join(dir, 'redis.crt');
      await run(
        'redis-cli',
        [
          '--cluster',
          'create',
          ...servers.map((server) => `127.0.0.1:${server.port}`),
          '--cluster-replicas',
          '1',
          '--cluster-yes',
          ...(options.tls ? ['--tls', '--cacert', caFile] : []),
          ...(options.user ? ['--user', options.user.username] : []),
        ],
        // The password through the environment, not the command line other processes can read.
        { env: { ...process.env, ...(options.user ? { REDISCLI_AUTH: options.user.password } : {}) } },
      );
      await cluster.waitUntilHealthy();
      return cluster;
    } catch (error) {
      await Promise.all(servers.map((server) => server.kill()));
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
  }

  /** `host:port` of every node: the seeds a client is given. */
  get seeds(): string[] {
    return this.servers.map((server) => `127.0.0.1:${server.port}`);
  }

  /** The cluster as the first running node sees it. */
  async view(): Promise<ClusterNodeView[]> {
    const server = this.servers.find((candidate) => candidate.running);
    if (!server) throw new Error('no node is running');
    const text = String(await this.command(server.port, 'CLUSTER', 'NODES'));
    return text
      .trim()
      .split('\n')
      .map((line) => {
        const [id = '', address = '', flags = '', primaryId = '-'] = line.split(' ');
        const port = Number(/:(\d+)@/.exec(address)?.[1]);
        const role = flags.includes('master') ? 'primary' : 'replica';
        return {
          id,
          port,
          role,
          ...(role === 'replica' ? { primaryId } : {}),
          failed: /fail/.test(flags),
        };
      });
  }

  /** The process of the primary that serves `key` now. */
  async primaryOf(key: string): Promise<RedisProcess> {
    const running = this.servers.find((candidate) => candidate.running);
    if (!running) throw new Error('no node is running');
    const slot = Number(await this.command(running.port, 'CLUSTER', 'KEYSLOT', key));
    for (const server of this.servers.filter((candidate) => candidate.running)) {
      const slots = (await this.command(server.port, 'CLUSTER', 'SLOTS')) as Array<[number, number, [string, number]]>;
      const range = slots.find(([from, to]) => from <= slot && slot <= to);
      const owner = range?.[2][1];
      const found = this.servers.find((candidate) => candidate.port === owner);
      if (found) return found;
    }
    throw new Error(`no primary serves slot ${slot}`);
  }

  /** The process of a replica of `primary` now. */
  async replicaOf(primary: RedisProcess): Promise<RedisProcess> {
    const view = await this.view();
    const primaryId = view.find((node) => node.port === primary.port)?.id;
    const replica = view.find((node) => node.role === 'replica' && node.primaryId === primaryId && !node.failed);
    const found = this.servers.find((candidate) => candidate.port === replica?.port);
    if (!found) throw new Error(`no replica of the node on port ${primary.port}`);
    return found;
  }

  /**
   * Until every node runs, agrees that the cluster is ok, no node is flagged failed, and
   * every replica has copied its primary.
   */
  async waitUntilHealthy(timeoutMs = 30_000): Promise<void> {
    await until(
      async () => {
        for (const server of this.servers) {
          if (!server.running) return false;
          const info = String(await this.command(server.port, 'CLUSTER', 'INFO'));
          if (!info.includes('cluster_state:ok') || !info.includes(`cluster_known_nodes:${NODES}`)) return false;
        }
        const view = await this.view();
        if (view.some((node) => node.failed) || view.filter((node) => node.role === 'primary').length !== NODES / 2)
          return false;
        for (const replica of view.filter((node) => node.role === 'replica')) {
          const replication = String(await this.command(replica.port, 'INFO', 'replication'));
          if (!replication.includes('master_link_status:up')) return false;
        }
        // What the store needs of every primary: a write its replica confirms.
        for (const primary of view.filter((node) => node.role === 'primary')) {
          if (!(await confirmsWrites(primary.port, this.clientOptions, await this.keyOn(primary.port)))) return false;
        }
        return true;
      },
      timeoutMs,
      'the local cluster is not healthy',
    );
  }

  /** Starts a node that was killed again (it rejoins as a replica of its slots' new primary) and waits until all is healthy. */
  async restart(node: RedisProcess): Promise<void> {
    await node.start();
    await this.waitUntilHealthy();
  }

  /** A key of a slot that `port` serves now. */
  private async keyOn(port: number): Promise<string> {
    const slots = (await this.command(port, 'CLUSTER', 'SLOTS')) as Array<[number, number, [string, number]]>;
    const own = slots.filter((range) => range[2][1] === port);
    for (let n = 0; n < 10_000; n++) {
      const key = `local-cluster-check{${n}}`;
      const slot = Number(await this.command(port, 'CLUSTER', 'KEYSLOT', key));
      if (own.some(([from, to]) => from <= slot && slot <= to)) return key;
    }
    throw new Error(`no key found for the node on port ${port}`);
  }

  /** See `cutReplication` in access.ts. */
  cutReplication(primary: RedisProcess): Promise<void> {
    return cutReplication(primary.port, this.clientOptions);
  }

  command(port: number, command: string, ...args: Array<string | number>): Promise<unknown> {
    return commandTo(port, this.clientOptions, command, ...args);
  }

  async stop(): Promise<void> {
    for (const server of this.servers) server.thaw();
    await Promise.all(this.servers.map((server) => server.kill()));
    rmSync(this.dir, { recursive: true, force: true });
  }
}
