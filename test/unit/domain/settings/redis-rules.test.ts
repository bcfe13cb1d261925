import { expect } from 'chai';
import { builtInProviders } from '../../../../src/bootstrap/provider-catalogue.js';
import { checkSettings } from '../../../../src/domain/settings/check-settings.js';
import { defaultSettings } from '../../../../src/domain/settings/default-settings.js';
import { checkRedis, parseRedisNode } from '../../../../src/domain/settings/redis-rules.js';
import type { RedisSettings } from '../../../../src/domain/settings/settings.js';

const PASSWORD = 'SENTINEL-redis-password-5d1c';
const SENTINEL_PASSWORD = 'SENTINEL-sentinel-password-77a0';
const URL_PASSWORD = 'SENTINEL-url-password-e3b9';
const key = (name: string) => `ProjectTemplate:Session:Redis:${name}`;

function redis(change: Partial<RedisSettings>): RedisSettings {
  return { ...defaultSettings(builtInProviders).Session.Redis, ...change };
}

const standalone = (change: Partial<RedisSettings> = {}) => redis({ Url: 'redis://cache:6379', ...change });
const cluster = (change: Partial<RedisSettings> = {}) =>
  redis({ Mode: 'Cluster', Nodes: ['redis-0:6379', 'redis-1:6379', '10.0.0.3:7000'], ...change });
const sentinel = (change: Partial<RedisSettings> = {}) =>
  redis({
    Mode: 'Sentinel',
    Nodes: ['sentinel-0:26379', '[fd00::5]:26379'],
    SentinelMasterName: 'sessions',
    ...change,
  });

const errorKeys = (settings: RedisSettings) =>
  checkRedis(settings)
    .filter((p) => p.severity === 'error')
    .map((p) => p.key);

