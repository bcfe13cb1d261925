/**
 * `npm run demo` is a newcomer's first minute: its terminal says what to open and who to
 * sign in as, lists requests one short line each, and carries none of the demo
 * provider's development-only warnings. Run as a process, through a whole sign-in and
 * sign-out, so every page of the provider that used to print one is reached. Initech's
 * setup link is followed as its IT admin would, with the values the terminal prints and the
 * command the portal's domains step shows, to a person signed in; the administration API's
 * commands it prints are run as printed (curl read as a shell would).
 */
import { expect } from 'chai';
import type { ChildProcess } from 'node:child_process';
import { CookieJar, driveOidcLogin } from '../support/drive-oidc-login.js';
import { frontchannelFramesAtSignOut } from '../support/oidc-provider-logout.js';
import { canListen, freePort } from '../../scripts/free-port.js';
import { PREFERRED_DEMO_METRICS_PORT } from '../../scripts/your-app-port.js';
import { curlRequest } from '../support/printed-curl.js';
import { answerAtDemoSamlIdentityProvider } from '../support/demo-saml-answer.js';
import { exitOf, spawnEntryPoint, type SpawnedProcess } from '../support/run-main.js';

/** The shell command the terminal prints on the lines after the one ending with `label`, continuation lines joined. */
function printedCommand(stdout: string, label: string): string {
  const lines = stdout.split('\n');
  let index = lines.findIndex((line) => line.trimEnd().endsWith(label));
  if (index < 0) expect.fail(`the demo printed no "${label}":\n${stdout}`);
  const command: string[] = [];
  do command.push(lines[++index] ?? '');
  while (command.at(-1)?.endsWith('\\'));
  return command.join('\n').trim();
}

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
  /** Whether Initech's IT admin saved its connection through the portal (the test of the setup link). */
  let initechSaved = false;

  /** Types `email` in the login page's "Sign in with your work e-mail" form: the answer of /External/Discover. */
  async function discover(jar: CookieJar, email: string): Promise<Response> {
    const login = await (await jar.fetch(`${app}/Account/Login`)).text();
    const csrf = /name="_csrf" value="([^"]+)"/.exec(login)?.[1] ?? expect.fail('no e-mail form on the login page');
    return jar.fetch(`${app}/External/Discover`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, email, returnUrl: '/' }),
    });
  }

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
    for (const [email, origin] of [
      ['ada@acme.test', acme],
      ['grace@globex.test', globex],
    ]) {
      const discovered = await discover(new CookieJar(), email ?? '');
      expect(discovered.status, email).to.equal(302);
      expect(new URL(discovered.headers.get('location') ?? '').origin, email).to.equal(origin);
    }
  });

  it("prints Initech's setup link: its IT admin, from the link and the values printed, publishes the TXT record with the command the page shows, tests, activates, and Initech's person signs in", async () => {
    const { stdout } = demo.output();
    const link = /^ +(http:\/\/127\.0\.0\.1:\d+\/setup\/link\/[A-Za-z0-9_-]{43})$/m.exec(stdout)?.[1];
    expect(link, stdout).to.be.a('string');
    const printed = (label: string) =>
      new RegExp(`^ +${label.replace(/[()]/g, '\\$&')} +(\\S+)$`, 'm').exec(stdout)?.[1] ??
      expect.fail(`no ${label}:\n${stdout}`);
    const initech = /Initech's\s+OpenID provider runs at (http:\/\/127\.0\.0\.5:\d+),/.exec(stdout)?.[1];
    expect(printed('Issuer (Authority)')).to.equal(initech);
    // Not connected yet: peter's domain routes nobody.
    expect((await discover(new CookieJar(), 'peter@initech.test')).status).to.equal(404);

    // The link's page, then its button: a portal session of Initech's.
    const admin = new CookieJar();
    const page = await admin.fetch(link ?? '');
    expect(page.status).to.equal(200);
    expect(await page.text()).to.contain('Set up single sign-on for initech');
    const opened = await admin.fetch(link ?? '', { method: 'POST', headers: { origin: app } });
    expect(opened.status).to.equal(303);
    expect(opened.headers.get('location')).to.equal('/setup/portal');
    const overview = await admin.fetch(`${app}/setup/portal`);
    expect(overview.status).to.equal(200);
    const csrf =
      /name="_csrf" value="([^"]+)"/.exec(await overview.text())?.[1] ?? expect.fail('no form on the overview');
    const submit = (path: string, form: Record<string, string>) =>
      admin.fetch(`${app}${path}`, {
        method: 'POST',
        headers: { origin: app, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: csrf, ...form }),
      });

    // "Another OpenID Connect provider", then what Initech's provider gives, as printed.
    expect(
      (await submit('/setup/portal/provider', { vendor: 'other-oidc', protocol: 'OpenIdConnect' })).status,
    ).to.equal(303);
    const saved = await submit('/setup/portal/identity-provider', {
      Protocol: 'OpenIdConnect',
      Authority: printed('Issuer (Authority)'),
      ClientId: printed('Client ID'),
      ClientSecret: printed('Client secret'),
      Domain: printed('E-mail domain'),
    });
    expect(saved.status, await saved.clone().text()).to.equal(303);
    initechSaved = true;

    // Your domains: the command the page shows publishes the record on the demo's DNS server.
    const domains = await (await admin.fetch(`${app}/setup/portal/domains`)).text();
    const shown = /class="portal-command"><code[^>]*>([^<]+)<\/code>/.exec(domains)?.[1] ?? expect.fail(domains);
    const command = shown.replaceAll('&#39;', "'").replaceAll('&quot;', '"').replaceAll('&amp;', '&');
    expect(command).to.contain('name=_gatehouse-challenge.initech.test');
    const published = curlRequest(command);
    expect((await fetch(published.url, published.init)).status).to.equal(201);
    const verified = await submit('/setup/portal/domains/verify', { domain: 'initech.test' });
    expect(await verified.text()).to.contain('initech.test is verified');

    // The test sign-in as peter, through Initech's provider: passed; then activation.
    const started = await submit('/setup/portal/test', {});
    expect(started.status).to.equal(303);
    // driveOidcLogin's type names the deployment's two logins; it types any login into the form.
    const back = await driveOidcLogin(started.headers.get('location') ?? '', 'peter' as 'user', admin);
    expect((await admin.fetch(back)).headers.get('location')).to.equal('/setup/portal/test/result');
    expect(await (await admin.fetch(`${app}/setup/portal/test/result`)).text()).to.contain('Passed');
    const activated = await submit('/setup/portal/activate', {});
    expect(activated.status).to.equal(303);

    // Peter, typed in "Sign in with your work e-mail": sent to Initech's provider, signed in to Initech.
    const person = new CookieJar();
    const discovered = await discover(person, 'peter@initech.test');
    expect(discovered.status).to.equal(302);
    const location = discovered.headers.get('location') ?? '';
    expect(new URL(location).origin).to.equal(initech);
    const callback = await driveOidcLogin(location, 'peter' as 'user', person);
    expect((await person.fetch(callback)).status).to.equal(302);
    const info = await person.fetch(`${app}/api/organizations/initech/app-info`, {
      headers: { accept: 'application/json' },
    });
    expect(info.status).to.equal(200);
  });

  it("shows directory sync: Acme's people on its page for Ada, signed in through Acme; the printed deactivation signs her out and refuses her sign-in, the reactivation lets her in", async () => {
    const { stdout } = demo.output();
    expect(stdout).to.match(/Acme's directory pushed its\s+3 people and 2 groups at start/);
    /** Ada through Acme's SAML identity provider, as "Sign in with your work e-mail" sends her: the ACS's answer. */
    const signInAsAda = async (jar: CookieJar) => {
      const discovered = await discover(jar, 'ada@acme.test');
      expect(discovered.status).to.equal(302);
      // The demo SAML provider's type names the deployment's two logins; it signs in any login of its users.
      const { form } = await answerAtDemoSamlIdentityProvider(
        discovered.headers.get('location') ?? '',
        'ada' as 'user',
      );
      return jar.fetch(`${app}/connections/acme/saml2/acs`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form),
      });
    };
    const ada = new CookieJar();
    expect((await signInAsAda(ada)).status).to.equal(302);
    const people = await ada.fetch(`${app}/Organizations/acme/People`);
    expect(people.status).to.equal(200);
    const listed = await people.text();
    for (const name of ['Ada Lovelace', 'Charles Babbage', 'Mary Somerville', 'acme-admins', 'Engineering']) {
      expect(listed, name).to.contain(name);
    }

    const deactivate = curlRequest(printedCommand(stdout, "Then deactivate Ada in Acme's directory:"));
    expect((await fetch(deactivate.url, deactivate.init)).status).to.equal(200);
    expect((await ada.fetch(`${app}/Organizations/acme/People`)).status, 'signed out').to.equal(302);
    const refused = await signInAsAda(new CookieJar());
    expect(refused.status).to.equal(403);
    expect(await refused.text()).to.contain('idp.user_deprovisioned');

    const reactivate = curlRequest(printedCommand(stdout, 'until her directory makes her active again:'));
    expect((await fetch(reactivate.url, reactivate.init)).status).to.equal(200);
    expect((await signInAsAda(new CookieJar())).status).to.equal(302);
  });

  it("prints an API key and three curl commands: as printed, one makes another setup link for Initech (201), one adds Initech's connection, the last lists the connections, Initech's among them; without the key the API refuses (401)", async () => {
    const { stdout } = demo.output();
    const apiKey = /Its API key, made for this run: (gh_[A-Za-z0-9_-]+)$/m.exec(stdout)?.[1] ?? expect.fail(stdout);
    const another = curlRequest(printedCommand(stdout, 'when this one is spent (the answer\'s "url"):'));
    expect(another.url).to.equal(`${app}/api/admin/organizations/initech/setup-links`);
    expect(new Headers(another.init.headers).get('authorization')).to.equal(`Bearer ${apiKey}`);
    const made = await fetch(another.url, another.init);
    expect(made.status).to.equal(201);
    const { url } = (await made.json()) as { url: string };
    expect((await fetch(url)).status, "the new link's page").to.equal(200);

    const add = curlRequest(printedCommand(stdout, 'waits for its TXT record all the same):'));
    expect(add.url).to.equal(`${app}/api/admin/connections/Initech`);
    expect(add.init.method).to.equal('PUT');
    const added = await fetch(add.url, add.init);
    // Created, or replaced with the same keys when the portal's test above saved it first.
    expect(added.status, await added.clone().text()).to.equal(initechSaved ? 200 : 201);
    const addedView = (await added.json()) as {
      keys: { Organization: string };
      secretsSet: string[];
      domains: Array<{ domain: string; verified: boolean }>;
    };
    expect(addedView.keys.Organization).to.equal('initech');
    expect(addedView.secretsSet).to.deep.equal(['ClientSecret']);
    // Verified already when the portal's test above proved it; else waiting for its TXT record.
    expect(addedView.domains).to.have.length(1);
    expect(addedView.domains[0]).to.include({ domain: 'initech.test', verified: initechSaved });
    initechSaved = true;

    const list = curlRequest(printedCommand(stdout, "The connections, Initech's once saved:"));
    const listed = await fetch(list.url, list.init);
    expect(listed.status).to.equal(200);
    const names = ((await listed.json()) as { connections: Array<{ name: string }> }).connections.map((c) => c.name);
    expect(names).to.include.members(['Acme', 'Globex', ...(initechSaved ? ['Initech'] : [])]);

    const withoutKey = new Headers(list.init.headers);
    withoutKey.delete('authorization');
    const refused = await fetch(list.url, { ...list.init, headers: withoutKey });
    expect(refused.status).to.equal(401);
    expect(((await refused.json()) as { code: string }).code).to.equal('auth.unauthenticated');
  });

  it("lets the demo's admin, signed in, call the administration API too, and not a plain user (403)", async () => {
    const listed = async (login: 'admin' | 'user') => {
      const jar = new CookieJar();
      const challenge = await jar.fetch(`${app}/External/Challenge?provider=OpenIdConnect&returnUrl=%2F`);
      expect(
        (await jar.fetch(await driveOidcLogin(challenge.headers.get('location') ?? '', login, jar))).status,
      ).to.equal(302);
      return jar.fetch(`${app}/api/admin/connections`, { headers: { accept: 'application/json' } });
    };
    const admin = await listed('admin');
    expect(admin.status).to.equal(200);
    const names = ((await admin.json()) as { connections: Array<{ name: string }> }).connections.map((c) => c.name);
    expect(names).to.include.members(['Acme', 'Globex']);
    expect((await listed('user')).status).to.equal(403);
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
    // Node 22's word on loading node:sqlite (the embedded directory store) is the entry point's to drop, here too.
    expect(`${stdout}\n${stderr}`).not.to.contain('ExperimentalWarning');
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
