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
import { freePort } from '../../scripts/free-port.js';
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

  before(async () => {
    const port = await freePort();
    app = `http://127.0.0.1:${port}`;
    demo = spawnEntryPoint(['--import', 'tsx', 'scripts/demo.ts'], { NODE_ENV: 'development', PORT: String(port) });
    child = demo.child;
    await waitFor(demo, 'Ctrl+C stops them all');
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
});
