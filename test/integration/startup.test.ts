import { expect } from 'chai';
import { freePort } from '../../scripts/free-port.js';
import { exitOf, listeningUrl, printed, spawnMain, spawnMainAsConfigured } from '../support/run-main.js';
import { SamlTestIdentityProvider } from '../support/saml-identity-provider.js';

const SENTINEL = 'SENTINEL-client-secret-7f3a9c';
const OIDC = 'ProjectTemplate__Authentication__Providers__OpenIdConnect__';

describe('startup (the real entry point)', function () {
  this.timeout(20_000);

  it('starts with its committed configuration alone and stops cleanly on SIGTERM', async () => {
    // A free port rather than 0: with a provider configured, port 0 would leave redirect URIs without an origin.
    const { child, output } = spawnMainAsConfigured({ PORT: String(await freePort()) });
    const url = await listeningUrl(output, child);
    expect((await fetch(`${url}/health/ready`)).status).to.equal(200);
    child.kill('SIGTERM');
    expect(await exitOf(child)).to.equal(0);
  });

  for (const [when, requests] of [
    ['with its last lines still held', 0],
    ['after log lines failed to reach it', 50],
  ] as const) {
    it(`stops within its bound on SIGTERM once the reader of its stdout has gone (a closed pipe), ${when}`, async () => {
      const { child, output } = spawnMain({});
      const url = await listeningUrl(output, child);
      child.stdout?.destroy(); // the log shipper died: every later write to stdout fails with EPIPE
      for (let i = 0; i < requests; i++) await fetch(`${url}/`, { redirect: 'manual' });
      const started = performance.now();
      child.kill('SIGTERM');
      const hung = new Promise((resolve) => setTimeout(() => resolve('still running after 5 s'), 5_000));
      const exited = await Promise.race([exitOf(child), hung]);
      if (exited !== 0) child.kill('SIGKILL');
      expect(exited, 'the process exits by itself').to.equal(0);
      expect(performance.now() - started).to.be.below(3_000);
    });
  }

  it('refuses production without Hosting:TrustProxy, naming the key and why', async () => {
    const { child, output } = spawnMain({
      NODE_ENV: 'production',
      ProjectTemplate__Hosting__PublicOrigin: 'https://app.example.com',
    });
    expect(await exitOf(child)).to.equal(1);
    expect(output().stderr).to.match(
      /ProjectTemplate:Hosting:TrustProxy must be true in production: .*X-Forwarded-Proto/,
    );
  });

  it('composes Saml2 with no program on its PATH (the SAML schema is checked in process) and redirects a challenge', async () => {
    const idp = await SamlTestIdentityProvider.start();
    try {
      const port = await freePort();
      const { child, output } = spawnMain({
        PATH: '/nonexistent',
        PORT: String(port),
        ProjectTemplate__Hosting__PublicOrigin: `http://127.0.0.1:${port}`,
        ProjectTemplate__Authentication__Providers__Saml2__Enabled: 'true',
        ProjectTemplate__Authentication__Providers__Saml2__EntityId: 'https://app.example/saml',
        ProjectTemplate__Authentication__Providers__Saml2__MetadataUrl: idp.metadataUrl,
      });
      try {
        const url = await listeningUrl(output, child);
        const challenge = await fetch(`${url}/External/Challenge?provider=Saml2&returnUrl=%2F`, { redirect: 'manual' });
        expect(challenge.status, output().stderr).to.equal(302);
        expect(challenge.headers.get('location')).to.match(new RegExp(`^${idp.ssoUrl}\\?SAMLRequest=`));
        expect(output().stderr).to.equal('');
        expect(output().stdout, 'someone can sign in: no hint').not.to.contain('No sign-in provider is enabled');
      } finally {
        child.kill('SIGTERM');
        await exitOf(child);
      }
    } finally {
      await idp.close();
    }
  });

  it('fails before listening, naming every missing key, and never prints a configured secret', async () => {
    const { child, output } = spawnMain({
      [`${OIDC}Enabled`]: 'true',
      [`${OIDC}ClientId`]: '', // stated, so that a developer's .env cannot supply it
      [`${OIDC}ClientSecret`]: SENTINEL,
      [`${OIDC}Authority`]: 'not a url',
      ProjectTemplate__Session__Redis__Url: `redis://:${SENTINEL}@127.0.0.1:6379`,
    });
    expect(await exitOf(child)).to.equal(1);
    const { stdout, stderr } = output();
    expect(stderr).to.contain('ProjectTemplate:Authentication:Providers:OpenIdConnect:Authority');
    expect(stderr).to.contain('ProjectTemplate:Authentication:Providers:OpenIdConnect:ClientId');
    expect(stdout).not.to.contain('listening');
    expect(stdout + stderr).not.to.contain(SENTINEL);
  });

  it('rejects authentication off with the authenticated fallback on', async () => {
    const { child, output } = spawnMain({
      ProjectTemplate__Authentication__Enabled: 'false',
      ProjectTemplate__Authorization__RequireAuthenticatedUserByDefault: 'true',
    });
    expect(await exitOf(child)).to.equal(1);
    expect(output().stderr).to.contain('ProjectTemplate:Authorization:RequireAuthenticatedUserByDefault must be false');
  });

  it('names the key and expected type of a wrongly typed value', async () => {
    const { child, output } = spawnMain({
      ProjectTemplate__Authentication__Enabled: 'maybe',
      ProjectTemplate__Authentication__Provider__X: '1',
    });
    expect(await exitOf(child)).to.equal(1);
    expect(output().stderr).to.contain('ProjectTemplate:Authentication:Enabled must be a boolean');
    expect(output().stderr).to.contain('did you mean ProjectTemplate:Authentication:Providers?');
  });

  it('turns readiness to 503 at once on SIGTERM, keeps serving while draining, and a second signal forces the exit', async () => {
    const { child, output } = spawnMain({ ProjectTemplate__Hosting__ShutdownDrainSeconds: '20' });
    const url = await listeningUrl(output, child);
    child.kill('SIGTERM');
    // Printed once draining has begun: readiness must already answer 503, not some time later.
    await printed(output, child, /"msg":"shutting down: draining"/);
    expect((await fetch(`${url}/health/ready`)).status).to.equal(503);
    expect((await fetch(`${url}/health/live`)).status).to.equal(200);
    const started = Date.now();
    child.kill('SIGTERM');
    expect(await exitOf(child)).to.equal(1);
    expect(Date.now() - started).to.be.lessThan(2000);
  });

  it('exits 0 on SIGTERM once a short drain has passed and its stores are closed', async () => {
    // Redis when the suite has one: closing then sends QUIT and waits for its answer.
    const redis: Record<string, string> = process.env.REDIS_URL
      ? { ProjectTemplate__Session__Store: 'Redis', ProjectTemplate__Session__Redis__Url: process.env.REDIS_URL }
      : {};
    const { child, output } = spawnMain({ ...redis, ProjectTemplate__Hosting__ShutdownDrainSeconds: '0.5' });
    await listeningUrl(output, child);
    child.kill('SIGTERM');
    expect(await exitOf(child), `signal ${child.signalCode}, stdout:\n${output().stdout}`).to.equal(0);
    // main logs this once shutdown() has resolved, which closes the stores last.
    expect(output().stdout).to.match(/"msg":"stopped"/);
    expect(output().stdout).not.to.contain('exiting now');
    // No provider: the person who ran it is told what to do next, right after the listening line.
    expect(output().stdout).to.match(
      /listening on [^\n]*\n[^\n]*"level":40[^\n]*No sign-in provider is enabled, so nobody can sign in yet\. To see sign-in work now, stop this and run `npm run demo`\./,
    );
    expect(output().stdout).to.contain('docs/providers/openid-connect.md');
  });

  it('starts in production with the memory store, logging that sessions are per process', async () => {
    const { child, output } = spawnMain({
      NODE_ENV: 'production',
      ProjectTemplate__Hosting__PublicOrigin: 'https://app.example.com',
      ProjectTemplate__Hosting__TrustProxy: 'true',
    });
    const url = await listeningUrl(output, child);
    expect((await fetch(`${url}/health/live`)).headers.get('strict-transport-security')).to.contain('max-age=');
    child.kill('SIGTERM');
    expect(await exitOf(child)).to.equal(0);
    expect(output().stdout).to.contain(
      'ProjectTemplate:Session:Store is Memory: sessions are per process and lost on restart',
    );
    // A deployment has no demo to offer.
    expect(output().stdout).to.contain('No sign-in provider is enabled').and.not.contain('npm run demo');
  });

  it('reports the starter placeholder and a malformed Redis URL as configuration errors, not crashes', async () => {
    const { child, output } = spawnMain({
      PORT: '39999',
      [`${OIDC}Enabled`]: 'true',
      [`${OIDC}Authority`]: '<authority_url>', // the starter placeholder, whatever a .env says
      [`${OIDC}ClientSecret`]: SENTINEL,
      ProjectTemplate__Session__Store: 'Redis',
      ProjectTemplate__Session__Redis__Url: `redis://:${SENTINEL}@bad host:x`,
    });
    expect(await exitOf(child)).to.equal(1);
    const { stdout, stderr } = output();
    expect(stderr).to.contain(
      'ProjectTemplate:Authentication:Providers:OpenIdConnect:Authority must be an absolute https URL (it still holds the starter placeholder)',
    );
    expect(stderr).to.contain('ProjectTemplate:Session:Redis:Url must be a redis:// or rediss:// URL');
    expect(stdout + stderr).not.to.match(/TypeError|at .*\.ts:\d+/);
    expect(stdout + stderr).not.to.contain(SENTINEL);
  });
});