describe('Redis settings rules (checkRedis)', () => {
  it('accepts each mode configured alone, with credentials and TLS given once', () => {
    const accepted: Array<[string, RedisSettings]> = [
      ['Standalone, plain URL', standalone()],
      [
        'Standalone, rediss:// with a user and password in the URL',
        standalone({ Url: `rediss://app:${URL_PASSWORD}@cache:6380/2` }),
      ],
      ['Standalone, rediss:// and Tls', standalone({ Url: 'rediss://cache:6380', Tls: true })],
      ['Standalone, credentials as keys', standalone({ Username: 'app', Password: PASSWORD })],
      ['Standalone, a password alone', standalone({ Password: PASSWORD })],
      ['Cluster', cluster()],
      ['Cluster, ACL user and TLS', cluster({ Username: 'app', Password: PASSWORD, Tls: true })],
      ['Cluster, one seed', cluster({ Nodes: ['redis.example.com:6379'] })],
      ['Sentinel', sentinel()],
      [
        'Sentinel, every secret',
        sentinel({ Username: 'app', Password: PASSWORD, SentinelPassword: SENTINEL_PASSWORD, Tls: true }),
      ],
    ];
    for (const [name, settings] of accepted) expect(checkRedis(settings), name).to.deep.equal([]);
  });

  it('names the missing key of each mode', () => {
    const cases: Array<[string, RedisSettings, string[]]> = [
      ['Standalone without a URL', redis({}), [key('Url')]],
      ['Cluster without seeds', redis({ Mode: 'Cluster' }), [key('Nodes')]],
      [
        'Sentinel without sentinels or a primary name',
        redis({ Mode: 'Sentinel' }),
        [key('Nodes'), key('SentinelMasterName')],
      ],
      ['Sentinel without a primary name', sentinel({ SentinelMasterName: ' ' }), [key('SentinelMasterName')]],
      ['a user without a password', cluster({ Username: 'app' }), [key('Username')]],
      ['a user in keys, no password anywhere', standalone({ Username: 'app' }), [key('Username')]],
    ];
    for (const [name, settings, keys] of cases) expect(errorKeys(settings), name).to.deep.equal(keys);
  });

  it('names the contradictory key: another mode’s key left set, or one thing said twice', () => {
    const cases: Array<[string, RedisSettings, string[]]> = [
      ['Standalone with Nodes', standalone({ Nodes: ['redis-0:6379'] }), [key('Nodes')]],
      ['Standalone with a primary name', standalone({ SentinelMasterName: 'sessions' }), [key('SentinelMasterName')]],
      [
        'Standalone with a sentinel password',
        standalone({ SentinelPassword: SENTINEL_PASSWORD }),
        [key('SentinelPassword')],
      ],
      ['Cluster with a URL', cluster({ Url: 'redis://cache:6379' }), [key('Url')]],
      ['Cluster with a primary name', cluster({ SentinelMasterName: 'sessions' }), [key('SentinelMasterName')]],
      ['Sentinel with a URL', sentinel({ Url: `redis://:${URL_PASSWORD}@cache:6379` }), [key('Url')]],
      ['Tls with a redis:// URL', standalone({ Tls: true }), [key('Tls')]],
      [
        'a user in the URL and in Username',
        standalone({ Url: `redis://app:${URL_PASSWORD}@cache`, Username: 'app' }),
        [key('Username')],
      ],
      [
        'a password in the URL and in Password',
        standalone({ Url: `redis://:${URL_PASSWORD}@cache`, Password: PASSWORD }),
        [key('Password')],
      ],
      ['a hash tag in a Cluster key prefix', cluster({ KeyPrefix: '{gatehouse}:' }), [key('KeyPrefix')]],
      ['a brace in a Cluster key prefix', cluster({ KeyPrefix: 'gate}house:' }), [key('KeyPrefix')]],
    ];
    for (const [name, settings, keys] of cases) expect(errorKeys(settings), name).to.deep.equal(keys);
    // Outside Cluster a brace in the prefix is only a character.
    expect(errorKeys(standalone({ KeyPrefix: '{gatehouse}:' }))).to.deep.equal([]);
  });

  it('refuses what is not a URL or a host:port, naming the item', () => {
    for (const url of ['cache:6379', 'http://cache:6379', 'redis://', 'not a url'])
      expect(errorKeys(standalone({ Url: url })), url).to.deep.equal([key('Url')]);
    expect(errorKeys(cluster({ Nodes: ['redis-0:6379', 'redis-1', 'redis-0:6379', 'redis-2:0'] }))).to.deep.equal([
      key('Nodes:1'),
      key('Nodes:2'),
      key('Nodes:3'),
    ]);
  });

  it('warns when a replicated mode is told not to wait for a replica, and only then', () => {
    for (const settings of [cluster({ WaitForReplica: false }), sentinel({ WaitForReplica: false })]) {
      const problems = checkRedis(settings);
      expect(problems.map((p) => `${p.severity} ${p.key}`)).to.deep.equal([`warning ${key('WaitForReplica')}`]);
      expect(problems[0]?.message).to.match(/failover can lose a sign-in, a logout/);
    }
    expect(checkRedis(standalone({ WaitForReplica: false }))).to.deep.equal([]);
  });

  it('never quotes a configured value, secret or not', () => {
    const everythingWrong = [
      redis({
        Mode: 'Cluster',
        Url: `redis://u:${URL_PASSWORD}@cache`,
        SentinelPassword: SENTINEL_PASSWORD,
        Username: 'app-user-7f',
      }),
      redis({ Url: `redis://u:${URL_PASSWORD}@cache`, Password: PASSWORD, Nodes: ['redis-node-q9:1'], Tls: true }),
      redis({ Mode: 'Sentinel', Nodes: ['bad node q9'], Password: PASSWORD, WaitForReplica: false }),
    ];
    const text = JSON.stringify(everythingWrong.flatMap((settings) => checkRedis(settings)));
    for (const value of [PASSWORD, SENTINEL_PASSWORD, URL_PASSWORD, 'app-user-7f', 'redis-node-q9', 'bad node q9'])
      expect(text).to.not.include(value);
  });

  it('applies only when the store is Redis: a memory store may keep Redis placeholders', () => {
    const settings = defaultSettings(builtInProviders);
    settings.Session.Redis = cluster({ Url: 'placeholder', Nodes: [] });
    const context = {
      environment: 'development' as const,
      unknownKeys: [],
      providers: builtInProviders,
      isRoutedPath: () => false,
    };
    expect(checkSettings(settings, context)).to.deep.equal([]);
    settings.Session.Store = 'Redis';
    expect(checkSettings(settings, context).map((p) => p.key)).to.deep.equal([key('Url'), key('Nodes')]);
  });
});

describe('parseRedisNode', () => {
  it('reads host:port and [IPv6]:port, and nothing else', () => {
    const cases: Array<[string, { host: string; port: number } | undefined]> = [
      ['redis-0:6379', { host: 'redis-0', port: 6379 }],
      ['redis-0.redis.svc.cluster.local:7000', { host: 'redis-0.redis.svc.cluster.local', port: 7000 }],
      ['10.0.0.3:1', { host: '10.0.0.3', port: 1 }],
      ['[fd00::5]:26379', { host: 'fd00::5', port: 26379 }],
      ['[::1]:65535', { host: '::1', port: 65535 }],
      ['redis-0', undefined],
      ['redis-0:', undefined],
      [':6379', undefined],
      ['redis-0:0', undefined],
      ['redis-0:65536', undefined],
      ['redis-0:63a9', undefined],
      ['fd00::5:6379', undefined],
      ['[not-ipv6]:6379', undefined],
      ['redis://redis-0:6379', undefined],
      ['user@redis-0:6379', undefined],
      [' redis-0:6379', undefined],
      ['-redis:6379', undefined],
    ];
    for (const [value, expected] of cases) expect(parseRedisNode(value), value).to.deep.equal(expected);
  });
});
