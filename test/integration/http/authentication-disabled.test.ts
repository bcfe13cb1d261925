import { expect } from 'chai';
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

  it('answers unannotated endpoints publicly', async () => {
    expect((await fetch(`${running.url}/`)).status).to.equal(200);
    expect((await fetch(`${running.url}/api/app-info`)).status).to.equal(200);
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
