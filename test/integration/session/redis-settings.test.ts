import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../../scripts/free-port.js';
import { portConfig, writeAccessFiles } from '../../../scripts/local-redis/access.js';
import { RedisProcess } from '../../../scripts/local-redis/redis-process.js';
import { RedisSessionStore } from '../../../src/adapters/session/redis-session-store.js';
import type { RedisConnection } from '../../../src/adapters/session/redis-client.js';
import { builtInProviders } from '../../../src/bootstrap/provider-catalogue.js';
import { defaultSettings } from '../../../src/domain/settings/default-settings.js';
import { exitOf, listeningUrl, spawnMain } from '../../support/run-main.js';
import { adminClaims, signIn } from '../../support/sign-in.js';
import { RecordingLogger } from './replicated-redis.js';

const redisUrl = process.env.REDIS_URL ?? '';
const REDIS = 'ProjectTemplate__Session__Redis__';

describe('Redis settings at startup', function () {
  this.timeout(20_000);

  it('stops naming every missing or contradictory Redis key, and prints none of the secrets given', async () => {
    const secrets = {
      url: `SENTINEL-url-password-${randomUUID()}`,
      password: `SENTINEL-password-${randomUUID()}`,
      sentinel: `SENTINEL-sentinel-password-${randomUUID()}`,
    };
    const { child, output } = spawnMain({
      ProjectTemplate__Session__Store: 'Redis',
      [`${REDIS}Mode`]: 'Cluster',
      [`${REDIS}Url`]: `rediss://app:${secrets.url}@cache.example:6380`,
      [`${REDIS}Nodes__0`]: 'redis-0.example:6379',
      [`${REDIS}Nodes__1`]: 'redis-1.example',
      [`${REDIS}Password`]: secrets.password,
      [`${REDIS}SentinelPassword`]: secrets.sentinel,
      [`${REDIS}KeyPrefix`]: '{app}:',
    });
    expect(await exitOf(child)).to.equal(1);
    const { stdout, stderr } = output();
    for (const key of ['Url', 'Nodes:1', 'SentinelPassword', 'KeyPrefix'])
      expect(stderr).to.include(`ProjectTemplate:Session:Redis:${key}`);
    for (const secret of Object.values(secrets)) expect(stdout + stderr).to.not.include(secret);
  });
});

if (redisUrl === '') {
  it.skip('RedisSessionStore over TLS (skipped: REDIS_URL is not set; e.g. REDIS_URL=redis://127.0.0.1:6379)');
} else {
  describe('RedisSessionStore on one server over TLS with an ACL user (Standalone)', function () {
    this.timeout(20_000);
    const user = { username: 'gatehouse-app', password: `SENTINEL-standalone-password-${randomUUID()}` };
    const prefix = `gatehouse-test:${randomUUID()}:`;
    let dir: string;
    let server: RedisProcess;
    let caPem: string;

    before(async function () {
      dir = mkdtempSync(join(tmpdir(), 'gatehouse-redis-tls-'));
      const files = writeAccessFiles(dir, { tls: true, user });
      caPem = files.caPem ?? '';
      const port = await freePort();
      server = await RedisProcess.start({
        name: `tls-${port}`,
        dir,
        port,
        config: [
          ...portConfig(port, true),
          'bind 127.0.0.1',
          `dir ${dir}`,
          'save ""',
          ...files.tlsConfig,
          ...files.userConfig,
        ],
      });
    });

    after(async function () {
      await server?.kill();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    const url = (password = user.password) =>
      `rediss://${user.username}:${encodeURIComponent(password)}@127.0.0.1:${server.port}`;
    const newStore = (connection: RedisConnection, logger = new RecordingLogger()) =>
      new RedisSessionStore({ connection, waitForReplica: false, keyPrefix: prefix, commandTimeoutMs: 500, logger });

    it('reads and writes through a rediss:// URL carrying the user, checking the server certificate', async () => {
      const store = newStore({ topology: { mode: 'Standalone', url: url() }, tls: { ca: [caPem] } });
      await store.connect();
      const key = randomUUID();
      expect(await store.create(key, { n: 1 }, 60_000)).to.equal(true);
      expect(await store.get(key)).to.deep.equal({ n: 1 });
      await store.close();

      // Without the run's certificate authority the server is not trusted: nothing is sent to it.
      const logger = new RecordingLogger();
      const untrusting = newStore({ topology: { mode: 'Standalone', url: url() } }, logger);
      await untrusting.connect();
      expect(await untrusting.ping()).to.equal(false);
      await untrusting.close();
      expect(logger.text()).to.include('"code":"DEPTH_ZERO_SELF_SIGNED_CERT"');
      expect(logger.text()).to.not.include(user.password);
    });

    it('logs a refused password by its code alone', async () => {
      const wrong = `SENTINEL-wrong-${randomUUID()}`;
      const logger = new RecordingLogger();
      const store = newStore({ topology: { mode: 'Standalone', url: url(wrong) }, tls: { ca: [caPem] } }, logger);
      await store.connect();
      expect(await store.ping()).to.equal(false);
      await store.close();
      expect(logger.text()).to.include('"code":"WRONGPASS"');
      for (const secret of [wrong, user.password]) expect(logger.text()).to.not.include(secret);
    });

    it('runs a Gatehouse process from Url, Username, Password and Tls settings, with no secret in its output', async () => {
      const { child, output } = spawnMain({
        ProjectTemplate__Session__Store: 'Redis',
        [`${REDIS}Url`]: `rediss://127.0.0.1:${server.port}`,
        [`${REDIS}Username`]: user.username,
        [`${REDIS}Password`]: user.password,
        [`${REDIS}Tls`]: 'true',
        [`${REDIS}KeyPrefix`]: prefix,
        NODE_EXTRA_CA_CERTS: join(dir, 'redis.crt'),
      });
      try {
        const base = await listeningUrl(output, child);
        expect((await fetch(`${base}/health/ready`)).status).to.equal(200);
        const store = newStore({ topology: { mode: 'Standalone', url: url() }, tls: { ca: [caPem] } });
        await store.connect();
        const signedIn = await signIn(
          { stores: { sessions: store }, settings: defaultSettings(builtInProviders) },
          adminClaims,
        );
        await store.close();
        expect((await fetch(`${base}/api/app-info/admin`, { headers: { cookie: signedIn.cookie } })).status).to.equal(
          200,
        );
      } finally {
        child.kill('SIGTERM');
        expect(await exitOf(child)).to.equal(0);
      }
      const { stdout, stderr } = output();
      expect(stdout + stderr).to.not.include(user.password);
    });
  });
}
