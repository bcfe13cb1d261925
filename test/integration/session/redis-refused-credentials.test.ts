import { expect } from 'chai';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../../scripts/free-port.js';
import { RedisProcess } from '../../../scripts/local-redis/redis-process.js';
import { exitOf, listeningUrl, spawnMain } from '../../support/run-main.js';

const redisUrl = process.env.REDIS_URL ?? '';
const REDIS = 'ProjectTemplate__Session__Redis__';

/** One way to configure credentials that the server refuses, and the secrets it carries. */
interface RefusedCase {
  name: string;
  secrets: string[];
  env(port: number): Record<string, string>;
  /** What the log must say of the refusal (by code): proof the failure really happened. */
  logged: RegExp;
}

const secret = (what: string) => `SENTINEL-${what}-${randomUUID()}`;
const urlPassword = secret('url-password');
const tlsUrlPassword = secret('rediss-url-password');
const password = secret('password');
const clusterPassword = secret('cluster-password');
const sentinelPassword = secret('sentinel-password');
const dataPassword = secret('data-password');

const cases: RefusedCase[] = [
  {
    name: 'Standalone: an ACL user and a wrong password inside a redis:// URL',
    secrets: [urlPassword],
    env: (port) => ({ [`${REDIS}Url`]: `redis://app:${encodeURIComponent(urlPassword)}@127.0.0.1:${port}` }),
    logged: /WRONGPASS/,
  },
  {
    name: 'Standalone: a rediss:// URL with an ACL user, to a server that speaks no TLS',
    secrets: [tlsUrlPassword],
    env: (port) => ({ [`${REDIS}Url`]: `rediss://app:${encodeURIComponent(tlsUrlPassword)}@127.0.0.1:${port}` }),
    logged: /"code":"[A-Z_]+"/,
  },
  {
    name: 'Standalone: Username and a wrong Password',
    secrets: [password],
    env: (port) => ({
      [`${REDIS}Url`]: `redis://127.0.0.1:${port}`,
      [`${REDIS}Username`]: 'app',
      [`${REDIS}Password`]: password,
    }),
    logged: /WRONGPASS/,
  },
  {
    name: 'Cluster: a wrong Password to the seed node',
    secrets: [clusterPassword],
    env: (port) => ({
      [`${REDIS}Mode`]: 'Cluster',
      [`${REDIS}Nodes__0`]: `127.0.0.1:${port}`,
      [`${REDIS}Password`]: clusterPassword,
    }),
    logged: /WRONGPASS/,
  },
  {
    name: 'Sentinel: a wrong SentinelPassword, and a data Password never sent',
    secrets: [sentinelPassword, dataPassword],
    env: (port) => ({
      [`${REDIS}Mode`]: 'Sentinel',
      [`${REDIS}Nodes__0`]: `127.0.0.1:${port}`,
      [`${REDIS}SentinelMasterName`]: 'gatehouse-sessions',
      [`${REDIS}SentinelPassword`]: sentinelPassword,
      [`${REDIS}Username`]: 'app',
      [`${REDIS}Password`]: dataPassword,
    }),
    logged: /WRONGPASS/,
  },
];

if (redisUrl === '') {
  it.skip('Refused Redis credentials (skipped: REDIS_URL is not set; e.g. REDIS_URL=redis://127.0.0.1:6379)');
} else {
  /**
   * A Gatehouse process whose Redis credentials are refused (a throwaway redis-server with a
   * password of its own, acting as data node, cluster seed and sentinel in turn): it keeps
   * running and answers 503, and no password reaches its output (logged at trace), its
   * readiness answer, its error page or its problem details.
   */
  describe('Refused Redis credentials in a running Gatehouse (every mode)', function () {
    this.timeout(30_000);
    let dir: string;
    let server: RedisProcess;

    before(async function () {
      dir = mkdtempSync(join(tmpdir(), 'gatehouse-redis-refused-'));
      const port = await freePort();
      server = await RedisProcess.start({
        name: `refusing-${port}`,
        dir,
        port,
        config: [`port ${port}`, 'bind 127.0.0.1', `dir ${dir}`, 'save ""', `requirepass ${randomUUID()}`],
      });
    });

    after(async function () {
      await server?.kill();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    for (const refused of cases) {
      it(`${refused.name}: 503s, and no secret in the output or any answer`, async function () {
        const { child, output } = spawnMain({
          ProjectTemplate__Session__Store: 'Redis',
          ProjectTemplate__Session__Redis__CommandTimeoutMs: '300',
          ProjectTemplate__Logging__Level: 'trace',
          ...refused.env(server.port),
        });
        const answers: string[] = [];
        try {
          const base = await listeningUrl(output, child);
          // A token of the session cookie's shape (256 bits, base64url): it is looked up in the store.
          const cookie = `gatehouse.sid=${randomBytes(32).toString('base64url')}`;
          const asked: Array<{ path: string; headers: Record<string, string> }> = [
            { path: '/health/ready', headers: {} },
            { path: '/', headers: { cookie, accept: 'text/html' } },
            { path: '/api/app-info', headers: { cookie, accept: 'application/json' } },
          ];
          for (const { path, headers } of asked) {
            const response = await fetch(`${base}${path}`, { headers, redirect: 'manual' });
            const body = await response.text();
            expect(response.status, `${path}: ${body.slice(0, 300)}`).to.equal(503);
            response.headers.forEach((value, name) => answers.push(`${name}: ${value}`));
            answers.push(body);
          }
          expect(answers.join('\n')).to.include('session.store_unavailable');
        } finally {
          child.kill('SIGTERM');
          expect(await exitOf(child)).to.equal(0);
        }
        const { stdout, stderr } = output();
        expect(stdout, 'the refusal is logged, by its code').to.match(refused.logged);
        for (const text of [stdout, stderr, ...answers])
          for (const value of refused.secrets) {
            expect(text).to.not.include(value);
            expect(text).to.not.include(encodeURIComponent(value));
          }
      });
    }
  });
}
