import { error, keyOf, warning, type SettingsProblem } from './problem.js';
import type { RedisMode, RedisSettings } from './settings.js';

/** A Redis node or sentinel as the settings list it. */
export interface RedisNodeAddress {
  host: string;
  port: number;
}

const HOST_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$/;
const IPV6 = /^[0-9A-Fa-f:.]+$/;

/** `host:port`, or `[IPv6]:port`, or undefined: never throws. */
export function parseRedisNode(value: string): RedisNodeAddress | undefined {
  const separator = value.lastIndexOf(':');
  if (separator <= 0) return undefined;
  const rawHost = value.slice(0, separator);
  const rawPort = value.slice(separator + 1);
  if (!/^\d{1,5}$/.test(rawPort)) return undefined;
  const port = Number(rawPort);
  if (port < 1 || port > 65_535) return undefined;
  const bracketed = /^\[(.+)\]$/.exec(rawHost);
  if (bracketed?.[1] !== undefined) return IPV6.test(bracketed[1]) ? { host: bracketed[1], port } : undefined;
  return HOST_NAME.test(rawHost) ? { host: rawHost, port } : undefined;
}

const key = (name: keyof RedisSettings) => keyOf('Session', 'Redis', name);
const MODE = key('Mode');

/**
 * The rules for `Session:Redis` once the store is Redis: each mode's required keys, no key
 * of another mode left set (a Url beside Cluster seeds would leave it unclear which Redis is
 * meant), credentials and TLS said once. Every problem names its key, never a value.
 */
export function checkRedis(redis: RedisSettings): SettingsProblem[] {
  const problems: SettingsProblem[] = [];
  const mode = redis.Mode;
  const url = mode === 'Standalone' ? checkStandaloneUrl(redis, problems) : undefined;
  if (mode !== 'Standalone' && redis.Url !== '') {
    problems.push(
      error(
        key('Url'),
        `is for Mode Standalone only; with Mode ${mode} list the ${mode === 'Cluster' ? 'seed nodes' : 'sentinels'} in ${key('Nodes')}`,
      ),
    );
  }
  problems.push(...checkNodes(redis, mode));
  if (mode !== 'Sentinel') {
    for (const name of ['SentinelMasterName', 'SentinelPassword'] as const) {
      if (redis[name] !== '') problems.push(error(key(name), `is for Mode Sentinel only (${MODE} is ${mode})`));
    }
  } else if (redis.SentinelMasterName.trim() === '') {
    problems.push(
      error(
        key('SentinelMasterName'),
        'is required when Mode is Sentinel: the name the sentinels monitor the primary under',
      ),
    );
  }
  const hasPassword = redis.Password !== '' || (url !== undefined && url.password !== '');
  if (redis.Username !== '' && !hasPassword) {
    problems.push(error(key('Username'), `needs a password: set ${key('Password')}`));
  }
  if (mode === 'Cluster' && /[{}]/.test(redis.KeyPrefix)) {
    problems.push(
      error(
        key('KeyPrefix'),
        'must not contain { or } in Mode Cluster: a hash tag in the prefix would put every key in one slot, so one primary would hold every session',
      ),
    );
  }
  if (mode !== 'Standalone' && !redis.WaitForReplica) {
    problems.push(
      warning(
        key('WaitForReplica'),
        `is false: a failover can lose a sign-in, a logout or a used single-use record that Redis acknowledged just before it (see docs/operations.md, Scaling out)`,
      ),
    );
  }
  return problems;
}

/** The Standalone URL's own rules; the parsed URL when it is one. */
function checkStandaloneUrl(redis: RedisSettings, problems: SettingsProblem[]): URL | undefined {
  if (redis.Url.trim() === '') {
    problems.push(error(key('Url'), 'is required when ProjectTemplate:Session:Store is Redis and Mode is Standalone'));
    return undefined;
  }
  const url = URL.canParse(redis.Url) ? new URL(redis.Url) : undefined;
  if (!url || (url.protocol !== 'redis:' && url.protocol !== 'rediss:') || url.hostname === '') {
    problems.push(error(key('Url'), 'must be a redis:// or rediss:// URL'));
    return undefined;
  }
  if (redis.Tls && url.protocol === 'redis:') {
    problems.push(error(key('Tls'), `is true but ${key('Url')} is redis://: use rediss:// (or leave Tls false)`));
  }
  if (url.username !== '' && redis.Username !== '') {
    problems.push(error(key('Username'), `is set and ${key('Url')} names a user too: give the user in one place`));
  }
  if (url.password !== '' && redis.Password !== '') {
    problems.push(error(key('Password'), `is set and ${key('Url')} holds a password too: give it in one place`));
  }
  return url;
}

function checkNodes(redis: RedisSettings, mode: RedisMode): SettingsProblem[] {
  if (mode === 'Standalone') {
    return redis.Nodes.length > 0
      ? [error(key('Nodes'), `is for Mode Cluster and Sentinel; Mode Standalone connects to ${key('Url')}`)]
      : [];
  }
  if (redis.Nodes.length === 0) {
    return [
      error(
        key('Nodes'),
        mode === 'Cluster'
          ? 'is required when Mode is Cluster: host:port of one or more cluster nodes (several, so that starting does not depend on one)'
          : 'is required when Mode is Sentinel: host:port of each sentinel',
      ),
    ];
  }
  const problems: SettingsProblem[] = [];
  const seen = new Set<string>();
  redis.Nodes.forEach((value, index) => {
    const node = parseRedisNode(value);
    const itemKey = keyOf('Session', 'Redis', 'Nodes', String(index));
    if (!node) problems.push(error(itemKey, 'must be host:port (or [IPv6 address]:port)'));
    else if (seen.has(`${node.host.toLowerCase()}:${node.port}`))
      problems.push(error(itemKey, 'repeats an earlier node'));
    else seen.add(`${node.host.toLowerCase()}:${node.port}`);
  });
  return problems;
}
