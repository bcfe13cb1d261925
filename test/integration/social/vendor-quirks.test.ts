/**
 * What each vendor does its own way, through the running app against its vendor-shaped
 * server: GitHub's token errors with HTTP 200, form-encoded token responses, User-Agent and
 * verified emails; Microsoft's error diagnostics; Amazon's lower-case token type; and the
 * vendor token kept server-side only when SaveTokens asks for it.
 */
import { expect } from 'chai';
import type { DemoLogin } from '../../../scripts/demo-users.js';
import { sessionStoreKey } from '../../../src/adapters/koa/session/session-token.js';
import { CookieJar } from '../../support/drive-oidc-login.js';
import {
  amazonHarness,
  CLIENT_ID,
  githubHarness,
  microsoftHarness,
  type SocialHarnessRun,
} from '../../support/social-harness.js';

const GUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

async function signIn(run: SocialHarnessRun, login: DemoLogin = 'admin', rewrite?: (answer: URL) => void) {
  const jar = new CookieJar();
  const challenge = await jar.fetch(`${run.app.url}/External/Challenge?provider=${run.scheme}`);
  const answer = new URL((await run.answerAs(challenge.headers.get('location') ?? '', login)).url);
  rewrite?.(answer);
  const callback = await jar.fetch(answer.href, { headers: { accept: 'text/html' } });
  const home = callback.status === 302 ? await (await jar.fetch(`${run.app.url}/`)).text() : '';
  return { jar, answer, callback, home, page: callback.status === 302 ? '' : await callback.text() };
}

/** The new log lines while `action` runs. */
async function logsDuring(run: SocialHarnessRun, action: () => Promise<unknown>): Promise<string> {
  const before = run.app.logs.length;
  await action();
  return run.app.logs.slice(before).join('\n');
}

