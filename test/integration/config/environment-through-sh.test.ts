/**
 * The step-up of the administrator pages, configured the way an operator configures a
 * container (environment variables) and started with `npm start` itself, which runs its
 * script through /bin/sh (dash on Debian, Ubuntu and the `node` images): the build, then
 * the bundle. Dash passes on only names of letters, digits and `_`: the documented
 * spelling must arrive and be enforced.
 */
import { expect } from 'chai';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { DemoIdentityProvider } from '../../../scripts/demo-identity-provider.js';
import { COOKIE_POSTURE } from '../../../scripts/cookie-posture.js';
import { CLIENT_SECRET, freePort, startIdentityProvider, TestBrowser } from '../../support/oidc-app.js';
import { exitOf, listeningUrl } from '../../support/run-main.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const ADMIN = 'application.Role.Administrator';
const MANAGE = 'application.Permission.ManageApplication';

describe('step-up set in the environment, started with npm start (its script runs through /bin/sh)', function () {
  // npm start builds first when an input changed (about 20 s on a busy machine).
  this.timeout(150_000);
  let idp: DemoIdentityProvider;
  let child: ChildProcess | undefined;
  let stdout = '';
  let app: string;

  before(async function () {
    const probe = spawnSync('/bin/sh', ['-c', 'env'], { env: { PATH: process.env.PATH ?? '', 'A.B': 'kept' } });
    // Only a shell that drops such names shows the difference (dash; bash keeps them).
    if (probe.stdout.toString().includes('A.B=kept')) this.skip();
    const port = await freePort();
    idp = await startIdentityProvider([`http://127.0.0.1:${port}`]);
    child = spawn('npm', ['start', '--silent'], {
      cwd: root,
      // Its own process group: npm, the shell and node are stopped together.
      detached: true,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? root,
        NODE_ENV: 'test',
        HOST: '127.0.0.1',
        PORT: String(port),
        ...COOKIE_POSTURE,
        ProjectTemplate__Hosting__ShutdownDrainSeconds: '0',
        ProjectTemplate__Hosting__PublicOrigin: `http://127.0.0.1:${port}`,
        ProjectTemplate__Authentication__Providers__OpenIdConnect__Enabled: 'true',
        ProjectTemplate__Authentication__Providers__OpenIdConnect__Authority: idp.issuer,
        ProjectTemplate__Authentication__Providers__OpenIdConnect__ClientId: 'gatehouse-test',
        ProjectTemplate__Authentication__Providers__OpenIdConnect__ClientSecret: CLIENT_SECRET,
        // The spelling docs/step-up.md gives for the environment ...
        ProjectTemplate__Authorization__StepUp__AdminPages__Policy: ADMIN,
        ProjectTemplate__Authorization__StepUp__AdminPages__MaxAuthenticationAgeSeconds: '600',
        ProjectTemplate__Authorization__StepUp__AdminPages__AuthenticationMethods__0: 'mfa',
        // ... and the policy name as the key, which dash drops on the way.
        [`ProjectTemplate__Authorization__StepUp__${MANAGE}__MaxAuthenticationAgeSeconds`]: '60',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    app = await listeningUrl(() => ({ stdout }), child, 120_000);
  });
  after(async () => {
    if (child && child.exitCode === null) {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
      await exitOf(child);
    }
    await idp?.close();
  });

  it('logs the administrator policy’s step-up at start, and nothing of the policy name dash dropped', () => {
    expect(stdout).to.contain(
      `step-up: ${ADMIN} needs a sign-in within the last 10 minutes and a sign-in with multi-factor authentication (mfa)`,
    );
    expect(stdout).not.to.contain(`step-up: ${MANAGE}`);
  });

  it('sends a signed-in administrator without a second factor to the step-up, not to the page', async () => {
    const browser = new TestBrowser();
    expect((await browser.signIn(app, 'admin', '/')).status).to.equal(302);
    const admin = await browser.get(`${app}/Admin`, { accept: 'text/html' });
    expect(admin.status).to.equal(302);
    const location = new URL(admin.headers.get('location') ?? '', app);
    expect(location.pathname).to.equal('/External/Challenge');
    expect(location.searchParams.get('stepUp')).to.equal(ADMIN);
  });
});
