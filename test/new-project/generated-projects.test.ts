/**
 * The slow half of the generator's tests (`npm run test:new-project`, run by CI): a project
 * of every `--authProvider` choice passes its own tests as generated, nothing edited and no
 * key supplied. `cookies` is installed with a real `npm ci` and runs its whole `npm test`;
 * the others get the template's packages linked (one install shows the lockfile works; each
 * costs a minute) and run what their choice can change: the format check of the files that
 * differ from the template's (the type check too when one is TypeScript), and every suite
 * that reads the project's own configuration (postureSuites). A choice changes only the
 * authentication posture, and the other suites run with Gatehouse's built-in posture
 * whatever the project committed (COOKIE_POSTURE, which
 * test/unit/new-project/posture-independence.test.ts holds to every key a choice writes),
 * so they pass or fail alike in every project. A whole `npm test` is about 90 s on CI's two
 * cores; seven of them were half of CI's time.
 * A `--authProvider connections --database postgres` project runs the same as the others
 * (about 90 s on two cores): its settings turn the administration API on.
 * The `cookies` and `none` projects also start with `npm start` and answer as their posture
 * says, and sign a user in through their `npm run demo`; a provider project's `npm start`
 * waits for its keys (test/integration/new-project/auth-choices.test.ts checks it names them).
 */
import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { AUTH_CHOICES } from '../../scripts/new-project/auth-choices.mjs';
import { freePort } from '../../scripts/free-port.js';
import { TestBrowser } from '../support/oidc-app.js';
import {
  cleanEnvironment,
  generate,
  linkTemplateModules,
  removeFolder,
  run,
  start,
  templateRoot,
  temporaryFolder,
  waitForOutput,
  type Running,
} from './generated-project.js';