describe('GitHub (Social3) quirks', function () {
  this.timeout(10_000);
  let run: SocialHarnessRun;
  before(async () => {
    run = await githubHarness.start();
  });
  after(() => run.close());
  afterEach(() => run.server.reset());

  it('the GitHub-shaped token endpoint answers form-encoded unless JSON is asked for, and errors with HTTP 200', async () => {
    const form = new URLSearchParams({ client_id: CLIENT_ID, client_secret: 'wrong', code: 'x' });
    const plain = await fetch(run.server.endpoints.token, { method: 'POST', body: form });
    expect(plain.status).to.equal(200);
    expect(plain.headers.get('content-type')).to.match(/^application\/x-www-form-urlencoded/);
    expect(new URLSearchParams(await plain.text()).get('error')).to.equal('incorrect_client_credentials');
    const json = await fetch(run.server.endpoints.token, {
      method: 'POST',
      body: form,
      headers: { accept: 'application/json' },
    });
    expect(json.status).to.equal(200);
    expect(await json.json()).to.include({ error: 'incorrect_client_credentials' });
  });

  it('asks the token endpoint for JSON, so the answer is parsed at all', async () => {
    const { callback } = await signIn(run);
    expect(callback.status).to.equal(302);
    expect(run.server.lastHeaders.get('token')?.accept).to.contain('application/json');
  });

  it('reads a token error sent with HTTP 200 as the OAuth error it is (bad_verification_code)', async () => {
    run.server.tokenError = 'invalid_grant';
    let page = '';
    const logs = await logsDuring(run, async () => {
      ({ page } = await signIn(run));
    });
    expect(page).to.contain('<code>idp.token_exchange_failed</code>');
    expect(logs).to.contain('"oauthError":"bad_verification_code"');
    expect(logs).not.to.contain('The code passed is incorrect');
  });

  it('sends a User-Agent and the API version to the REST API, which refuses requests without one', async () => {
    await signIn(run);
    for (const endpoint of ['userInformation', 'userEmails'] as const) {
      const headers = run.server.lastHeaders.get(endpoint);
      expect(headers?.['user-agent'], endpoint).to.equal('Gatehouse');
      expect(headers?.['x-github-api-version'], endpoint).to.equal('2022-11-28');
      expect(headers?.accept, endpoint).to.equal('application/vnd.github+json');
    }
    const anonymous = await fetch(run.server.endpoints.userInformation, { headers: { 'user-agent': '' } });
    expect(anonymous.status).to.equal(403);
  });

  it('takes the subject from the numeric id and never uses the unverified public profile email', async () => {
    const { home } = await signIn(run, 'admin');
    expect(home).to.contain('<code>application:subject</code></td><td>1001<');
    expect(home).to.contain('<code>application:email</code></td><td>ada@example.test<');
    expect(home).not.to.contain('ada.public@example.test');
    expect(home).not.to.contain('<code>application:subject</code></td><td>ada-admin<');
  });

  it('gives no email claim when no address is verified', async () => {
    run.server.accounts.user.userEmails = [
      { email: 'uma-old@example.test', primary: true, verified: false, visibility: 'private' },
    ];
    const { home } = await signIn(run, 'user');
    expect(home).to.contain('<code>application:subject</code></td><td>1002<');
    expect(home).not.to.contain('application:email');
  });

  it('refuses an email list whose entries have the wrong types', async () => {
    run.server.accounts.user.userEmails = [{ email: 'uma@example.test', primary: true, verified: 'true' }];
    const { page } = await signIn(run, 'user');
    expect(page).to.contain('<code>idp.userinfo_failed</code>');
  });

  it('accepts the RFC 9207 iss GitHub sends and refuses an answer naming another issuer, before the token request', async () => {
    const ok = await signIn(run);
    expect(ok.answer.searchParams.get('iss')).to.equal(`${run.server.origin}/login/oauth`);
    expect(ok.callback.status).to.equal(302);
    const tokenRequests = await run.redeemed();
    const foreign = await signIn(run, 'admin', (answer) => answer.searchParams.set('iss', 'https://evil.example'));
    expect(foreign.callback.status).to.equal(400);
    expect(foreign.page).to.contain('<code>idp.issuer_mismatch</code>');
    expect(await run.redeemed()).to.equal(tokenRequests);
  });

  describe('with Scopes = profile only (no user:email)', () => {
    let profileOnly: SocialHarnessRun;
    before(async () => {
      profileOnly = await githubHarness.start({
        ProjectTemplate__Authentication__Providers__Social3__Scopes__0: 'profile',
      });
    });
    after(() => profileOnly.close());

    it('asks for read:user only, does not call /user/emails, and has no email claim', async () => {
      const { home } = await signIn(profileOnly);
      expect(profileOnly.server.lastAuthorizationRequest?.get('scope')).to.equal('read:user');
      expect(profileOnly.server.requests.userEmails).to.equal(0);
      expect(home).to.contain('<code>application:name</code></td><td>Ada Admin<');
      expect(home).not.to.contain('application:email');
    });
  });
});

