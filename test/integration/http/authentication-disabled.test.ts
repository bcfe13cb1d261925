import { expect } from 'chai';
import { sessionStoreKey } from '../../../src/adapters/koa/session/session-token.js';
import { adminClaims, signIn } from '../../support/sign-in.js';
import { startGatehouse, type RunningGatehouse } from '../../support/start-gatehouse.js';

describe('the --authProvider none posture (authentication and fallback off)', () => {
  let running: RunningGatehouse;
  before(async () => {
    running = await startGatehouse({
      ProjectTemplate__Authentication__Enabled: 'false',
      ProjectTemplate__Authorization__RequireAuthenticatedUserByDefault: 'false',
    });
  });
  after(() => running.close());

  it('says so loudly at startup: a warning that unannotated endpoints are public', () => {
    const warnings = running.logs
      .map((line): unknown => JSON.parse(line))
      .filter(
        (line): line is { level: number; key: string; msg: string } =>
          typeof line === 'object' && line !== null && 'level' in line && line.level === 40,
      );
    expect(warnings.map((w) => w.key)).to.deep.equal([
      'ProjectTemplate:Authorization:RequireAuthenticatedUserByDefault',
    ]);
    expect(warnings[0]?.msg).to.match(
      /^warning: .*none posture.*every endpoint without authorization metadata is public/,
    );
  });

  it('answers unannotated endpoints publicly, and the starter page labels each link as it answers', async () => {
    const home = await fetch(`${running.url}/`);
    expect(home.status).to.equal(200);
    const html = await home.text();
    expect(html).to.contain(
      '<a href="/api/app-info">/api/app-info</a> <span class="muted">anyone: public, the fallback policy is off</span>',
    );
    expect(html).to.contain(
      '<a href="/api/app-info/admin">/api/app-info/admin</a> <span class="muted">administrator role: 403 while authentication is off</span>',
    );
    expect(html).not.to.contain('any signed-in user');
    expect((await fetch(`${running.url}/api/app-info`)).status).to.equal(200);
    // No session exists with authentication off: the sessions page lists none, and fails for nobody.
    const sessions = await fetch(`${running.url}/Account/Sessions`);
    expect(sessions.status).to.equal(200);
    expect(await sessions.text()).to.contain('No session is listed');
  });

  it('answers endpoints that demand authorization with 403, saying plainly that nobody can sign in', async () => {
    const api = await fetch(`${running.url}/api/app-info/admin`);
    expect(api.status).to.equal(403);
    expect(await api.json()).to.include({ code: 'auth.disabled' });
    const page = await fetch(`${running.url}/api/app-info/manage`, {
      headers: { accept: 'text/html' },
      redirect: 'manual',
    });
    expect(page.status).to.equal(403);
    const logout = await fetch(`${running.url}/Account/Logout`, {
      method: 'POST',
      headers: { accept: 'text/html' },
      redirect: 'manual',
    });
    expect(logout.status).to.equal(403);
    expect(await logout.text()).to.contain('Authentication is disabled');
  });

  it('reads no session: an old cookie whose record is still in the store signs nobody in and is left alone', async () => {
    const longAgo = Date.now() - 10 * 60_000;
    const old = await signIn(running.gatehouse, adminClaims, { times: { createdAt: longAgo, lastSeenAt: longAgo } });
    const before = await running.gatehouse.stores.sessions.get(sessionStoreKey(old.token));
    const page = await fetch(`${running.url}/`, { headers: { cookie: old.cookie, accept: 'text/html' } });
    expect(page.status).to.equal(200);
    expect(await page.text()).not.to.contain('Ada Admin');
    const admin = await fetch(`${running.url}/api/app-info/admin`, { headers: { cookie: old.cookie } });
    expect(admin.status).to.equal(403);
    expect(await admin.json()).to.include({ code: 'auth.disabled' });
    for (const response of [page, admin]) expect(response.headers.getSetCookie()).to.deep.equal([]);
    expect(await running.gatehouse.stores.sessions.get(sessionStoreKey(old.token)), 'not slid').to.deep.equal(before);
  });

  it('issues no cookie at all, even on the challenge path', async () => {
    for (const path of ['/', '/Account/Login', '/External/Challenge?provider=OpenIdConnect', '/api/app-info']) {
      const response = await fetch(`${running.url}${path}`, { redirect: 'manual' });
      expect(response.headers.getSetCookie(), path).to.deep.equal([]);
    }
  });

  it('explains on the login page that authentication is disabled', async () => {
    expect(await (await fetch(`${running.url}/Account/Login`)).text()).to.contain(
      'Authentication is disabled in this deployment',
    );
  });

  it('issues no session cookie on any endpoint, nor on a challenge attempt', async () => {
    const concrete = (path: string) => path.replace(/\{[^}]*\}/g, '').replace(/:(\w+)/g, 'x');
    const requests = [
      ...running.gatehouse.endpoints.map((e) => ({ method: e.method, path: concrete(e.path) })),
      { method: 'GET', path: '/External/Challenge?provider=OpenIdConnect&returnUrl=%2F' },
      { method: 'GET', path: '/styles.css' },
    ];
    expect(requests.length).to.be.greaterThan(10);
    for (const { method, path } of requests) {
      const response = await fetch(running.url + path, { method, redirect: 'manual' });
      expect(response.headers.getSetCookie(), `${method} ${path}`).to.deep.equal([]);
    }
  });
});