const LISTENING = /Gatehouse listening on (http:\/\/[^"\s]+)/;
const MINUTE = 60_000;

const projects: Array<{ choice: string; database?: string; install: string; wholeTest: boolean; starts: boolean }> = [
  ...Object.keys(AUTH_CHOICES).map((choice) => ({
    choice,
    install: choice === 'cookies' ? 'npm ci' : 'linked',
    wholeTest: choice === 'cookies',
    starts: choice === 'cookies' || choice === 'none',
  })),
  // The administration API on in its settings: the suites that start it as configured see it.
  { choice: 'connections', database: 'postgres', install: 'linked', wholeTest: false, starts: false },
];

/**
 * How a suite shows it reads the project's own configuration rather than Gatehouse's
 * built-in posture: it starts the project as configured, runs its real entry point, loads
 * its configuration, or names its configuration file.
 */
const READS_OWN_CONFIGURATION =
  /startGatehouseAsConfigured|run-main\.js|startup-outcome\.js|config\/appsettings\.json|load-configuration\.js|createGatehouse\(/;

/** The project's test files that read its own configuration, relative to the project. */
function postureSuites(dir: string): string[] {
  return ['test/unit', 'test/integration'].flatMap((folder) =>
    readdirSync(join(dir, folder), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.test.ts'))
      .map((file) => join(dir, folder, file))
      .filter((path) => READS_OWN_CONFIGURATION.test(readFileSync(path, 'utf8')))
      .map((path) => relative(dir, path)),
  );
}

/** The project's files (its packages aside) that the template has not, or has with other bytes. */
function filesChangedFromTemplate(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => !file.startsWith('node_modules'))
    .filter((file) => statSync(join(dir, file)).isFile())
    .filter((file) => {
      const template = join(templateRoot, file);
      return !existsSync(template) || !readFileSync(join(dir, file)).equals(readFileSync(template));
    });
}

for (const { choice, database, install, wholeTest, starts } of projects) {
  const options = `--authProvider ${choice}${database ? ` --database ${database}` : ''}`;
  describe(`new project ${options} (${install === 'npm ci' ? 'a real npm ci' : 'the template’s packages linked'})`, function () {
    // A project's npm test takes a few minutes on two shared cores: room for a loaded CI machine.
    this.timeout(10 * MINUTE);
    let folder: string;
    let dir: string;
    let installOutput = '';
    const running: Running[] = [];

    before(async () => {
      const label = database ? `${choice}-${database}` : choice;
      folder = temporaryFolder(`project-${label}`);
      dir = join(folder, `${label}-app`);
      generate(dir, { authProvider: choice, database });
      if (install === 'linked') return linkTemplateModules(dir);
      const installed = await run('npm', ['ci', '--no-audit', '--no-fund'], dir, { timeoutMs: 5 * MINUTE });
      expect(installed.status, installed.stderr).to.equal(0);
      installOutput = installed.stdout + installed.stderr;
    });
    afterEach(async () => {
      for (const command of running.splice(0)) await command.stop();
    });
    after(() => removeFolder(folder));

    if (install === 'npm ci')
      it('installs with no install-script warning: its package.json decides every install script (allowScripts)', () => {
        expect(installOutput).to.match(/added \d+ packages/);
        expect(installOutput).not.to.match(/install.scripts/i);
      });

    if (wholeTest)
      it('passes its own npm test, as generated', async () => {
        const result = await run('npm', ['test'], dir, { timeoutMs: 10 * MINUTE });
        const summary = /(\d+) passing[\s\S]*$/.exec(result.stdout)?.[0] ?? '';
        expect(result.status, `${result.stdout.slice(-4000)}\n${result.stderr.slice(-2000)}`).to.equal(0);
        expect(Number(/(\d+) passing/.exec(summary)?.[1])).to.be.greaterThan(500);
        expect(summary).not.to.contain('failing');
      });
    else
      it('passes the format check of what its choice changed and every suite that reads its own configuration, as generated', async () => {
        const changed = filesChangedFromTemplate(dir);
        expect(changed).to.include.members(['config/appsettings.json', 'README.md', 'package.json']);
        const suites = postureSuites(dir);
        expect(suites).to.include('test/integration/startup.test.ts');
        const command = [
          `npx prettier --check --ignore-unknown ${changed.join(' ')}`,
          ...(changed.some((file) => /\.(m|c)?tsx?$|tsconfig/.test(file)) ? ['npx tsc -p tsconfig.json'] : []),
          // The project's own mocha settings, these suites only (a spec given on the command line
          // would add to the configured ones).
          `npx mocha --no-config --import=tsx --parallel --jobs 2 --timeout 10000 --exit ${suites.join(' ')}`,
        ].join(' && ');
        const result = await run('sh', ['-c', command], dir, { timeoutMs: 10 * MINUTE });
        const summary = /(\d+) passing[\s\S]*$/.exec(result.stdout)?.[0] ?? '';
        expect(result.status, `${result.stdout.slice(-4000)}\n${result.stderr.slice(-2000)}`).to.equal(0);
        expect(Number(/(\d+) passing/.exec(summary)?.[1])).to.be.greaterThan(50);
        expect(summary).not.to.contain('failing');
      });

    if (!starts) return;

    it(`starts with npm start and answers / ${choice === 'none' ? 'publicly, with no cookie' : 'with a challenge'}, and /health/live`, async () => {
      const command = start(
        'npm',
        ['start'],
        dir,
        cleanEnvironment({ PORT: String(await freePort()), ProjectTemplate__Hosting__ShutdownDrainSeconds: '0' }),
      );
      running.push(command);
      const url = (await waitForOutput(command, LISTENING, 3 * MINUTE))[1];
      const home = await fetch(`${url}/`, { redirect: 'manual', headers: { accept: 'text/html' } });
      if (choice === 'cookies') {
        expect(home.status).to.equal(302);
        expect(home.headers.get('location')).to.equal('/Account/Login?returnUrl=%2F');
      } else {
        expect(home.status).to.equal(200);
        expect(await home.text()).to.contain('This page is public');
        expect(home.headers.getSetCookie()).to.deep.equal([]);
        const admin = await fetch(`${url}/api/app-info/admin`);
        expect(admin.status).to.equal(403);
        expect(await admin.json()).to.include({ code: 'auth.disabled' });
        expect(admin.headers.getSetCookie()).to.deep.equal([]);
      }
      const live = await fetch(`${url}/health/live`);
      expect(live.status).to.equal(200);
      expect(live.headers.getSetCookie()).to.deep.equal([]);
    });

    it('signs a user in through its npm run demo', async () => {
      const port = await freePort();
      const command = start('npm', ['run', 'demo'], dir, cleanEnvironment({ PORT: String(port), DEMO_IDP_PORT: '0' }));
      running.push(command);
      await waitForOutput(command, /Gatehouse demo is running/, 2 * MINUTE);
      const appUrl = `http://127.0.0.1:${port}`;
      const browser = new TestBrowser();
      const callback = await browser.signIn(appUrl, 'admin');
      expect(callback.status).to.equal(302);
      const home = await browser.get(`${appUrl}/`, { accept: 'text/html' });
      expect(home.status).to.equal(200);
      expect(await home.text()).to.contain('Welcome, Ada Admin');
    });
  });
}