describe('Microsoft (Social1) quirks', function () {
  this.timeout(10_000);
  let run: SocialHarnessRun;
  before(async () => {
    run = await microsoftHarness.start();
  });
  after(() => run.close());
  afterEach(() => run.server.reset());

  it('asks for User.Read (Scopes is empty by default) and reads the user from Graph /me', async () => {
    const { home } = await signIn(run);
    expect(run.server.lastAuthorizationRequest?.get('scope')).to.equal('User.Read');
    expect(home).to.contain('<code>application:email</code></td><td>ada@example.test<');
    // mail wins: the user principal name is no email claim when mail is set.
    expect(home).not.to.contain('<code>application:email</code></td><td>ada.admin@contoso.example<');
  });

  it("logs a token error's error_codes, trace_id and correlation_id, never its description", async () => {
    run.server.tokenError = 'invalid_grant';
    const logs = await logsDuring(run, () => signIn(run));
    const line = logs.split('\n').find((entry) => entry.includes('OAuth 2.0 step failed')) ?? '';
    expect(line).to.contain('"status":400');
    expect(line).to.contain('"errorCodes":[70008]');
    expect(line).to.match(new RegExp(`"traceId":"${GUID}"`));
    expect(line).to.match(new RegExp(`"correlationId":"${GUID}"`));
    expect(logs).not.to.contain('AADSTS');
  });

  it("logs Graph's error code and request-id when /me refuses the token with a challenge (401)", async () => {
    run.server.resourceFaults.set('userInformation', { status: 401 });
    let page = '';
    const logs = await logsDuring(run, async () => {
      ({ page } = await signIn(run));
    });
    expect(page).to.contain('<code>idp.userinfo_failed</code>');
    expect(logs).to.contain('"status":401');
    expect(logs).to.contain('"graphCode":"InvalidAuthenticationToken"');
    expect(logs).to.match(new RegExp(`"requestId":"${GUID}"`));
    expect(logs).not.to.contain('Access token validation failure');
  });

  it('logs the request-id of a Graph error answered without a challenge', async () => {
    run.server.resourceFaults.set('userInformation', { status: 500 });
    const logs = await logsDuring(run, () => signIn(run));
    expect(logs).to.contain('"graphCode":"generalException"');
    expect(logs).to.match(new RegExp(`"requestId":"${GUID}"`));
  });
});

describe('Amazon (Social2) quirks', function () {
  this.timeout(10_000);
  let run: SocialHarnessRun;
  before(async () => {
    run = await amazonHarness.start();
  });
  after(() => run.close());
  afterEach(() => run.server.reset());

  it("accepts Amazon's token type, bearer in lower case", async () => {
    const bodies: string[] = [];
    run.server.rewriteTokenReply = (reply) => {
      bodies.push(reply.body);
      return reply;
    };
    const { callback } = await signIn(run);
    expect(bodies.join()).to.contain('"token_type":"bearer"');
    expect(callback.status).to.equal(302);
  });

  it('asks for profile for both generic starter scopes (Amazon has no email scope)', async () => {
    await signIn(run);
    expect(run.server.lastAuthorizationRequest?.get('scope')).to.equal('profile');
  });
});

describe('SaveTokens=true keeps the vendor token server-side (Amazon, which issues refresh tokens)', function () {
  this.timeout(10_000);
  let run: SocialHarnessRun;
  before(async () => {
    run = await amazonHarness.start({ ProjectTemplate__Authentication__Providers__Social2__SaveTokens: 'true' });
  });
  after(() => run.close());

  it('saves the access and refresh tokens in their own record, never in the cookie, and refreshes an expired one', async () => {
    const { jar, callback } = await signIn(run);
    const sessionKey = sessionStoreKey(/gatehouse\.sid=([^;]+)/.exec(jar.header(run.app.url) ?? '')?.[1] ?? '');
    const store = run.app.gatehouse.stores.sessions;
    const session = (await store.get(sessionKey)) ?? {};
    expect(session.providerSession).to.equal(true);
    const saved = (await store.get(`provider-session:${String(session.signIn)}`))?.record as Record<string, unknown>;
    expect(saved?.accessToken).to.be.a('string').and.match(/^at-/);
    expect(saved?.refreshToken).to.be.a('string').and.match(/^rt-/);
    expect(saved?.tokenType).to.equal('bearer');
    expect(callback.headers.get('set-cookie') ?? '').not.to.contain(String(saved?.accessToken));

    await store.replace(sessionKey, { ...session, refreshAt: Date.now() - 1000 }, 60_000);
    const tokenRequests = run.server.requests.token;
    expect((await jar.fetch(`${run.app.url}/api/app-info`)).status).to.equal(200);
    expect(run.server.requests.token).to.equal(tokenRequests + 1);
    const refreshed = (await store.get(`provider-session:${String(session.signIn)}`))?.record as Record<
      string,
      unknown
    >;
    expect(refreshed?.accessToken).to.be.a('string').and.not.equal(saved?.accessToken);
  });
});
