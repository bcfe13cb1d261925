import { expect } from 'chai';
import type { DemoIdentityProvider } from '../../../scripts/demo-identity-provider.js';
import {
  CLIENT_SECRET,
  freePort,
  startIdentityProvider,
  startOidcApp,
  storedSession,
  storedTokens,
  TestBrowser,
  type OidcApp,
} from '../../support/oidc-app.js';

/** The fields an audit line may carry, and nothing else. */
const ALLOWED = new Set([
  'level',
  'time',
  'audit',
  'event',
  'at',
  'reqId',
  'client',
  'provider',
  'subject',
  'subjectSha256',
  'session',
  'code',
  'by',
  'count',
  'cause',
  'policies',
  'msg',
]);

describe('the audit trail through the app (real oidc-provider)', function () {
  this.timeout(20_000);
  let idp: DemoIdentityProvider;
  let app: OidcApp;

  before(async () => {
    const port = await freePort();
    idp = await startIdentityProvider([`http://127.0.0.1:${port}`]);
    app = await startOidcApp(idp.issuer, port);
  });
  after(async () => {
    await app.close();
    await idp.close();
  });

  const auditLines = (from: number) =>
    app.logs
      .slice(from)
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.audit === true);

  it('records a sign-in, a denied access and a sign-out, each with its request, and only allow-listed fields', async () => {
    const from = app.logs.length;
    const browser = new TestBrowser();
    const callback = await browser.startSignIn(app.url, 'user', '/api/app-info');
    await browser.get(callback.href);
    const session = await storedSession(app, browser);
    const tokens = await storedTokens(app, browser);
    expect((await browser.get(`${app.url}/api/app-info/admin`, { accept: 'application/json' })).status).to.equal(403);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await (await browser.get(`${app.url}/`)).text())?.[1] ?? '';
    await browser.post(`${app.url}/Account/Logout`, { _csrf: csrf }, { origin: app.url });

    const lines = auditLines(from);
    expect(lines.map((line) => line.event)).to.deep.equal(['signin.succeeded', 'access.denied', 'signout']);
    const [signedIn, denied, signedOut] = lines;
    expect(signedIn).to.include({
      provider: 'OpenIdConnect',
      subject: 'user',
      session: session?.publicId,
      client: '127.0.0.1',
    });
    expect(denied).to.include({ subject: 'user' });
    expect(denied?.policies).to.deep.equal(['application.Role.Administrator']);
    expect(signedOut).to.include({
      by: 'user',
      provider: 'OpenIdConnect',
      subject: 'user',
      session: session?.publicId,
    });
    for (const line of lines) {
      expect(
        Object.keys(line).filter((name) => !ALLOWED.has(name)),
        String(line.event),
      ).to.deep.equal([]);
      expect(line.reqId).to.be.a('string').that.is.not.empty;
      expect(Date.parse(String(line.at))).to.be.closeTo(Date.now(), 60_000);
    }
    // Nothing secret: the client secret, the code and state of the answer, the tokens, the cookie.
    const text = JSON.stringify(lines);
    const secrets = [
      CLIENT_SECRET,
      callback.searchParams.get('code') ?? 'code',
      callback.searchParams.get('state') ?? 'state',
      tokens?.tokens.accessToken ?? 'access',
      tokens?.tokens.idToken ?? 'id',
      browser.sessionToken(app.url) ?? 'cookie',
    ];
    for (const secret of secrets) expect(text).not.to.contain(secret);
  });

  it('records a refused answer as signin.failed with its code', async () => {
    const from = app.logs.length;
    const callback = await new TestBrowser().startSignIn(app.url, 'user');
    await new TestBrowser().get(callback.href); // another browser: no flow of its own
    const lines = auditLines(from);
    expect(lines).to.have.length(1);
    expect(lines[0]).to.include({ event: 'signin.failed', provider: 'OpenIdConnect', code: 'idp.flow_missing' });
    expect(JSON.stringify(lines)).not.to.contain(callback.searchParams.get('code') ?? 'code');
  });
});
