import { expect } from 'chai';
import type { DemoIdentityProvider } from '../../../scripts/demo-identity-provider.js';
import { claimsOf } from '../../support/logout-tokens.js';
import {
  freePort,
  startIdentityProvider,
  startOidcApp,
  storedSession,
  storedTokens,
  TestBrowser,
  type OidcApp,
} from '../../support/oidc-app.js';
import { frontchannelFramesAtSignOut } from '../../support/oidc-provider-logout.js';
import { auditEventsSince, expectEndedByProvider } from '../../support/provider-logout-audit.js';

const PATH = '/frontchannel-logout-oidc';

/**
 * OpenID Connect Front-Channel Logout 1.0 through the whole app, against oidc-provider
 * playing LemonLDAP::NG or Entra ID: a client registered with a front-channel logout URI
 * only, the app configured with front-channel logout only, the provider on another site
 * (127.0.0.2), so that its frames, like a browser's third-party frames, reach the app
 * without the app's cookies.
 */
describe('OpenID Connect front-channel logout through the app (real oidc-provider)', function () {
  this.timeout(30_000);
  let idp: DemoIdentityProvider;
  let app: OidcApp;

  before(async () => {
    const port = await freePort();
    idp = await startIdentityProvider([`http://127.0.0.1:${port}`], undefined, {
      logoutChannels: ['front'],
      host: '127.0.0.2',
    });
    app = await startOidcApp(idp.issuer, port, {
      ProjectTemplate__Authentication__Providers__OpenIdConnect__BackchannelLogoutPath: '',
    });
  });
  after(async () => {
    await app.close();
    await idp.close();
  });

  const statusOf = async (browser: TestBrowser) =>
    (await browser.get(`${app.url}/api/app-info`, { accept: 'application/json' })).status;
  const auditLines = (from: number) => auditEventsSince(app, from);
  const signedIn = async (login: 'admin' | 'user' = 'admin') => {
    const browser = new TestBrowser();
    await browser.signIn(app.url, login);
    expect(await statusOf(browser)).to.equal(200);
    return browser;
  };
  /** The `sid` the provider gave this browser's sign-in, read from its kept ID token. */
  const sidOf = async (browser: TestBrowser) => {
    const kept = await storedTokens(app, browser);
    return String(claimsOf(kept?.tokens.idToken ?? '').sid);
  };
  /** A GET as the provider's frame makes it: from the provider's page, without the app's cookies. */
  const frame = (query: string, headers: Record<string, string> = {}) =>
    fetch(`${app.url}${PATH}${query}`, {
      redirect: 'manual',
      headers: { accept: 'text/html', 'sec-fetch-dest': 'iframe', referer: `${idp.issuer}/`, ...headers },
    });
  const query = (parameters: Record<string, string>) => `?${new URLSearchParams(parameters)}`;

  it("ends the session when the user signs out at the provider's page: its frame, without cookies, makes the browser anonymous", async () => {
    const browser = await signedIn();
    const other = await signedIn('user');
    const kept = await storedTokens(app, browser);
    expect(claimsOf(kept?.tokens.idToken ?? '').sid, 'the ID token names its provider session').to.be.a('string');
    const from = app.logs.length;

    const frames = await frontchannelFramesAtSignOut(browser.jar, idp.issuer);
    expect(frames.map((url) => `${url.origin}${url.pathname}`)).to.deep.equal([`${app.url}${PATH}`]);
    expect(frames[0]?.searchParams.get('iss')).to.equal(idp.issuer);
    expect(frames[0]?.searchParams.get('sid')).to.equal(await sidOf(browser));
    const answer = await frame(frames[0]?.search ?? '');

    expect(answer.status).to.equal(200);
    expect(answer.headers.get('content-type')).to.match(/^text\/html/);
    expect(await answer.text()).to.contain('Signed out');
    expect(answer.headers.get('cache-control')).to.equal('no-store');
    expect(answer.headers.get('referrer-policy')).to.equal('no-referrer');
    expect(answer.headers.get('content-security-policy')).to.equal(
      `default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors ${new URL(idp.issuer).origin}`,
    );
    expect(answer.headers.get('x-frame-options'), 'no X-Frame-Options: it cannot name the provider').to.equal(null);
    expect(answer.headers.getSetCookie(), 'no cookie set').to.deep.equal([]);

    expect(await statusOf(browser)).to.equal(401);
    expect(await app.gatehouse.stores.sessions.get(kept?.key ?? ''), 'the saved tokens are destroyed').to.equal(
      undefined,
    );
    expect(await statusOf(other), "another user's session stays").to.equal(200);
    expectEndedByProvider(auditLines(from), 'admin');
  });

  it("ends exactly the sign-ins of the named provider session, and takes sid alone as the provider's (Entra ID sends no iss)", async () => {
    const first = await signedIn();
    const second = await signedIn(); // another browser: another provider session, another sid

    expect((await frame(query({ iss: idp.issuer, sid: await sidOf(first) }))).status).to.equal(200);
    expect(await statusOf(first)).to.equal(401);
    expect(await statusOf(second)).to.equal(200);

    expect((await frame(query({ sid: await sidOf(second) }))).status).to.equal(200);
    expect(await statusOf(second)).to.equal(401);
  });

  it('answers a well-formed request naming no session here with the same page, ending nothing and recording nothing', async () => {
    const victim = await signedIn();
    const from = app.logs.length;
    const known = await frame(query({ iss: idp.issuer, sid: 'not-yet-used' }));
    const unknown = await frame(query({ iss: idp.issuer, sid: 'no-such-provider-session' }));
    expect(unknown.status).to.equal(200);
    expect(await unknown.text()).to.equal(await known.text());
    expect(await statusOf(victim)).to.equal(200);
    expect(auditLines(from), 'no audit event for a request that named nothing').to.deep.equal([]);
  });

  describe('bad input: a 400 page, no cookie, nothing ended', () => {
    let victim: TestBrowser;
    let victimSid: string;
    before(async () => {
      victim = await signedIn();
      victimSid = await sidOf(victim);
    });

    const refusals: { name: string; query: () => string; code: string }[] = [
      { name: 'no sid', query: () => query({ iss: idp.issuer }), code: 'idp.logout_sid_missing' },
      { name: 'no parameters at all', query: () => '', code: 'idp.logout_sid_missing' },
      { name: 'an empty sid', query: () => query({ iss: idp.issuer, sid: '' }), code: 'idp.logout_sid_missing' },
      {
        name: "another issuer with the victim's sid",
        query: () => query({ iss: 'https://evil.example', sid: victimSid }),
        code: 'idp.logout_issuer_mismatch',
      },
      {
        name: "the issuer spelled with a trailing slash, the victim's sid",
        query: () => query({ iss: `${idp.issuer}/`, sid: victimSid }),
        code: 'idp.logout_issuer_mismatch',
      },
      {
        name: "sid repeated (an array), the first one the victim's",
        query: () => `?iss=${encodeURIComponent(idp.issuer)}&sid=${victimSid}&sid=other`,
        code: 'request.repeated_parameter',
      },
      {
        name: 'iss repeated (an array)',
        query: () =>
          `?iss=${encodeURIComponent(idp.issuer)}&iss=${encodeURIComponent('https://evil.example')}&sid=${victimSid}`,
        code: 'request.repeated_parameter',
      },
    ];
    for (const refusal of refusals) {
      it(`refuses ${refusal.name} (${refusal.code})`, async () => {
        const answer = await frame(refusal.query());
        expect(answer.status).to.equal(400);
        expect(answer.headers.get('cache-control')).to.equal('no-store');
        expect(answer.headers.getSetCookie()).to.deep.equal([]);
        expect(answer.headers.get('content-security-policy'), 'a refusal may not be framed').to.contain(
          "frame-ancestors 'none'",
        );
        expect(await answer.text()).to.contain(refusal.code);
        expect(await statusOf(victim)).to.equal(200);
      });
    }

    it("ends nothing for a request without sid that carries the victim's own cookie (no CSRF logout)", async () => {
      const before = await storedSession(app, victim);
      const answer = await victim.get(`${app.url}${PATH}${query({ iss: idp.issuer })}`, { accept: 'text/html' });
      expect(answer.status).to.equal(400);
      expect(await storedSession(app, victim)).to.deep.equal(before);
      expect(await statusOf(victim)).to.equal(200);
    });

    it('answers problem details to a client that asks for JSON', async () => {
      const answer = await frame(query({ iss: idp.issuer }), { accept: 'application/json' });
      expect(answer.status).to.equal(400);
      expect(await answer.json()).to.include({ code: 'idp.logout_sid_missing' });
    });
  });

  it('FrontchannelLogoutPath empty turns it off: the path is not owned, a valid sid there ends nothing', async () => {
    const port = await freePort();
    const off = await startOidcApp(idp.issuer, port, {
      ProjectTemplate__Authentication__Providers__OpenIdConnect__FrontchannelLogoutPath: '',
    });
    try {
      const provider = off.gatehouse.identityProviders.find((candidate) => candidate.info.key === 'OpenIdConnect');
      expect(provider?.logoutEndpoints?.map((endpoint) => endpoint.channel)).to.deep.equal(['back']);
      const answer = await fetch(`${off.url}${PATH}${query({ iss: idp.issuer, sid: 'any' })}`, {
        redirect: 'manual',
        headers: { accept: 'text/html' },
      });
      expect(answer.status, 'no such page').to.equal(404);
    } finally {
      await off.close();
    }
  });
});
