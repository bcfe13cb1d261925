import { expect } from 'chai';
import { packageName } from '../../support/package-name.js';
import { adminClaims, plainClaims, signIn } from '../../support/sign-in.js';
import { startGatehouse, startGatehouseAsConfigured, type RunningGatehouse } from '../../support/start-gatehouse.js';

async function get(running: RunningGatehouse, path: string, cookie: string, accept = 'application/json') {
  return fetch(running.url + path, { headers: { cookie, accept }, redirect: 'manual' });
}

describe('named policies through HTTP', () => {
  describe("under this project's configured posture (config/appsettings.json)", () => {
    let running: RunningGatehouse;
    before(async () => (running = await startGatehouseAsConfigured()));
    after(() => running?.close());

    // The status with authentication on. With it off (--authProvider none) nobody is signed
    // in, whatever cookie arrives: endpoints that demand authorization answer 403
    // auth.disabled, and unannotated ones are public.
    const cases: Array<[string, 'admin' | 'plain', number]> = [
      ['/api/app-info', 'admin', 200],
      ['/api/app-info', 'plain', 200],
      ['/api/app-info/admin', 'admin', 200],
      ['/api/app-info/admin', 'plain', 403],
      ['/api/app-info/manage', 'admin', 200],
      ['/api/app-info/manage', 'plain', 403],
    ];
    for (const [path, who, statusWhenOn] of cases) {
      it(`${path} as the ${who} user answers as the posture says (${statusWhenOn} with authentication on)`, async () => {
        const { settings, endpoints } = running.gatehouse;
        const endpoint = endpoints.find((e) => e.method === 'GET' && e.path === path);
        expect(endpoint, `GET ${path} is routed`).to.not.equal(undefined);
        const annotated = endpoint?.metadata?.kind === 'authorize';
        const { cookie } = await signIn(running.gatehouse, who === 'admin' ? adminClaims : plainClaims);
        const response = await get(running, path, cookie);
        if (settings.Authentication.Enabled) {
          expect(response.status).to.equal(statusWhenOn);
          if (statusWhenOn === 403) expect(await response.json()).to.include({ status: 403, code: 'auth.forbidden' });
        } else if (annotated) {
          expect(response.status).to.equal(403);
          expect(await response.json()).to.include({ status: 403, code: 'auth.disabled' });
        } else {
          expect(response.status).to.equal(200);
        }
      });
    }
  });

  describe('for signed-in users (authentication on, the default claim types)', () => {
    let running: RunningGatehouse;
    before(async () => (running = await startGatehouse()));
    after(() => running.close());

    it('refuses an /api/ path with 403 even for a browser, and the access-denied page itself never redirects', async () => {
      const { cookie } = await signIn(running.gatehouse, plainClaims);
      const response = await get(running, '/api/app-info/admin', cookie, 'text/html');
      expect(response.status).to.equal(403); // /api/ paths never redirect, even for browsers
      const denied = await fetch(`${running.url}/Account/AccessDenied`, { headers: { cookie }, redirect: 'manual' });
      expect(denied.status).to.equal(403);
      expect(denied.headers.get('location')).to.equal(null);
      expect(await denied.text()).to.contain('Access denied');
    });

    it('returns app information as JSON', async () => {
      const { cookie } = await signIn(running.gatehouse, plainClaims);
      const response = await get(running, '/api/app-info', cookie);
      expect(response.headers.get('content-type')).to.equal('application/json; charset=utf-8');
      expect(response.headers.get('content-length')).to.equal(
        String((await response.clone().arrayBuffer()).byteLength),
      );
      const body = (await response.json()) as Record<string, unknown>;
      expect(body).to.include({ name: packageName, environment: 'test' });
      expect(body.uptimeSeconds).to.be.a('number');
    });

    it('shows the starter page with the name, normalized claims, satisfied policies and a logout form', async () => {
      const { cookie, csrf } = await signIn(running.gatehouse, adminClaims);
      const html = await (await get(running, '/', cookie, 'text/html')).text();
      expect(html).to.contain('Welcome, Ada Admin');
      expect(html).to.contain('<code>application:role</code></td><td>Administrator');
      expect(html).to.contain('<li class="tag" title="satisfied">application.<wbr>Role.<wbr>Administrator</li>');
      expect(html).to.contain(`name="_csrf" value="${csrf}"`);
      const plain = await signIn(running.gatehouse, plainClaims);
      const plainHtml = await (await get(running, '/', plain.cookie, 'text/html')).text();
      expect(plainHtml).to.contain(
        '<li class="tag off" title="not satisfied">application.<wbr>Role.<wbr>Administrator</li>',
      );
    });
  });

  describe('with custom claim types and several administrator roles', () => {
    let running: RunningGatehouse;
    before(async () => {
      running = await startGatehouse({
        ProjectTemplate__Authorization__RoleClaimType: 'roles',
        ProjectTemplate__Authorization__PermissionClaimType: 'scp',
        ProjectTemplate__Authorization__AdministratorRoles__0: 'Owner',
        ProjectTemplate__Authorization__AdministratorRoles__1: 'SuperUser',
        ProjectTemplate__Authorization__ManageApplicationPermissions__0: 'app.write',
      });
    });
    after(() => running.close());

    const cases: Array<[string, Array<[string, string]>, number]> = [
      ['/api/app-info/admin', [['roles', 'SuperUser']], 200],
      ['/api/app-info/admin', [['roles', 'Owner']], 200],
      ['/api/app-info/admin', [['application:role', 'Administrator']], 403],
      ['/api/app-info/admin', [['roles', 'owner']], 403],
      ['/api/app-info/manage', [['scp', 'app.write']], 200],
      ['/api/app-info/manage', [['application:permission', 'application.manage']], 403],
    ];
    for (const [path, claims, status] of cases) {
      it(`${path} with ${JSON.stringify(claims)} answers ${status}`, async () => {
        const { cookie } = await signIn(running.gatehouse, [['application:subject', 's'], ...claims]);
        expect((await get(running, path, cookie)).status).to.equal(status);
      });
    }
  });
});
