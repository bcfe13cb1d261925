import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findProjectRoot } from '../../../src/bootstrap/project-root.js';
import { adminClaims, plainClaims, signIn } from '../../support/sign-in.js';
import { startGatehouse, type RunningGatehouse } from '../../support/start-gatehouse.js';

const OIDC = 'ProjectTemplate__Authentication__Providers__OpenIdConnect__';
const CLIENT_SECRET = 'client-secret-sentinel-5f1e';
const REDIS_URL = 'redis://:redis-password-sentinel-77aa@127.0.0.1:1';

function page(running: RunningGatehouse, path: string, cookie = '') {
  return fetch(running.url + path, { headers: { cookie, accept: 'text/html' }, redirect: 'manual' });
}

/** The Cookie header a browser would send after these Set-Cookie headers (values only, attributes dropped). */
function cookiesFrom(response: Response): string {
  return response.headers
    .getSetCookie()
    .map((header) => header.split(';')[0] ?? '')
    .join('; ');
}

describe('pages', () => {
  let running: RunningGatehouse;
  before(async () => {
    running = await startGatehouse({
      // A registered provider (never contacted here) so pages can name it by DisplayName,
      // and secret settings whose values must never reach a page.
      ProjectTemplate__Hosting__PublicOrigin: 'http://127.0.0.1:1',
      [`${OIDC}Enabled`]: 'true',
      [`${OIDC}DisplayName`]: 'Example Identity',
      [`${OIDC}Authority`]: 'http://127.0.0.1:1',
      [`${OIDC}ClientId`]: 'gatehouse',
      [`${OIDC}ClientSecret`]: CLIENT_SECRET,
      ProjectTemplate__Session__Redis__Url: REDIS_URL,
    });
  });
  after(() => running.close());

  describe('GET /Admin (application.Role.Administrator)', () => {
    it('shows an administrator the administration page, without any secret setting', async () => {
      const { cookie } = await signIn(running.gatehouse, adminClaims);
      const response = await page(running, '/Admin', cookie);
      expect(response.status).to.equal(200);
      expect(response.headers.get('cache-control')).to.equal('no-store');
      const html = await response.text();
      expect(html).to.contain('<h1>Administration</h1>');
      expect(html).to.contain('<span class="provider-name">Example Identity</span>');
      expect(html).to.contain('<strong>Administrator</strong>');
      expect(html).to.contain('a claim of type <code>application:role</code> whose value is one of');
      for (const secret of [CLIENT_SECRET, 'redis-password-sentinel-77aa', REDIS_URL])
        expect(html).not.to.contain(secret);
    });

    it('sends a signed-in user without the role to the access-denied page, and an API client gets a 403', async () => {
      const { cookie } = await signIn(running.gatehouse, plainClaims);
      const response = await page(running, '/Admin', cookie);
      expect(response.status).to.equal(302);
      expect(response.headers.get('location')).to.equal('/Account/AccessDenied');
      const json = await fetch(`${running.url}/Admin`, { headers: { cookie, accept: 'application/json' } });
      expect(json.status).to.equal(403);
      expect(await json.json()).to.include({ code: 'auth.forbidden' });
    });

    it('challenges an anonymous browser', async () => {
      const response = await page(running, '/Admin');
      expect(response.status).to.equal(302);
      expect(response.headers.get('location')).to.equal('/Account/Login?returnUrl=%2FAdmin');
    });
  });

  describe('the starter page', () => {
    it('names the provider by its DisplayName and links administrators to /Admin', async () => {
      const { cookie } = await signIn(running.gatehouse, adminClaims, { scheme: 'OpenIdConnect' });
      const html = await (await page(running, '/', cookie)).text();
      expect(html).to.contain('You signed in with <strong class="provider-name">Example Identity</strong>');
      expect(html).to.contain('<a class="button" href="/Admin">Open the administration page</a>');
      expect(html).to.contain(
        '<a href="/api/app-info">/api/app-info</a> <span class="muted">any signed-in user</span>',
      );
      expect(html).to.contain('<span class="muted">administrator role</span>');
    });

    it('shows application:auth_time as a readable UTC time beside its epoch seconds', async () => {
      const claims: Array<[string, string]> = [...plainClaims, ['application:auth_time', '1795906743']];
      const { cookie } = await signIn(running.gatehouse, claims, { scheme: 'OpenIdConnect' });
      const html = await (await page(running, '/', cookie)).text();
      expect(html).to.contain(
        '<code>application:auth_time</code></td><td>1795906743 <span class="muted">(2026-11-28 22:59:03 UTC)</span>',
      );
    });

    it('offers no administration button to a user without the role', async () => {
      const { cookie } = await signIn(running.gatehouse, plainClaims, { scheme: 'OpenIdConnect' });
      const html = await (await page(running, '/', cookie)).text();
      expect(html).to.contain('Welcome, Uma User');
      expect(html).not.to.contain('Open the administration page');
    });
  });

  describe('the sign-out notice', () => {
    const SIGNED_OUT = 'You have been signed out.';

    async function signOut(): Promise<Response> {
      const { cookie, csrf } = await signIn(running.gatehouse, plainClaims, { scheme: 'OpenIdConnect' });
      return fetch(`${running.url}/Account/Logout`, {
        method: 'POST',
        redirect: 'manual',
        // The origin forms must come from is the configured PublicOrigin.
        headers: { cookie, origin: 'http://127.0.0.1:1', 'content-type': 'application/x-www-form-urlencoded' },
        body: `_csrf=${encodeURIComponent(csrf)}`,
      });
    }

    it('appears on the login page after a logout, once', async () => {
      const logout = await signOut();
      expect(logout.headers.get('location')).to.equal('/Account/Login');
      const login = await page(running, '/Account/Login', cookiesFrom(logout));
      expect(login.status).to.equal(200);
      expect(login.headers.get('cache-control')).to.equal('no-store');
      expect(await login.text()).to.contain(`<p class="notice success" role="status">${SIGNED_OUT}</p>`);
      // Used up: the cookie is cleared by the page that showed it.
      expect(login.headers.getSetCookie()).to.have.lengthOf(1);
      expect(login.headers.getSetCookie()[0]).to.match(/^gatehouse\.sid\.signedout=;.*expires=Thu, 01 Jan 1970/);
      expect(await (await page(running, '/Account/Login')).text()).not.to.contain(SIGNED_OUT);
    });

    it('cannot be produced from outside: no query flag shows it, an unknown cookie value shows nothing and nothing is reflected', async () => {
      for (const path of ['/Account/Login?signedOut=1', '/Account/Login?signedout=true&message=%3Cb%3Ehi%3C%2Fb%3E']) {
        const html = await (await page(running, path)).text();
        expect(html, path).not.to.contain(SIGNED_OUT);
        expect(html, path).not.to.contain('<b>hi</b>');
      }
      const forged = await page(running, '/Account/Login', 'gatehouse.sid.signedout=%3Cscript%3E');
      const forgedHtml = await forged.text();
      expect(forgedHtml).not.to.contain(SIGNED_OUT);
      expect(forgedHtml).not.to.contain('<script>');
      expect(forged.headers.getSetCookie()[0], 'a forged value is cleared too').to.match(
        /^gatehouse\.sid\.signedout=;/,
      );
    });

    it('is not shown to a browser that is signed in again, and is used up all the same', async () => {
      const { cookie } = await signIn(running.gatehouse, adminClaims);
      const login = await page(running, '/Account/Login', `${cookie}; gatehouse.sid.signedout=1`);
      const html = await login.text();
      expect(html).to.contain('You are already signed in as');
      expect(html).not.to.contain(SIGNED_OUT);
      expect(login.headers.getSetCookie().join('\n')).to.match(/^gatehouse\.sid\.signedout=;/m);
    });
  });

  it('serves /favicon.ico from public/ (browsers ask for it on every page that is not HTML)', async () => {
    const response = await fetch(`${running.url}/favicon.ico`);
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.match(/^image\/(x-icon|vnd\.microsoft\.icon)$/);
    const bytes = new Uint8Array(await response.arrayBuffer());
    expect([...bytes.slice(0, 4)], 'ICO header: reserved 0, type 1 (icon)').to.deep.equal([0, 0, 1, 0]);
  });
});

