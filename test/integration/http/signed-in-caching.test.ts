import { expect } from 'chai';
import { adminClaims, plainClaims, signIn } from '../../support/sign-in.js';
import { startGatehouse, type RunningGatehouse } from '../../support/start-gatehouse.js';

describe('answers to a signed-in user are never cached', () => {
  let running: RunningGatehouse;
  before(async () => {
    running = await startGatehouse();
  });
  after(() => running.close());

  it('says no-store on every answer produced for a signed-in principal: pages, JSON and problem details', async () => {
    const admin = await signIn(running.gatehouse, adminClaims);
    const user = await signIn(running.gatehouse, plainClaims);
    const cases: Array<[string, string, Record<string, string>, number]> = [
      ['/', admin.cookie, { accept: 'text/html' }, 200],
      ['/api/app-info', admin.cookie, {}, 200],
      ['/api/app-info/admin', admin.cookie, {}, 200],
      ['/api/app-info/admin', user.cookie, {}, 403],
      ['/Account/AccessDenied', user.cookie, { accept: 'text/html' }, 403],
      ['/Account/Login', user.cookie, { accept: 'text/html' }, 200],
      ['/no-such-page', user.cookie, { accept: 'text/html' }, 404],
    ];
    for (const [path, cookie, headers, status] of cases) {
      const response = await fetch(`${running.url}${path}`, { headers: { ...headers, cookie }, redirect: 'manual' });
      expect(response.status, path).to.equal(status);
      expect(response.headers.get('cache-control'), `${path} (${status})`).to.equal('no-store');
    }
  });

  it('leaves static files cacheable: they are served before any session is read', async () => {
    const admin = await signIn(running.gatehouse, adminClaims);
    const response = await fetch(`${running.url}/styles.css`, { headers: { cookie: admin.cookie } });
    expect(response.status).to.equal(200);
    expect(response.headers.get('cache-control')).to.not.equal('no-store');
  });
});
