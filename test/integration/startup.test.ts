import { expect } from 'chai';
import { freePort } from '../support/free-port.js';
import { exitOf, listeningUrl, spawnMain, spawnMainAsConfigured } from '../support/run-main.js';

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
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await fetch(`${url}/health/ready`)).status).to.equal(503);
    expect((await fetch(`${url}/health/live`)).status).to.equal(200);
    const started = Date.now();
    child.kill('SIGTERM');
    expect(await exitOf(child)).to.equal(1);
    expect(Date.now() - started).to.be.lessThan(2000);
  });

  it('starts in production with the memory store, logging that sessions are per process', async () => {
    const { child, output } = spawnMain({
      NODE_ENV: 'production',
      ProjectTemplate__Hosting__PublicOrigin: 'https://app.example.com',
    });
    const url = await listeningUrl(output, child);
    expect((await fetch(`${url}/health/live`)).headers.get('strict-transport-security')).to.contain('max-age=');
    child.kill('SIGTERM');
    expect(await exitOf(child)).to.equal(0);
    expect(output().stdout).to.contain(
      'ProjectTemplate:Session:Store is Memory: sessions are per process and lost on restart',
    );
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
