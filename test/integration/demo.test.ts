/**
 * `npm run demo` is a newcomer's first minute: its terminal says what to open and who to
 * sign in as, lists requests one short line each, and carries none of the demo
 * provider's development-only warnings. Run as a process, through a whole sign-in and
 * sign-out, so every page of the provider that used to print one is reached.
 */
import { expect } from 'chai';
import type { ChildProcess } from 'node:child_process';
import { CookieJar, driveOidcLogin } from '../support/drive-oidc-login.js';
import { frontchannelFramesAtSignOut } from '../support/oidc-provider-logout.js';
import { canListen, freePort } from '../../scripts/free-port.js';
import { PREFERRED_DEMO_METRICS_PORT } from '../../scripts/your-app-port.js';
import { exitOf, spawnEntryPoint, type SpawnedProcess } from '../support/run-main.js';

function waitFor(demo: SpawnedProcess, text: string, timeoutMs = 15_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const poll = setInterval(() => {
      if (demo.output().stdout.includes(text)) {
        clearInterval(poll);
        resolve();
      } else if (demo.child.exitCode !== null || Date.now() - started > timeoutMs) {
        clearInterval(poll);
        reject(new Error(`the demo did not print "${text}":\n${JSON.stringify(demo.output())}`));
      }
    }, 25);
  });
}

