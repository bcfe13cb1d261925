import { expect } from 'chai';
import { signingKey, type DemoIdentityProvider } from '../../../scripts/demo-identity-provider.js';
import { claimsOf, signLogoutToken } from '../../support/logout-tokens.js';
import {
  freePort,
  startIdentityProvider,
  startOidcApp,
  storedTokens,
  TestBrowser,
  type OidcApp,
} from '../../support/oidc-app.js';

const PATH = '/backchannel-logout-oidc';
const MAX_SESSIONS = 10;
const MAX_REPLAY_RECORDS = 4;

/**
 * The memory store keeps replay records (a logout token's `jti` here; SAML assertion and
 * LogoutRequest IDs alike) and the provider sessions a provider's logout ended apart from
 * the sessions, under `MaxReplayRecords`: no number of sign-ins evicts one before it
 * expires, and when that store is full a message that needs a new record is refused (503)
 * rather than accepted with a record forgotten early.
 */
describe('replay records in memory: a bound of their own, never evicted by sign-ins (real oidc-provider)', function () {
  this.timeout(30_000);
  const providerKey = signingKey();
  let idp: DemoIdentityProvider;
  let app: OidcApp;

  beforeEach(async () => {
    const port = await freePort();
    idp = await startIdentityProvider([`http://127.0.0.1:${port}`], providerKey);
    app = await startOidcApp(idp.issuer, port, {
      ProjectTemplate__Session__MaxSessions: String(MAX_SESSIONS),
      ProjectTemplate__Session__MaxReplayRecords: String(MAX_REPLAY_RECORDS),
    });
  });
  afterEach(async () => {
    await app.close();
    await idp.close();
  });

  const logoutToken = (claims: Record<string, unknown>) =>
    signLogoutToken(providerKey, { issuer: idp.issuer, audience: 'gatehouse-test', claims });
  const post = (token: string) =>
    fetch(`${app.url}${PATH}`, { method: 'POST', body: new URLSearchParams({ logout_token: token }) });
  const statusOf = async (browser: TestBrowser) =>
    (await browser.get(`${app.url}/api/app-info`, { accept: 'application/json' })).status;
  async function signedIn(login: 'admin' | 'user' = 'admin'): Promise<TestBrowser> {
    const browser = new TestBrowser();
    await browser.signIn(app.url, login);
    expect(await statusOf(browser)).to.equal(200);
    return browser;
  }
  /** Sign-ins enough to turn the signed-in store over: its first session is evicted. */
  async function fillSessionStore(): Promise<void> {
    const first = await signedIn('user');
    for (let n = 0; n < MAX_SESSIONS; n++) await signedIn('user');
    expect(await statusOf(first), 'the signed-in store turned over').to.equal(401);
  }

  it('refuses a used logout token, and a late sign-in of a provider session it ended, after the sessions store turned over', async () => {
    const used = await logoutToken({ sub: 'nobody' });
    expect((await post(used)).status).to.equal(200);
    // A provider session ended while its sign-in is on its way back from the provider.
    const browser = await signedIn();
    const sid = claimsOf((await storedTokens(app, browser))?.tokens.idToken ?? '').sid;
    const late = await browser.startSignIn(app.url, 'admin');
    expect((await post(await logoutToken({ sid, sub: 'admin' }))).status).to.equal(200);

    await fillSessionStore();

    const replayed = await post(used);
    expect(replayed.status, 'the used token is still used').to.equal(400);
    expect(await replayed.json()).to.include({ code: 'idp.logout_token_replayed' });
    const answer = await browser.get(late.href);
    expect(answer.status, 'the ended provider session is still ended').to.equal(400);
    expect(await answer.text()).to.contain('idp.session_ended');
    expect(await statusOf(browser)).to.equal(401);
  });

  it('with every replay record in use, refuses a new logout token with 503, changing nothing, and logs the episode once', async () => {
    const admin = await signedIn();
    for (let n = 0; n < MAX_REPLAY_RECORDS; n++)
      expect((await post(await logoutToken({ sub: 'nobody' }))).status, `token ${n + 1}`).to.equal(200);
    const from = app.logs.length;

    const refusals: Response[] = [];
    for (let n = 0; n < 3; n++) refusals.push(await post(await logoutToken({ sub: 'admin' })));
    for (const refused of refusals) {
      expect(refused.status).to.equal(503);
      expect(await refused.json()).to.include({ code: 'session.store_full' });
      // Until the soonest record expires: a logout token lives two minutes, plus a minute of clock skew.
      expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 180);
    }
    expect(await statusOf(admin), 'the session the refused token named goes on').to.equal(200);

    const lines = app.logs.slice(from).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(
      lines.filter((line) => line.audit === true && line.event !== 'access.denied'),
      'no session ended',
    ).to.deep.equal([]);
    const warnings = lines.filter((line) => line.setting === 'ProjectTemplate:Session:MaxReplayRecords');
    expect(warnings, 'one line for the episode').to.have.length(1);
    expect(warnings[0]).to.include({ level: 40, max: MAX_REPLAY_RECORDS });
    expect(
      lines.filter((line) => line.msg === 'request failed'),
      'no error line per refused request',
    ).to.deep.equal([]);
  });
});
