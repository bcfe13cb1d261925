import { expect } from 'chai';
import { startDemoIdentityProvider, type DemoIdentityProvider } from '../../../scripts/demo-identity-provider.js';
import { driveOidcLogin } from '../../support/drive-oidc-login.js';
import { freePort, TestBrowser } from '../../support/oidc-app.js';
import { startGatehouse, type RunningGatehouse } from '../../support/start-gatehouse.js';

const SECRET = 'SENTINEL-connection-client-secret-81f2';
const CONNECTION = (name: string) => `ProjectTemplate__Authentication__Connections__${name}__`;

/** A connection `Globex` (OpenID Connect, organization `globex`) against a real provider whose users are at example.test. */
async function start(domains: string[], extra: Record<string, string> = {}) {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const provider = await startDemoIdentityProvider({
    clients: [
      {
        clientId: 'globex-client',
        clientSecret: SECRET,
        redirectUris: [`${origin}/connections/globex/signin-oidc`],
        postLogoutRedirectUris: [`${origin}/`],
      },
    ],
  });
  const env: Record<string, string> = {
    ProjectTemplate__Hosting__PublicOrigin: origin,
    ProjectTemplate__Authentication__HttpTimeoutSeconds: '2',
    [`${CONNECTION('Globex')}Protocol`]: 'OpenIdConnect',
    [`${CONNECTION('Globex')}Organization`]: 'globex',
    [`${CONNECTION('Globex')}DisplayName`]: 'Globex',
    [`${CONNECTION('Globex')}Authority`]: provider.issuer,
    [`${CONNECTION('Globex')}ClientId`]: 'globex-client',
    [`${CONNECTION('Globex')}ClientSecret`]: SECRET,
    // Not pushed, so that the authorization request's login_hint can be read from the redirect.
    [`${CONNECTION('Globex')}UsePushedAuthorization`]: 'false',
    ...Object.fromEntries(domains.map((domain, index) => [`${CONNECTION('Globex')}Domains__${index}`, domain])),
    ...extra,
  };
  const app = await startGatehouse(env, { port });
  return { app, provider };
}

/** Posts the login page's e-mail form as the browser would. */
async function discover(browser: TestBrowser, app: RunningGatehouse, email: string): Promise<Response> {
  const page = await browser.get(`${app.url}/Account/Login?returnUrl=%2Fapi%2Fapp-info`);
  const html = await page.text();
  const token = /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
  return browser.post(`${app.url}/External/Discover`, { _csrf: token, email, returnUrl: '/api/app-info' });
}

describe('connections: an OpenID Connect connection found by e-mail domain', () => {
  let app: RunningGatehouse;
  let provider: DemoIdentityProvider;
  afterEach(async () => {
    await app?.close();
    await provider?.close();
  });

  it('signs a person of its domain in, with the organization and connection Gatehouse sets', async () => {
    ({ app, provider } = await start(['example.test']));
    const browser = new TestBrowser();
    const discovered = await discover(browser, app, 'Ada@Example.TEST');
    expect(discovered.status).to.equal(302);
    const location = new URL(discovered.headers.get('location') ?? '');
    expect(location.origin).to.equal(new URL(provider.issuer).origin);
    expect(location.searchParams.get('login_hint')).to.equal('Ada@Example.TEST');
    const callback = await driveOidcLogin(location.href, 'admin', browser.jar);
    expect(callback.pathname).to.equal('/connections/globex/signin-oidc');
    const landed = await browser.get(callback.href);
    expect(landed.status).to.equal(302);
    expect(landed.headers.get('location')).to.equal('/api/app-info');
    const me = await browser.get(`${app.url}/api/organizations/globex/app-info`, { accept: 'application/json' });
    expect(me.status).to.equal(200);
    const other = await browser.get(`${app.url}/api/organizations/acme/app-info`, { accept: 'application/json' });
    expect(other.status).to.equal(403);
    const audit = app.logs.filter((line) => line.includes('"event":"signin.succeeded"'));
    expect(audit.at(-1)).to.include('"connection":"Globex"').and.include('"organization":"globex"');
    expect(app.logs.join('\n')).not.to.include(SECRET);
  });

  it("refuses a person outside the connection's domains and signs nobody in", async () => {
    ({ app, provider } = await start(['acme.test']));
    const browser = new TestBrowser();
    const challenge = await browser.get(`${app.url}/External/Challenge?provider=globex&returnUrl=%2F`);
    expect(challenge.status).to.equal(302);
    const callback = await driveOidcLogin(challenge.headers.get('location') ?? '', 'admin', browser.jar);
    const refused = await browser.get(callback.href, { accept: 'application/json' });
    expect(refused.status).to.equal(403);
    expect(((await refused.json()) as { code: string }).code).to.equal('idp.domain_not_allowed');
    expect(browser.sessionToken(app.url)).to.equal(undefined);
    const failed = app.logs.filter((line) => line.includes('"event":"signin.failed"'));
    expect(failed.at(-1)).to.include('"code":"idp.domain_not_allowed"').and.include('"connection":"Globex"');
  });

  it('answers an unknown domain and a malformed address on the login page', async () => {
    ({ app, provider } = await start(['example.test']));
    const browser = new TestBrowser();
    const unknown = await discover(browser, app, 'someone@initech.test');
    expect(unknown.status).to.equal(404);
    expect(await unknown.text()).to.include('No organization signs in with that e-mail domain here.');
    const malformed = await discover(browser, app, 'not an address');
    expect(malformed.status).to.equal(400);
    expect(await malformed.text()).to.include('aria-invalid="true"');
  });
});