describe('the login page with no provider registered', () => {
  const loginHtml = async (env: Record<string, string>) => {
    const running = await startGatehouse(env);
    try {
      return await (await page(running, '/Account/Login')).text();
    } finally {
      await running.close();
    }
  };

  it('says nobody can sign in, points at npm run demo and at each provider page in docs/, one key a line', async () => {
    const html = await loginHtml({});
    expect(html).to.contain('No sign-in provider is configured yet, so nobody can sign in.');
    expect(html).to.contain('<code>npm run demo</code>');
    for (const doc of ['openid-connect.md', 'saml2.md', 'social.md'])
      expect(html).to.contain(`<code>docs/<wbr>providers/<wbr>${doc}</code>`);
    const lines = [...html.matchAll(/<span class="line">(.*?)<\/span>/g)].map((match) =>
      match[1]?.replace(/<wbr>/g, ''),
    );
    expect(lines).to.deep.equal([
      'ProjectTemplate__Authentication__Providers__OpenIdConnect__Enabled=true',
      'ProjectTemplate__Authentication__Providers__OpenIdConnect__Authority=https://your-provider.example',
      'ProjectTemplate__Authentication__Providers__OpenIdConnect__ClientId=…',
      'ProjectTemplate__Authentication__Providers__OpenIdConnect__ClientSecret=…',
    ]);
  });

  it("carries the application's name from package.json (displayName, else name) in its title, header and footer", async () => {
    const manifest: unknown = JSON.parse(readFileSync(join(findProjectRoot(), 'package.json'), 'utf8'));
    const name =
      typeof manifest === 'object' && manifest !== null && 'displayName' in manifest
        ? String(manifest.displayName)
        : typeof manifest === 'object' && manifest !== null && 'name' in manifest
          ? String(manifest.name)
          : expect.fail('package.json has no name');
    const html = await loginHtml({});
    expect(html).to.contain(`<title>Sign in · ${name}</title>`);
    expect(html).to.contain(`<span class="brand-mark" aria-hidden="true">◆</span> ${name}</a>`);
    expect(html).to.contain(`<footer class="footer">${name} · `);
  });

  it('in production names the keys and the docs, not the demo (a deployment has none)', async () => {
    const html = await loginHtml({
      NODE_ENV: 'production',
      ProjectTemplate__Hosting__PublicOrigin: 'https://app.example.com',
      ProjectTemplate__Hosting__TrustProxy: 'true',
    });
    expect(html).to.contain('No sign-in provider is configured yet').and.contain('docs/<wbr>providers/');
    expect(html).not.to.contain('npm run demo');
  });
});
