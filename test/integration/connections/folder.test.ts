import { expect } from 'chai';
import { startDemoIdentityProvider, type DemoIdentityProvider } from '../../../scripts/demo-identity-provider.js';
import {
  auditEvents,
  challenge,
  CONNECTION_SP_ENTITY_ID,
  discover,
  eventually,
  oidcConnection,
  samlChallenge,
  samlConnection,
  startWithConnections,
} from '../../support/connection-app.js';
import { ConnectionFolder, readiness } from '../../support/connection-folder.js';
import { deliverAnswer } from '../../support/deliver-answer.js';
import { driveOidcLogin } from '../../support/drive-oidc-login.js';
import { freePort, TestBrowser } from '../../support/oidc-app.js';
import { SamlTestIdentityProvider } from '../../support/saml-identity-provider.js';
import type { RunningGatehouse } from '../../support/start-gatehouse.js';

const SECRET = 'SENTINEL-folder-client-secret-0d94';
const SECRET_IN_BROKEN_FILE = 'SENTINEL-folder-broken-file-secret-71ce';
/** Documented: a file written, changed or deleted takes effect within 5 s (the folder is looked at every 2 s). */
const WITHIN_MS = 5_000;

/**
 * Connections from a watched folder, against a running instance: Globex (OpenID Connect,
 * its client secret in a file beside it, as a mounted Secret) and Acme (SAML2). Each change
 * is waited for by asking the app, never by sleeping.
 */
