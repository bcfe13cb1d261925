import { expect } from 'chai';
import { createHmac } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { signingKey, type DemoIdentityProvider } from '../../../scripts/demo-identity-provider.js';
import {
  CLIENT_SECRET,
  freePort,
  startIdentityProvider,
  startOidcApp,
  storedTokens,
  TestBrowser,
  type OidcApp,
} from '../../support/oidc-app.js';
import { signOutAtProvider } from '../../support/oidc-provider-logout.js';
import { auditEventsSince, expectEndedByProvider } from '../../support/provider-logout-audit.js';
import {
  BACKCHANNEL_EVENT,
  claimsOf,
  signLogoutToken,
  unsecuredLogoutToken,
  type LogoutTokenSpec,
} from '../../support/logout-tokens.js';

const CLIENT_ID = 'gatehouse-test';
const PATH = '/backchannel-logout-oidc';

describe('OpenID Connect back-channel logout through the app (real oidc-provider)', function () {
  this.timeout(30_000);
  const providerKey = signingKey();
  const foreignKey = { ...signingKey(), kid: providerKey.kid };
  let idp: DemoIdentityProvider;
  let app: OidcApp;

  before(async () => {
    const port = await freePort();
    idp = await startIdentityProvider([`http://127.0.0.1:${port}`], providerKey);
    app = await startOidcApp(idp.issuer, port);
  });
  after(async () => {
    await app.close();
    await idp.close();
  });

  const spec = (claims: Record<string, unknown> = {}, header?: Record<string, unknown>): LogoutTokenSpec => ({
    issuer: idp.issuer,
    audience: CLIENT_ID,
    claims,
    ...(header ? { header } : {}),
  });
  const post = (token: string | undefined, target = app.url) =>
    fetch(`${target}${PATH}`, {
      method: 'POST',
      body: new URLSearchParams(token === undefined ? {} : { logout_token: token }),
    });
  const statusOf = async (browser: TestBrowser) =>
    (await browser.get(`${app.url}/api/app-info`, { accept: 'application/json' })).status;
  const auditLines = (from: number) => auditEventsSince(app, from);
  /** The `sid` the provider gave this browser's sign-in, read from its kept ID token. */
  const sidOf = async (browser: TestBrowser) => {
    const kept = await storedTokens(app, browser);
    return String(claimsOf(kept?.tokens.idToken ?? '').sid);
  };
  const signedIn = async (login: 'admin' | 'user' = 'admin') => {
    const browser = new TestBrowser();
    await browser.signIn(app.url, login);
    expect(await statusOf(browser)).to.equal(200);
    return browser;
  };

  it("ends the session when the user signs out at the provider (the provider's own back-channel call), its tokens included, and records it", async () => {
    const browser = await signedIn();
    const other = await signedIn('user');
    const kept = await storedTokens(app, browser);
    expect(kept, 'tokens are kept for the session').to.not.equal(undefined);
    expect(claimsOf(kept?.tokens.idToken ?? '').sid, 'the ID token names its provider session').to.be.a('string');
    const from = app.logs.length;

    await signOutAtProvider(browser.jar, idp.issuer);

    expect(await statusOf(browser)).to.equal(401);
    expect(await app.gatehouse.stores.sessions.get(kept?.key ?? ''), 'the saved tokens are destroyed').to.equal(
      undefined,
    );
    expect(await statusOf(other), "another user's session stays").to.equal(200);
    expectEndedByProvider(auditLines(from), 'admin');
  });

  it('with a sid ends exactly the sign-ins of that provider session; without one, every session of the user there', async () => {
    const first = await signedIn();
    const second = await signedIn(); // another browser: another provider session, another sid
    const third = await signedIn();
    const uma = await signedIn('user');

    const bySid = await post(await signLogoutToken(providerKey, spec({ sid: await sidOf(first), sub: 'admin' })));
    expect(bySid.status).to.equal(200);
    expect(bySid.headers.get('cache-control')).to.equal('no-store');
    expect(await statusOf(first)).to.equal(401);
    expect(await statusOf(second)).to.equal(200);

    const bySub = await post(await signLogoutToken(providerKey, spec({ sub: 'admin' })));
    expect(bySub.status).to.equal(200);
    expect(await statusOf(second)).to.equal(401);
    expect(await statusOf(third)).to.equal(401);
    expect(await statusOf(uma)).to.equal(200);
  });

  it('answers 200 to a valid token that names no session here (the user signed out already), typ absent or logout+jwt', async () => {
    expect((await post(await signLogoutToken(providerKey, spec({ sub: 'nobody' })))).status).to.equal(200);
    expect(
      (await post(await signLogoutToken(providerKey, spec({ sid: 'no-such-sid' }, { typ: undefined })))).status,
    ).to.equal(200);
  });

  describe('hostile or broken tokens: 400 problem details, no-store, nothing ended', () => {
    let victim: TestBrowser;
    before(async () => {
      victim = await signedIn();
    });

    const refusals: { name: string; code: string; token: () => Promise<string> }[] = [
      {
        name: 'a forged signature (a foreign key under the provider key id)',
        code: 'idp.logout_token_invalid',
        token: () => signLogoutToken(foreignKey, spec({ sub: 'admin' })),
      },
      {
        name: 'a foreign key the provider does not publish',
        code: 'idp.logout_token_invalid',
        token: () => signLogoutToken({ ...signingKey() }, spec({ sub: 'admin' })),
      },
      {
        name: 'another issuer',
        code: 'idp.logout_token_invalid',
        token: () => signLogoutToken(providerKey, { ...spec({ sub: 'admin' }), issuer: 'https://evil.example' }),
      },
      {
        name: 'another audience',
        code: 'idp.logout_token_invalid',
        token: () => signLogoutToken(providerKey, { ...spec({ sub: 'admin' }), audience: 'another-client' }),
      },
      {
        name: 'an expired token',
        code: 'idp.logout_token_expired',
        token: () => signLogoutToken(providerKey, spec({ sub: 'admin', iat: now() - 600, exp: now() - 300 })),
      },
      {
        name: 'a token without exp older than the age bound',
        code: 'idp.logout_token_expired',
        token: () => signLogoutToken(providerKey, spec({ sub: 'admin', iat: now() - 400, exp: undefined })),
      },
      {
        name: 'a token issued long ago, though its exp is hours away (2.6: an iat far in the past)',
        code: 'idp.logout_token_expired',
        token: () => signLogoutToken(providerKey, spec({ sub: 'admin', iat: now() - 400, exp: now() + 20 * 3600 })),
      },
      {
        name: 'a token issued in the future',
        code: 'idp.logout_token_invalid',
        token: () => signLogoutToken(providerKey, spec({ sub: 'admin', iat: now() + 600, exp: now() + 900 })),
      },
      {
        name: 'a token valid for more than a day',
        code: 'idp.logout_token_invalid',
        token: () => signLogoutToken(providerKey, spec({ sub: 'admin', exp: now() + 2 * 86_400 })),
      },
      {
        name: 'a nonce (an ID token is never a logout token)',
        code: 'idp.logout_token_invalid',
        token: () => signLogoutToken(providerKey, spec({ sub: 'admin', nonce: 'n-0S6_WzA2Mj' })),
      },
      {
        name: 'alg none',
        code: 'idp.logout_token_invalid',
        token: async () => unsecuredLogoutToken(spec({ sub: 'admin' })),
      },
      {
        name: 'HS256 keyed with the client secret',
        code: 'idp.logout_token_invalid',
        token: async () => hs256(spec({ sub: 'admin' })),
      },
      {
        name: 'events as an array',
        code: 'idp.logout_token_invalid',
        token: () => signLogoutToken(providerKey, spec({ sub: 'admin', events: [BACKCHANNEL_EVENT] })),
      },
      {
        name: 'events without the back-channel logout event',
        code: 'idp.logout_token_invalid',
        token: () => signLogoutToken(providerKey, spec({ sub: 'admin', events: { 'urn:other': {} } })),
      },
      {
        name: 'neither sub nor sid',
        code: 'idp.logout_token_invalid',
        token: () => signLogoutToken(providerKey, spec({})),
      },
      {
        name: 'no jti',
        code: 'idp.logout_token_invalid',
        token: () => signLogoutToken(providerKey, spec({ sub: 'admin', jti: undefined })),
      },
      {
        name: 'typ JWT (accepted only with BackchannelLogoutAcceptJwtTyp)',
        code: 'idp.logout_token_invalid',
        token: () => signLogoutToken(providerKey, spec({ sub: 'admin' }, { typ: 'JWT' })),
      },
      {
        name: 'typ of another kind of token',
        code: 'idp.logout_token_invalid',
        token: () => signLogoutToken(providerKey, spec({ sub: 'admin' }, { typ: 'at+jwt' })),
      },
      {
        name: 'something that is no JWT',
        code: 'idp.logout_token_invalid',
        token: async () => 'not.a.jwt',
      },
    ];

    for (const refusal of refusals) {
      it(`refuses ${refusal.name} (${refusal.code})`, async () => {
        const response = await post(await refusal.token());
        await expectProblem(response, 400, refusal.code);
        expect(await statusOf(victim)).to.equal(200);
      });
    }

    it("refuses the user's own ID token (a nonce, no event)", async () => {
      const browser = await signedIn();
      const idToken = (await storedTokens(app, browser))?.tokens.idToken;
      expect(idToken).to.be.a('string');
      await expectProblem(await post(idToken), 400, 'idp.logout_token_invalid');
      expect(await statusOf(browser)).to.equal(200);
    });

    it('refuses a token used before (idp.logout_token_replayed)', async () => {
      const token = await signLogoutToken(providerKey, spec({ sub: 'nobody' }));
      expect((await post(token)).status).to.equal(200);
      await expectProblem(await post(token), 400, 'idp.logout_token_replayed');
    });

    it('refuses a request without a logout_token (idp.logout_token_missing), or with two', async () => {
      await expectProblem(await post(undefined), 400, 'idp.logout_token_missing');
      const token = await signLogoutToken(providerKey, spec({ sub: 'admin' }));
      const twice = await fetch(`${app.url}${PATH}`, {
        method: 'POST',
        body: new URLSearchParams([
          ['logout_token', token],
          ['logout_token', token],
        ]),
      });
      await expectProblem(twice, 400, 'request.repeated_parameter');
      const json = await fetch(`${app.url}${PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ logout_token: token }),
      });
      await expectProblem(json, 400, 'idp.logout_token_missing');
      expect(await statusOf(victim)).to.equal(200);
    });

    it('accepts POST only (405 with Allow: POST), and refuses a 1 MB body (413) without reading it all', async () => {
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const response = await fetch(`${app.url}${PATH}`, { method });
        await expectProblem(response, 405, 'request.method_not_allowed');
        expect(response.headers.get('allow')).to.equal('POST');
      }
      const big = `logout_token=${'a'.repeat(1024 * 1024)}`;
      await expectProblem(
        await fetch(`${app.url}${PATH}`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: big,
        }),
        413,
        'request.too_large',
      );
      // Streamed without a declared length: refused once the limit is passed, long before the end.
      const streamed = await streamedPost(`${app.url}${PATH}`, 1024 * 1024);
      expect(streamed.status).to.equal(413);
      expect(streamed.sent, 'the app answered before the whole body was sent').to.be.lessThan(1024 * 1024);
      expect(await statusOf(victim)).to.equal(200);
    });

    it('logs no logout token', async () => {
      const token = await signLogoutToken(foreignKey, spec({ sub: 'admin' }));
      const from = app.logs.length;
      await post(token);
      const written = app.logs.slice(from).join('\n');
      expect(written).to.contain('idp.logout_token_invalid');
      expect(written).not.to.contain(token.split('.')[1] ?? 'payload');
      expect(written).not.to.contain(token.split('.')[2] ?? 'signature');
    });
  });

  it('refuses a sign-in whose answer arrives after a logout for its provider session was accepted (idp.session_ended)', async () => {
    const browser = await signedIn();
    const sid = await sidOf(browser);
    // A second sign-in in the same browser joins the same provider session (single sign-on): the same sid.
    const late = await browser.startSignIn(app.url, 'admin');
    expect((await post(await signLogoutToken(providerKey, spec({ sid, sub: 'admin' })))).status).to.equal(200);
    expect(await statusOf(browser)).to.equal(401);

    const response = await browser.get(late.href);
    expect(response.status).to.equal(400);
    expect(await response.text()).to.contain('idp.session_ended');
    expect(await statusOf(browser), 'the late sign-in left no session').to.equal(401);
  });

  describe("when the provider's keys cannot be fetched", () => {
    let fresh: OidcApp;
    let freshIdp: DemoIdentityProvider;
    before(async () => {
      const port = await freePort();
      freshIdp = await startIdentityProvider([`http://127.0.0.1:${port}`], providerKey);
      fresh = await startOidcApp(freshIdp.issuer, port);
    });
    after(async () => {
      freshIdp.stalled = false;
      await fresh.close();
      await freshIdp.close();
    });

    it('answers 503 idp.timeout within HttpTimeoutSeconds, and the token stays usable once the provider is back', async () => {
      // The provider's metadata is known (a challenge needs it); its keys are not fetched yet.
      expect(
        (await fetch(`${fresh.url}/External/Challenge?provider=OpenIdConnect`, { redirect: 'manual' })).status,
      ).to.equal(302);
      const token = await signLogoutToken(providerKey, {
        issuer: freshIdp.issuer,
        audience: CLIENT_ID,
        claims: { sub: 'nobody' },
      });
      freshIdp.stalled = true;
      const started = Date.now();
      const stalled = await post(token, fresh.url);
      expect(Date.now() - started).to.be.below(4_000);
      await expectProblem(stalled, 503, 'idp.timeout');
      freshIdp.stalled = false;
      expect((await post(token, fresh.url)).status).to.equal(200);
    });
  });

  describe('with BackchannelLogoutAcceptJwtTyp', () => {
    let lenient: OidcApp;
    let lenientIdp: DemoIdentityProvider;
    before(async () => {
      const port = await freePort();
      lenientIdp = await startIdentityProvider([`http://127.0.0.1:${port}`], providerKey);
      lenient = await startOidcApp(lenientIdp.issuer, port, {
        ProjectTemplate__Authentication__Providers__OpenIdConnect__BackchannelLogoutAcceptJwtTyp: 'true',
      });
    });
    after(async () => {
      await lenient.close();
      await lenientIdp.close();
    });

    it('accepts typ JWT, still refuses other types', async () => {
      const token = (typ: string) =>
        signLogoutToken(providerKey, {
          issuer: lenientIdp.issuer,
          audience: CLIENT_ID,
          claims: { sub: 'nobody' },
          header: { typ },
        });
      expect((await post(await token('JWT'), lenient.url)).status).to.equal(200);
      expect((await post(await token('at+jwt'), lenient.url)).status).to.equal(400);
    });
  });
});

async function expectProblem(response: Response, status: number, code: string): Promise<void> {
  expect(response.status, code).to.equal(status);
  expect(response.headers.get('cache-control')).to.equal('no-store');
  expect(response.headers.get('content-type')).to.match(/^application\/problem\+json/);
  const body = (await response.json()) as { code?: string; status?: number };
  expect(body).to.include({ code, status });
}

function now(): number {
  return Math.floor(Date.now() / 1000);
}

/** A logout token MACed with the client secret: a provider's symmetric algorithm, which ID tokens here never use. */
function hs256(spec: LogoutTokenSpec): string {
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const issued = now();
  const input = `${encode({ alg: 'HS256', typ: 'logout+jwt' })}.${encode({
    iss: spec.issuer,
    aud: spec.audience,
    iat: issued,
    exp: issued + 120,
    jti: `hs-${issued}`,
    events: { [BACKCHANNEL_EVENT]: {} },
    ...spec.claims,
  })}`;
  return `${input}.${createHmac('sha256', CLIENT_SECRET).update(input).digest('base64url')}`;
}

/** POSTs `size` bytes in chunks without a Content-Length; how much was written before the answer came. */
function streamedPost(url: string, size: number): Promise<{ status: number; sent: number }> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = httpRequest(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'transfer-encoding': 'chunked' },
    });
    req.on('response', (res) => {
      answered = true;
      res.resume();
      resolve({ status: res.statusCode ?? 0, sent });
      req.destroy();
    });
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    // Paced, as a slow client would send: the answer must come after the limit, not after the body.
    const chunk = Buffer.alloc(16 * 1024, 'a');
    const pump = () => {
      if (answered) return;
      if (sent >= size) return void req.end();
      sent += chunk.length;
      req.write(chunk);
      setTimeout(pump, 5);
    };
    req.write('logout_token=');
    pump();
  });
}
