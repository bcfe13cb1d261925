import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis, type RedisOptions } from 'ioredis';
import { makeSigningCredential } from '../saml/signing-credential.js';

/** How a local deployment is reached: optionally over TLS, optionally as an ACL user only. */
export interface LocalRedisAccess {
  /** Every node and sentinel speaks TLS only, with a certificate made for the run (valid for 127.0.0.1). */
  tls?: boolean;
  /** The default user is off: clients, replicas and sentinels sign in as this user. */
  user?: { username: string; password: string };
}

export interface AccessFiles {
  /** The run's certificate, self-signed: the one authority a client must trust. */
  caPem?: string;
  /** Directives every data node and sentinel gets. */
  tlsConfig: string[];
  /** Directives every data node gets for its users. */
  userConfig: string[];
}

/**
 * The user replicas sign in to their primary as, apart from the clients' own: turning it
 * off on a primary (`cutReplication`) leaves that primary acknowledging writes no replica
 * receives, the state a failover loses writes in.
 */
export const REPLICATION_USER = 'replicator';

export function writeAccessFiles(dir: string, access: LocalRedisAccess): AccessFiles {
  const replicationPassword = randomBytes(18).toString('base64url');
  const files: AccessFiles = {
    tlsConfig: [],
    userConfig: [
      `user ${REPLICATION_USER} on >${replicationPassword} ~* &* +@all`,
      `masteruser ${REPLICATION_USER}`,
      `masterauth ${replicationPassword}`,
    ],
  };
  if (access.tls) {
    const credential = makeSigningCredential({ commonName: 'local-redis', altNames: ['127.0.0.1', 'localhost'] });
    const certFile = join(dir, 'redis.crt');
    const keyFile = join(dir, 'redis.key');
    writeFileSync(certFile, credential.certificatePem);
    writeFileSync(keyFile, credential.privateKeyPem, { mode: 0o600 });
    files.caPem = credential.certificatePem;
    files.tlsConfig = [
      `tls-cert-file ${certFile}`,
      `tls-key-file ${keyFile}`,
      `tls-ca-cert-file ${certFile}`,
      'tls-auth-clients no',
      'tls-replication yes',
    ];
  }
  if (access.user) {
    const { username, password } = access.user;
    files.userConfig.push('user default off', `user ${username} on >${password} ~* &* +@all`);
  }
  return files;
}

/** The `port` directives: plain, or TLS only on the same number. */
export function portConfig(port: number, tls: boolean | undefined): string[] {
  return tls ? ['port 0', `tls-port ${port}`] : [`port ${port}`];
}

/** Options for an ioredis client of this deployment's data nodes (the tests' admin connections). */
export function clientOptions(access: LocalRedisAccess, files: AccessFiles): RedisOptions {
  return {
    ...(access.user ? { username: access.user.username, password: access.user.password } : {}),
    ...(files.caPem ? { tls: { ca: [files.caPem] } } : {}),
  };
}

/** One command to one node over a connection of its own; rejects within 2 s if the node does not answer. */
export async function commandTo(
  port: number,
  options: RedisOptions,
  command: string,
  ...args: Array<string | number>
): Promise<unknown> {
  const redis = new Redis({
    host: '127.0.0.1',
    port,
    ...options,
    lazyConnect: true,
    connectTimeout: 2_000,
    commandTimeout: 2_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return await redis.call(command, ...args);
  } finally {
    redis.disconnect();
  }
}

/** Polls `condition` every 100 ms until it holds; rejects with `what` after `timeoutMs`. */
export async function until(condition: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Stops `port`'s replicas from receiving what it is sent from now on: the replication user
 * is turned off and its connections closed, so they cannot sign in again. What the primary
 * acknowledges meanwhile exists on it alone.
 */
export async function cutReplication(port: number, options: RedisOptions): Promise<void> {
  await commandTo(port, options, 'ACL', 'SETUSER', REPLICATION_USER, 'off');
  await commandTo(port, options, 'CLIENT', 'KILL', 'USER', REPLICATION_USER);
}

/**
 * True when `port` (a primary) acknowledges a write that a replica confirms (SET, then WAIT
 * on the same connection). What the store's confirmed writes need; a replica that has just
 * copied its primary confirms nothing until its first acknowledgement, up to a second later.
 */
export async function confirmsWrites(port: number, options: RedisOptions, key: string): Promise<boolean> {
  const redis = new Redis({
    host: '127.0.0.1',
    port,
    ...options,
    lazyConnect: true,
    connectTimeout: 2_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    const replies = await redis.pipeline().set(key, '1', 'PX', 10_000).wait(1, 1_000).exec();
    return replies?.[1]?.[1] === 1;
  } finally {
    redis.disconnect();
  }
}