describe('connections: a folder of connections, changed while the instance runs', function () {
  this.timeout(30_000);
  let app: RunningGatehouse;
  let folder: ConnectionFolder;
  let globexIdp: DemoIdentityProvider;
  let acmeIdp: SamlTestIdentityProvider;
  let globex: Record<string, unknown>;

  before(async () => {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    folder = await ConnectionFolder.create();
    [globexIdp, acmeIdp] = await Promise.all([
      startDemoIdentityProvider({
        clients: [
          {
            clientId: 'globex-client',
            clientSecret: SECRET,
            redirectUris: [`${origin}/connections/globex/signin-oidc`],
            postLogoutRedirectUris: [`${origin}/`],
          },
        ],
      }),
      SamlTestIdentityProvider.start(),
    ]);
    globex = oidcConnection('globex', ['example.test'], globexIdp.issuer, {
      clientId: 'globex-client',
      clientSecret: '',
    });
    delete globex.ClientSecret;
    globex.ClientSecretFile = 'secrets/globex.client-secret';
    await folder.writeText('secrets/globex.client-secret', `${SECRET}\n`);
    await folder.write('acme', samlConnection('acme', ['example.com'], acmeIdp));
    app = await startWithConnections(
      port,
      {},
      {
        ProjectTemplate__Authentication__ConnectionsDirectory: folder.path,
        // This suite polls discovery while the folder changes, and every lookup counts against
        // the client's sign-in attempts: the per-client limit is another suite's subject.
        ProjectTemplate__Session__PendingSignInsPerClient: '1000',
      },
    );
  });
  after(async () => {
    await app?.close();
    await Promise.all([globexIdp?.close(), acmeIdp?.close(), folder?.dispose()]);
  });

  const status = async (browser: TestBrowser, path = '/api/app-info') => {
    const response = await browser.get(`${app.url}${path}`, { accept: 'application/json' });
    await response.body?.cancel();
    return response.status;
  };
  const discovers = async (email: string) => (await discover(new TestBrowser(), app.url, email)).status === 302;
  const signInAtGlobex = async (browser: TestBrowser) => {
    const callback = await driveOidcLogin(await challenge(browser, app.url, 'Globex'), 'admin', browser.jar);
    return browser.get(callback.href);
  };
  const signInAtAcme = async (browser: TestBrowser) => {
    const request = await samlChallenge(browser, app.url, 'Acme');
    const form = acmeIdp.answer(request, CONNECTION_SP_ENTITY_ID);
    return deliverAnswer(browser, { method: 'POST', url: request.acsUrl, form }, app.url);
  };

  it('starts with the files present, and no identity provider contacted for them', async () => {
    expect(await readiness(app.url)).to.deep.equal({ status: 200, connections: { acme: 'idle' } });
    expect(acmeIdp.metadataRequests).to.equal(0);
    expect(await discovers('ada@example.com')).to.equal(true);
  });

  it('uses a file added within 5 s, its client secret read from the file it names', async () => {
    const started = performance.now();
    await folder.write('globex', globex);
    await eventually('Globex discovered', () => discovers('ada@example.test'), WITHIN_MS);
    expect(performance.now() - started).to.be.below(WITHIN_MS);
    const browser = new TestBrowser();
    expect((await signInAtGlobex(browser)).status, 'the provider took the secret from the file').to.equal(302);
    expect(await status(browser, '/api/organizations/globex/app-info')).to.equal(200);
    expect(auditEvents(app.logs, 'signin.succeeded').at(-1)).to.include({ connection: 'globex' });
  });

  it('applies a changed file, and the signed-in stay signed in', async () => {
    const browser = new TestBrowser();
    expect((await signInAtGlobex(browser)).status).to.equal(302);
    await folder.write('globex', { ...globex, DisplayName: 'Globex Corporation', ShowOnLoginPage: true });
    await eventually(
      'the changed DisplayName on the login page',
      async () => (await (await fetch(`${app.url}/Account/Login`)).text()).includes('Sign in with Globex Corporation'),
      WITHIN_MS,
    );
    expect(await status(browser)).to.equal(200);
    expect((await signInAtGlobex(new TestBrowser())).status, 'signs in with the new version').to.equal(302);
  });

  it("refuses a connection file that grants itself the deployment's roles (only the configuration can), keeping the version in force", async () => {
    const browser = new TestBrowser();
    expect((await signInAtGlobex(browser)).status).to.equal(302);
    await folder.write('globex', { ...globex, GrantsDeploymentRoles: true, DisplayName: 'Hostile' });
    const key = `${folder.fileOf('globex')}:GrantsDeploymentRoles`;
    await eventually('the refusal logged', async () => app.logs.some((line) => line.includes(key)), WITHIN_MS);
    // The version in force never grants them: the administrator's roles from Globex's provider open nothing of the deployment's.
    const administrator = new TestBrowser();
    expect((await signInAtGlobex(administrator)).status).to.equal(302);
    expect(await status(administrator, '/api/app-info/admin')).to.equal(403);
    expect(await status(browser)).to.equal(200);
    await folder.write('globex', globex);
  });

  it('refuses an invalid change, naming the file and the key, and keeps the previous version working', async () => {
    const browser = new TestBrowser();
    expect((await signInAtGlobex(browser)).status).to.equal(302);
    const before = (await readiness(app.url)).connections.globex;
    await folder.write('globex', { ...globex, Domains: ['gmail.com'], DisplayName: 'Refused' });
    const key = `${folder.fileOf('globex')}:Domains:0`;
    await eventually('the refusal logged', async () => app.logs.some((line) => line.includes(key)), WITHIN_MS);
    const ready = await readiness(app.url);
    expect(ready.status).to.equal(200);
    expect(ready.connections.globex, 'readiness tells the version in force, not refused').to.equal(before);
    expect(await discovers('ada@example.test')).to.equal(true);
    expect(await discovers('someone@gmail.com')).to.equal(false);
    expect(await status(browser)).to.equal(200);
    expect((await signInAtGlobex(new TestBrowser())).status).to.equal(302);
    await folder.write('globex', { ...globex, DisplayName: 'Globex Corporation', ShowOnLoginPage: true });
  });

  it('refuses a file that is not JSON yet without quoting it, keeping the previous version', async () => {
    await folder.writeText(
      'globex.json',
      `{ "Protocol": "OpenIdConnect", "ClientSecret": "${SECRET_IN_BROKEN_FILE}", `,
    );
    const line = `${folder.fileOf('globex')} is not valid JSON`;
    await eventually('the refusal logged', async () => app.logs.some((l) => l.includes(line)), WITHIN_MS);
    expect(await discovers('ada@example.test')).to.equal(true);
    expect(app.logs.join('\n')).not.to.contain(SECRET_IN_BROKEN_FILE);
    await folder.write('globex', { ...globex, DisplayName: 'Globex Corporation', ShowOnLoginPage: true });
  });

  it('lists a new file refused with no earlier version as refused, and the instance stays ready', async () => {
    await folder.write(
      'initech',
      oidcConnection('', ['initech.test'], 'https://login.initech.test', { clientId: 'c', clientSecret: 's' }),
    );
    await eventually(
      'initech refused',
      async () => (await readiness(app.url)).connections.initech === 'refused',
      WITHIN_MS,
    );
    expect((await readiness(app.url)).status).to.equal(200);
    expect(app.logs.some((line) => line.includes(`${folder.fileOf('initech')}:Organization`))).to.equal(true);
    expect(await discovers('someone@initech.test')).to.equal(false);
    await folder.remove('initech');
    await eventually(
      'initech forgotten',
      async () => !('initech' in (await readiness(app.url)).connections),
      WITHIN_MS,
    );
  });

  it("ends the removed connection's sessions (anonymous at the next request, audited connection_removed) and nobody else's", async () => {
    const acmeUser = new TestBrowser();
    expect((await signInAtAcme(acmeUser)).status).to.equal(302);
    const globexUser = new TestBrowser();
    expect((await signInAtGlobex(globexUser)).status).to.equal(302);
    // A sign-in through Acme in progress when it goes.
    const pending = new TestBrowser();
    const request = await samlChallenge(pending, app.url, 'Acme');
    const answer = acmeIdp.answer(request, CONNECTION_SP_ENTITY_ID);
    expect(await status(acmeUser)).to.equal(200);

    await folder.remove('acme');
    await eventually(
      'acme gone from readiness',
      async () => !('acme' in (await readiness(app.url)).connections),
      WITHIN_MS,
    );

    expect(await status(acmeUser), "the removed connection's user, at the next request").to.equal(401);
    expect(await status(globexUser), "another connection's user").to.equal(200);
    await eventually(
      'sessions.ended audited',
      async () => auditEvents(app.logs, 'sessions.ended').some((event) => event.cause === 'connection_removed'),
      WITHIN_MS,
    );
    const ended = auditEvents(app.logs, 'sessions.ended').filter((event) => event.cause === 'connection_removed');
    expect(ended).to.have.length(1);
    expect(ended[0]).to.include({ provider: 'acme', by: 'system' });
    expect(ended[0]?.count).to.be.at.least(1);
    const signouts = auditEvents(app.logs, 'signout').filter((event) => event.cause === 'connection_removed');
    expect(signouts.map((event) => event.provider)).to.deep.equal(Array(signouts.length).fill('acme'));
    expect(signouts.map((event) => event.subject)).to.include('admin@example.com');
    expect(await discovers('ada@example.com')).to.equal(false);
    const late = await deliverAnswer(pending, { method: 'POST', url: request.acsUrl, form: answer }, app.url);
    expect(late.status, 'the pending sign-in fails cleanly').to.equal(404);
    expect(await late.text()).to.contain('idp.connection_unknown');
    expect(pending.sessionToken(app.url)).to.equal(undefined);
  });

  it('never shows the client secret: not in the log, the login page, readiness or an error page', async () => {
    const pages = await Promise.all(
      [
        '/Account/Login',
        '/health/ready',
        '/health',
        '/connections/globex/signin-oidc?state=x&code=y',
        '/connections/nobody/x',
      ].map(async (path) => (await fetch(`${app.url}${path}`, { headers: { accept: 'text/html' } })).text()),
    );
    for (const text of [...pages, app.logs.join('\n')]) expect(text).not.to.contain(SECRET);
  });
});
