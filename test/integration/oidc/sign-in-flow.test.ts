import { expect } from 'chai';
import type { DemoIdentityProvider } from '../../../scripts/demo-identity-provider.js';
import { sessionStoreKey } from '../../../src/adapters/koa/session/session-token.js';
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
import { plainClaims, signIn } from '../../support/sign-in.js';

describe('OpenID Connect sign-in through the app (real oidc-provider)', function () {
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

  it('lists the provider on the login page with a challenge link carrying the return URL', async () => {
    const html = await (await fetch(`${app.url}/Account/Login?returnUrl=%2Fapi%2Fapp-info`)).text();
    expect(html).to.contain('href="/External/Challenge?provider=OpenIdConnect&amp;returnUrl=%2Fapi%2Fapp-info"');
    expect(html).to.contain('Sign in with OpenID Connect');
  });

  it('refuses a missing, unknown or repeated provider with a 400 page: no challenge, no redirect, no session', async () => {
    for (const query of [
      '',
      '?provider=',
      '?provider=Nope',
      '?provider=openidconnect',
      '?provider=OpenIdConnect&provider=OpenIdConnect',
      '?provider=OpenIdConnect&returnUrl=/a&returnUrl=//evil.example',
    ]) {
      const response = await fetch(`${app.url}/External/Challenge${query}`, {
        headers: { accept: 'text/html' },
        redirect: 'manual',
      });
      expect(response.status, query).to.equal(400);
      expect(response.headers.get('location'), query).to.equal(null);
      expect(response.headers.get('set-cookie'), query).to.equal(null);
    }
  });

  for (const hostile of [
    '//evil.example',
    '/\\evil.example',
    'https://evil.example/',
    'javascript:alert(1)',
    '/ok\n//evil.example',
  ]) {
    it(`continues with / after sign-in when returnUrl is ${JSON.stringify(hostile)}`, async () => {
      const browser = new TestBrowser();
      const response = await browser.signIn(app.url, 'user', hostile);
      expect(response.headers.get('location')).to.equal('/');
    });
  }

  it('signs the admin in: new session id, normalized claims, tokens kept server-side only, back to the return URL', async () => {
    const browser = new TestBrowser();
    const callback = await browser.startSignIn(app.url, 'admin', '/api/app-info?x=1');
    // The challenge stored no session: only the flow, bound to this browser by its own cookie.
    expect(browser.sessionToken(app.url)).to.equal(undefined);
    expect(browser.jar.header(app.url)).to.match(/^gatehouse\.sid\.flow=[A-Za-z0-9_-]{43}$/);

    const response = await browser.get(callback.href);
    expect(response.status).to.equal(302);
    expect(response.headers.get('location')).to.equal('/api/app-info?x=1');
    expect(response.headers.get('cache-control')).to.equal('no-store');
    expect(response.headers.get('referrer-policy')).to.equal('no-referrer');
    const setCookie = response.headers.get('set-cookie') ?? '';
    expect(setCookie)
      .to.match(/httponly/i)
      .and.match(/samesite=lax/i);
    expect(browser.sessionToken(app.url)).to.have.length(43);

    const home = await (await browser.get(`${app.url}/`)).text();
    expect(home).to.contain('Welcome, Ada Admin');
    expect(home).to.contain('<code>application:email</code></td><td>ada@example.test');
    expect(home).to.contain('<code>application:role</code></td><td>Administrator');
    expect(home).to.contain('<code>application:permission</code></td><td>application.manage');

    const saved = await storedTokens(app, browser);
    expect(saved?.tokens.accessToken).to.be.a('string');
    expect(saved?.tokens.idToken).to.be.a('string');
    const session = JSON.stringify(await storedSession(app, browser));
    expect(session).not.to.contain(saved?.tokens.accessToken ?? 'missing');
    expect(session).not.to.contain('flowBinding');
    expect(setCookie + home).not.to.contain(saved?.tokens.accessToken ?? 'missing');

    expect((await browser.get(`${app.url}/api/app-info/admin`)).status).to.equal(200);
    expect((await browser.get(`${app.url}/api/app-info/manage`)).status).to.equal(200);
  });

  it('gives a new session id at sign-in: a session id planted in the browser before is never signed in (no fixation)', async () => {
    const attacker = new TestBrowser();
    await attacker.signIn(app.url, 'user');
    const planted = attacker.sessionToken(app.url) ?? '';
    const victim = new TestBrowser();
    victim.jar.store(app.url, new Response(null, { headers: { 'set-cookie': `gatehouse.sid=${planted}` } }));
    await victim.signIn(app.url, 'admin');
    const issued = victim.sessionToken(app.url);
    expect(issued).to.have.length(43).and.not.equal(planted);
    expect(await app.gatehouse.stores.sessions.get(sessionStoreKey(planted))).to.equal(undefined);
    const asAttacker = await fetch(`${app.url}/`, {
      headers: { cookie: `gatehouse.sid=${planted}` },
      redirect: 'manual',
    });
    expect(asAttacker.status, 'the planted id is anonymous').to.equal(302);
  });

  it('signs the plain user in, who is refused the admin API', async () => {
    const browser = new TestBrowser();
    await browser.signIn(app.url, 'user');
    expect(await (await browser.get(`${app.url}/`)).text()).to.contain('Welcome, Uma User');
    expect((await browser.get(`${app.url}/api/app-info/admin`)).status).to.equal(403);
    const page = await browser.get(`${app.url}/api/app-info`, { accept: 'text/html' });
    expect(page.status).to.equal(200);
  });

  it('lets two tabs of one browser sign in, in either order', async () => {
    const browser = new TestBrowser();
    const first = await browser.startSignIn(app.url, 'admin', '/first');
    const second = await browser.startSignIn(app.url, 'admin', '/second');
    expect((await browser.get(second.href)).headers.get('location')).to.equal('/second');
    expect((await browser.get(first.href)).headers.get('location')).to.equal('/first');
  });

  it('refreshes an expired access token with the refresh token, once for concurrent requests', async () => {
    const browser = new TestBrowser();
    await browser.signIn(app.url, 'admin');
    const sessionKey = sessionStoreKey(browser.sessionToken(app.url) ?? '');
    const before = await storedTokens(app, browser);
    expect(before?.tokens.refreshToken).to.be.a('string');
    const session = (await app.gatehouse.stores.sessions.get(sessionKey)) ?? {};
    await app.gatehouse.stores.sessions.replace(sessionKey, { ...session, refreshAt: Date.now() - 1000 }, 60_000);

    const responses = await Promise.all([1, 2, 3, 4].map(() => browser.get(`${app.url}/api/app-info`)));
    expect(responses.map((r) => r.status)).to.deep.equal([200, 200, 200, 200]);
    const after = await storedTokens(app, browser);
    expect(after?.key).to.equal(before?.key);
    expect(after?.tokens.accessToken).not.to.equal(before?.tokens.accessToken);
    expect((await app.gatehouse.stores.sessions.get(sessionKey))?.refreshAt).to.be.greaterThan(Date.now());
    expect(app.logs.join('\n')).not.to.contain('provider session refresh refused');
  });

  it('keeps the saved tokens through a provider outage, and refreshes them once it answers again', async () => {
    const browser = new TestBrowser();
    await browser.signIn(app.url, 'admin');
    const sessionKey = sessionStoreKey(browser.sessionToken(app.url) ?? '');
    const before = await storedTokens(app, browser);
    const session = (await app.gatehouse.stores.sessions.get(sessionKey)) ?? {};
    await app.gatehouse.stores.sessions.replace(sessionKey, { ...session, refreshAt: Date.now() - 1000 }, 60_000);

    idp.stalled = true;
    try {
      const during = await browser.get(`${app.url}/api/app-info`);
      expect(during.status, 'the user is served during the outage').to.equal(200);
    } finally {
      idp.stalled = false;
    }
    expect((await storedTokens(app, browser))?.tokens, 'kept as they were').to.deep.equal(before?.tokens);
    expect((await app.gatehouse.stores.sessions.get(sessionKey))?.providerSession).to.equal(true);
    expect(app.logs.join('\n')).to.contain('provider session refresh failed; it is kept');

    expect((await browser.get(`${app.url}/api/app-info`)).status).to.equal(200);
    const after = await storedTokens(app, browser);
    expect(after?.tokens.accessToken, 'refreshed once the provider is back').to.not.equal(before?.tokens.accessToken);
  });

  it('signing in again while signed in replaces the sign-in record and its tokens, and removes the earlier ones', async () => {
    const browser = new TestBrowser();
    await browser.signIn(app.url, 'user');
    const first = await storedSession(app, browser);
    const firstTokens = await storedTokens(app, browser);
    expect(first?.signIn).to.be.a('string');
    expect(firstTokens?.key).to.equal(`provider-session:${String(first?.signIn)}`);

    await browser.signIn(app.url, 'user');
    const second = await storedSession(app, browser);
    expect(second?.signIn).to.be.a('string').and.not.equal(first?.signIn);
    expect(await app.gatehouse.stores.sessions.get(`signin:${String(first?.signIn)}`)).to.equal(undefined);
    expect(await app.gatehouse.stores.sessions.get(firstTokens?.key ?? 'missing')).to.equal(undefined);
    expect((await storedTokens(app, browser))?.tokens.accessToken).to.be.a('string');
    expect((await browser.get(`${app.url}/api/app-info`)).status).to.equal(200);
  });

  it('logs out at the provider too (RP-initiated logout), and the old cookie is anonymous', async () => {
    const browser = new TestBrowser();
    await browser.signIn(app.url, 'admin');
    const oldCookie = browser.jar.header(app.url) ?? '';
    const saved = await storedTokens(app, browser);
    const signInRef = String((await storedSession(app, browser))?.signIn);
    const home = await (await browser.get(`${app.url}/`)).text();
    const csrf = /name="_csrf" value="([^"]+)"/.exec(home)?.[1] ?? '';
    const response = await browser.post(`${app.url}/Account/Logout`, { _csrf: csrf }, { origin: app.url });
    expect(response.status).to.equal(302);
    const location = new URL(response.headers.get('location') ?? '');
    expect(location.origin).to.equal(new URL(idp.issuer).origin);
    expect(location.searchParams.get('id_token_hint')).to.be.a('string');
    expect(location.searchParams.get('post_logout_redirect_uri')).to.equal(`${app.url}/`);
    expect(await app.gatehouse.stores.sessions.get(saved?.key ?? 'missing')).to.equal(undefined);
    expect(await app.gatehouse.stores.sessions.get(`signin:${signInRef}`)).to.equal(undefined);
    const replay = await fetch(`${app.url}/`, { headers: { cookie: oldCookie }, redirect: 'manual' });
    expect(replay.status).to.equal(302);
    expect(replay.headers.get('location')).to.match(/^\/Account\/Login/);
  });

  describe('refused callbacks: error page, no session, nothing secret logged', () => {
    const expectRefused = async (response: Response, code: string) => {
      expect(response.status).to.equal(400);
      expect(response.headers.get('cache-control')).to.equal('no-store');
      expect(await response.text()).to.contain(`<code>${code}</code>`);
    };

    it('a callback in a browser that started no sign-in: idp.flow_missing, and no session is created', async () => {
      const callback = await new TestBrowser().startSignIn(app.url, 'admin');
      const stranger = new TestBrowser();
      const response = await stranger.get(callback.href);
      await expectRefused(response, 'idp.flow_missing');
      expect(response.headers.get('set-cookie')).to.equal(null);
    });

    it('a callback whose state was tampered with: idp.flow_missing (no such sign-in)', async () => {
      const browser = new TestBrowser();
      const callback = await browser.startSignIn(app.url, 'admin');
      callback.searchParams.set('state', 'forged-state');
      await expectRefused(await browser.get(callback.href), 'idp.flow_missing');
    });

    it('a callback without state: idp.state_mismatch', async () => {
      const browser = new TestBrowser();
      const callback = await browser.startSignIn(app.url, 'admin');
      callback.searchParams.delete('state');
      await expectRefused(await browser.get(callback.href), 'idp.state_mismatch');
    });

    it('a replayed callback: refused, the flow was single-use', async () => {
      const browser = new TestBrowser();
      const callback = await browser.startSignIn(app.url, 'admin');
      expect((await browser.get(callback.href)).status).to.equal(302);
      await expectRefused(await browser.get(callback.href), 'idp.flow_missing');
    });

    it('a callback delivered to another browser that has its own pending sign-in: idp.state_mismatch', async () => {
      const victim = new TestBrowser();
      const attacker = new TestBrowser();
      await victim.startSignIn(app.url, 'user');
      const attackerCallback = await attacker.startSignIn(app.url, 'admin');
      await expectRefused(await victim.get(attackerCallback.href), 'idp.state_mismatch');
    });

    it('cancelled at the provider (access_denied): the calm sign-in-cancelled page, problem details for JSON', async () => {
      const browser = new TestBrowser();
      const callback = await browser.startSignIn(app.url, 'admin', '/', true);
      expect(callback.searchParams.get('error')).to.equal('access_denied');
      const logsBefore = app.logs.length;
      const response = await browser.get(callback.href, { accept: 'text/html' });
      // An outcome the person chose, logged at info: never a WARN "step failed".
      const said = app.logs.slice(logsBefore).filter((line) => line.includes('idp.sign_in_cancelled'));
      expect(said).to.have.length.greaterThan(0);
      for (const line of said)
        expect(JSON.parse(line)).to.include({ level: 30 }).and.not.include({ msg: 'OpenID Connect step failed' });
      expect(response.status).to.equal(400);
      expect(response.headers.get('cache-control')).to.equal('no-store');
      const page = await response.text();
      expect(page).to.contain('<h1>Sign-in cancelled</h1>').and.contain('nothing has changed here');
      expect(page).to.contain('<a class="button" href="/Account/Login">Back to sign-in</a>');
      expect(browser.sessionToken(app.url)).to.equal(undefined);
      expect((await browser.get(`${app.url}/`)).status).to.equal(302);

      const again = await browser.startSignIn(app.url, 'admin', '/', true);
      const json = await browser.get(again.href, { accept: 'application/json' });
      expect(json.status).to.equal(400);
      expect(await json.json()).to.deep.equal({
        type: 'about:blank',
        title: 'Bad request',
        status: 400,
        detail: 'The sign-in was cancelled or declined at the identity provider, so you are not signed in.',
        code: 'idp.sign_in_cancelled',
      });
    });

    it('cancelled while signed in: the session is left as it was', async () => {
      const browser = new TestBrowser();
      // Signed in here, not at the provider (which would then sign the browser in without asking).
      const { cookie } = await signIn(app.gatehouse, plainClaims);
      browser.jar.store(app.url, new Response(null, { headers: { 'set-cookie': `${cookie}; Path=/` } }));
      const before = browser.sessionToken(app.url);
      expect(before).to.not.equal(undefined);
      const callback = await browser.startSignIn(app.url, 'admin', '/', true);
      const page = await (await browser.get(callback.href, { accept: 'text/html' })).text();
      expect(page).to.contain('<h1>Sign-in cancelled</h1>');
      expect(browser.sessionToken(app.url)).to.equal(before);
      expect((await browser.get(`${app.url}/api/app-info`)).status).to.equal(200);
    });

    it('another refusal by the provider (not a cancel) keeps the error page: idp.provider_error', async () => {
      const browser = new TestBrowser();
      const callback = await browser.startSignIn(app.url, 'admin', '/', true);
      callback.searchParams.set('error', 'temporarily_unavailable');
      const response = await browser.get(callback.href, { accept: 'text/html' });
      await expectRefused(response, 'idp.provider_error');
      expect(browser.sessionToken(app.url)).to.equal(undefined);
    });

    it('never logs the client secret, the authorization code, the state or a token', async () => {
      const browser = new TestBrowser();
      const callback = await browser.startSignIn(app.url, 'admin');
      await browser.get(callback.href);
      const saved = await storedTokens(app, browser);
      const logs = app.logs.join('\n');
      for (const secret of [
        CLIENT_SECRET,
        callback.searchParams.get('code') ?? 'x',
        callback.searchParams.get('state') ?? 'x',
        saved?.tokens.accessToken ?? 'x',
        saved?.tokens.idToken ?? 'x',
      ]) {
        expect(logs).not.to.contain(secret);
      }
      expect(logs).to.contain('/signin-oidc?code=[REDACTED]');
    });
  });
});