describe('npm run demo (the terminal)', function () {
  this.timeout(30_000);
  let demo: SpawnedProcess;
  let child: ChildProcess | undefined;
  let app: string;
  /** Whether 9464 was free as the demo started: the demo then keeps its metrics there, run after run. */
  let metricsPortWasFree = false;

  before(async function () {
    // Five servers and their keys, compiled on the fly: a loaded machine (CI shares its cores) needs a while.
    this.timeout(60_000);
    const port = await freePort();
    app = `http://127.0.0.1:${port}`;
    metricsPortWasFree = await canListen(PREFERRED_DEMO_METRICS_PORT);
    demo = spawnEntryPoint(['--import', 'tsx', 'scripts/demo.ts'], { NODE_ENV: 'development', PORT: String(port) });
    child = demo.child;
    await waitFor(demo, 'Ctrl+C stops them all', 50_000);
  });
  after(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGINT');
      await exitOf(child);
    }
  });

  it('says what to open and who to sign in as', () => {
    const { stdout } = demo.output();
    expect(stdout).to.contain(`Open ${app}/ and choose "Sign in with the demo identity provider"`);
    expect(stdout).to.match(/^ +admin +Ada Admin: Administrator role, application\.manage permission$/m);
    expect(stdout).to.match(/^ +user +Uma User: no roles/m);
    // Whatever the machine has installed: the SAML schema check needs no program of its own.
    expect(stdout).to.contain('Or sign in with "the demo SAML identity provider" (SAML 2.0');
    // The two pages of every OpenID sign-in and sign-out, named as they title themselves.
    expect(stdout).to.contain('It asks "Share your profile?" (Continue)').and.contain('it asks "Sign out?"');
    expect(stdout).to.contain('Social sign-ins carry no roles');
  });

  it('lifts the per-client sign-in limit, and says so: the 31st sign-in started still goes to the provider', async () => {
    expect(demo.output().stdout).to.contain('the demo lifts the limit of 30 sign-ins started per');
    for (let started = 1; started <= 31; started++) {
      const challenge = await fetch(`${app}/External/Challenge?provider=OpenIdConnect&returnUrl=%2F`, {
        redirect: 'manual',
      });
      expect(challenge.status, `sign-in ${started}`).to.equal(302);
    }
  });

  it('prints the Prometheus URL of its metrics listener, where the sign-ins started above are counted', async () => {
    const url = /Metrics in the Prometheus text format: (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(
      demo.output().stdout,
    )?.[1];
    expect(url, demo.output().stdout).to.be.a('string');
    expect(new URL(url ?? '').port).to.not.equal(new URL(app).port);
    if (metricsPortWasFree) expect(new URL(url ?? '').port).to.equal(String(PREFERRED_DEMO_METRICS_PORT));
    const text = await (await fetch(url ?? '')).text();
    const started = text
      .split('\n')
      .find(
        (line) =>
          line.startsWith('gatehouse_authentication_challenges_total{') &&
          line.includes('outcome="redirected"') &&
          line.includes('provider="OpenIdConnect"'),
      )
      ?.split(' ')
      .at(-1);
    expect(Number(started), text).to.be.at.least(31);
  });

  it('names what your own configuration needs to sign in through its providers, and its OpenID provider knows that client', async () => {
    const { stdout } = demo.output();
    const issuer = /The demo identity provider runs at (http:\/\/[^ ]+) /.exec(stdout)?.[1] ?? expect.fail('no issuer');
    expect(stdout).to.contain(`Authority ${issuer}, ClientId your-app,`);
    expect(stdout).to.contain('ClientSecret your-app-demo-secret (registered for http://127.0.0.1:3001)');
    expect(stdout).to.match(
      /MetadataUrl http:\/\/127\.0\.0\.2:\d+\/metadata, EntityId http:\/\/127\.0\.0\.1:3001\/Saml2\/Acs/,
    );
    const authorize = (clientId: string) =>
      fetch(
        `${issuer}/auth?${new URLSearchParams({
          client_id: clientId,
          redirect_uri: 'http://127.0.0.1:3001/signin-oidc',
          response_type: 'code',
          scope: 'openid',
          code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
          code_challenge_method: 'S256',
        })}`,
        { redirect: 'manual' },
      );
    // A registered client and redirect URI go on to the sign-in page; an unknown client gets the error page.
    expect((await authorize('your-app')).status).to.equal(303);
    expect((await authorize('nobody-registered-this')).status).to.equal(400);
  });

  it("names the two organizations' people to type in the e-mail form, each sent to their organization's identity provider, and the one refused", async () => {
    const { stdout } = demo.output();
    expect(stdout).to.contain('"Sign in with your work e-mail"');
    const acme =
      /^ +ada@acme\.test +Ada Lovelace of Acme Corporation, through its SAML identity provider at (http:\/\/127\.0\.0\.3:\d+)$/m.exec(
        stdout,
      )?.[1];
    const globex =
      /^ +grace@globex\.test +Grace Hopper of Globex, through its OpenID provider at (http:\/\/127\.0\.0\.4:\d+)$/m.exec(
        stdout,
      )?.[1];
    expect(acme, stdout).to.be.a('string');
    expect(globex, stdout).to.be.a('string');
    expect(stdout).to.match(/sign in as mallory instead \(mallory@globex\.test,\s+an Acme account/);
    expect(stdout).to.contain('(idp.domain_not_allowed)');

    // What the terminal says holds: each address is sent to the provider printed beside it.
    const jar = new CookieJar();
    const login = await (await jar.fetch(`${app}/Account/Login`)).text();
    const csrf = /name="_csrf" value="([^"]+)"/.exec(login)?.[1] ?? expect.fail('no e-mail form on the login page');
    for (const [email, origin] of [
      ['ada@acme.test', acme],
      ['grace@globex.test', globex],
    ]) {
      const discovered = await jar.fetch(`${app}/External/Discover`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: csrf, email: email ?? '', returnUrl: '/' }),
      });
      expect(discovered.status, email).to.equal(302);
      expect(new URL(discovered.headers.get('location') ?? '').origin, email).to.equal(origin);
    }
  });

  it('signs the browser out of Gatehouse when the user signs out at the demo identity provider (back- and front-channel logout)', async () => {
    const issuer = /The demo identity provider runs at (http:\/\/[^ ]+) /.exec(demo.output().stdout)?.[1];
    expect(demo.output().stdout).to.contain(`Signing out at the demo identity provider itself (${issuer}/session/end)`);
    const jar = new CookieJar();
    const challenge = await jar.fetch(`${app}/External/Challenge?provider=OpenIdConnect&returnUrl=%2F`);
    const callback = await driveOidcLogin(challenge.headers.get('location') ?? '', 'user', jar);
    expect((await jar.fetch(callback)).status).to.equal(302);
    const info = () => jar.fetch(`${app}/api/app-info`, { headers: { accept: 'application/json' } });
    expect((await info()).status).to.equal(200);

    const frames = await frontchannelFramesAtSignOut(jar, issuer ?? expect.fail('no issuer printed'));

    // The provider called the back channel before answering; its page frames the front channel.
    expect((await info()).status).to.equal(401);
    await waitFor(demo, 'POST /backchannel-logout-oidc 200');
    expect(frames.map((frame) => `${frame.origin}${frame.pathname}`)).to.deep.equal([
      `${app}/frontchannel-logout-oidc`,
    ]);
    expect(frames[0]?.searchParams.get('iss')).to.equal(issuer);
    expect((await fetch(frames[0] ?? '')).status).to.equal(200);
    await waitFor(demo, 'GET /frontchannel-logout-oidc');
  });

  it('lists requests one short line each through a whole sign-in and sign-out, without the provider’s development warnings', async () => {
    const jar = new CookieJar();
    const challenge = await jar.fetch(`${app}/External/Challenge?provider=OpenIdConnect&returnUrl=%2F`);
    const callback = await driveOidcLogin(challenge.headers.get('location') ?? '', 'admin', jar);
    expect((await jar.fetch(callback)).status).to.equal(302);
    const start = await (await jar.fetch(`${app}/`)).text();
    const csrf = /name="_csrf" value="([^"]+)"/.exec(start)?.[1] ?? expect.fail('no logout form on the start page');
    const logout = await jar.fetch(`${app}/Account/Logout`, {
      method: 'POST',
      headers: { origin: app, 'content-type': 'application/x-www-form-urlencoded' },
      body: `_csrf=${encodeURIComponent(csrf)}`,
    });
    const confirmation = await jar.fetch(logout.headers.get('location') ?? '');
    expect(await confirmation.text()).to.contain('Yes, sign me out');
    await waitFor(demo, 'POST /Account/Logout 302');

    child?.kill('SIGINT');
    expect(await exitOf(child ?? expect.fail('no demo process'))).to.equal(0);
    const { stdout, stderr } = demo.output();
    const requestLines = stdout.split('\n').filter((line) => /INFO: (GET|POST) \//.test(line));
    expect(
      requestLines.map((line) => line.replace(/^\[\d\d:\d\d:\d\d\] /, '').replace(/ [\d.]+ ms$/, '')),
    ).to.include.members([
      'INFO: GET /External/Challenge?provider=OpenIdConnect&returnUrl=%2F 302',
      'INFO: GET / 200',
      'INFO: POST /Account/Logout 302',
    ]);
    expect(stdout, 'no JSON log lines').not.to.match(/^\{"level"/m);
    // oidc-provider's runtime check (it asks for Node 22 on Node 20) happens at import and
    // has no option; everything it prints about its development-only parts does.
    const providerLines = `${stdout}\n${stderr}`.split('\n').filter((line) => line.includes('oidc-provider'));
    expect(providerLines.filter((line) => !line.includes('Unsupported runtime'))).to.deep.equal([]);
  });

  it('says a configuration error once, as text, and exits 1 without a stack trace', async function () {
    this.timeout(60_000);
    const failing = spawnEntryPoint(['--import', 'tsx', 'scripts/demo.ts'], {
      NODE_ENV: 'development',
      PORT: String(await freePort()),
      ProjectTemplate__Session__IdleTimeout: '1',
    });
    expect(await exitOf(failing.child)).to.equal(1);
    const { stdout, stderr } = failing.output();
    const said = `${stdout}\n${stderr}`.split('\n').filter((line) => line.includes('IdleTimeout must be at least 60'));
    expect(said).to.deep.equal(['  error: ProjectTemplate:Session:IdleTimeout must be at least 60 seconds']);
    expect(stderr)
      .to.contain('Gatehouse cannot start: 1 configuration error(s)')
      .and.not.match(/^\s+at /m);
  });
});
