import { expect } from 'chai';
import type { Endpoint } from '../../../src/adapters/koa/endpoint.js';
import type { ProjectTemplateSettings } from '../../../src/domain/settings/settings.js';
import { startGatehouse, startGatehouseAsConfigured, type RunningGatehouse } from '../../support/start-gatehouse.js';

/** A concrete URL for a route pattern: optional segments dropped, parameters filled. */
const concrete = (path: string) => path.replace(/\{[^}]*\}/g, '').replace(/:(\w+)/g, 'x');

function request(running: RunningGatehouse, endpoint: Endpoint): Promise<Response> {
  return fetch(running.url + concrete(endpoint.path), { method: endpoint.method, redirect: 'manual' });
}

function expectChallenged(endpoint: Endpoint, response: Response, challengeScheme = 'Cookies') {
  const label = `${endpoint.method} ${endpoint.path}`;
  if (endpoint.path.startsWith('/api/')) {
    expect(response.status, label).to.equal(401);
  } else {
    expect(response.status, label).to.equal(302);
    const challenge =
      challengeScheme === 'Cookies'
        ? '/Account/Login?returnUrl='
        : `/External/Challenge?provider=${encodeURIComponent(challengeScheme)}&returnUrl=`;
    const location = response.headers.get('location') ?? '';
    expect(location.startsWith(challenge), `${label} redirects to ${location}, not ${challenge}...`).to.equal(true);
  }
}

/**
 * What an anonymous request to an endpoint must get under a posture (docs: Authorization
 * rules 2-4; with authentication off nobody can sign in, so what needs a user is refused).
 */
function expectedForAnonymous(endpoint: Endpoint, settings: ProjectTemplateSettings) {
  if (endpoint.metadata?.kind === 'anonymous') return 'anonymous';
  const needsUser = endpoint.metadata !== undefined || settings.Authorization.RequireAuthenticatedUserByDefault;
  if (!needsUser) return 'public';
  return settings.Authentication.Enabled ? 'challenged' : 'refused: authentication is off';
}

describe('crawler: every endpoint without anonymous metadata', () => {
  describe('with the authenticated fallback (default)', () => {
    let running: RunningGatehouse;
    before(async () => (running = await startGatehouse()));
    after(() => running.close());

    it('challenges an anonymous request', async () => {
      const protectedEndpoints = running.gatehouse.endpoints.filter((e) => e.metadata?.kind !== 'anonymous');
      expect(protectedEndpoints.length).to.be.greaterThan(4);
      for (const endpoint of protectedEndpoints) expectChallenged(endpoint, await request(running, endpoint));
    });

    it('keeps the original local path and query as returnUrl', async () => {
      const response = await fetch(`${running.url}/?tab=claims&x=1`, { redirect: 'manual' });
      expect(response.headers.get('location')).to.equal(
        `/Account/Login?returnUrl=${encodeURIComponent('/?tab=claims&x=1')}`,
      );
    });
  });

  describe('with RequireAuthenticatedUserByDefault=false', () => {
    let running: RunningGatehouse;
    before(
      async () =>
        (running = await startGatehouse({
          ProjectTemplate__Authorization__RequireAuthenticatedUserByDefault: 'false',
        })),
    );
    after(() => running.close());

    it('answers the unannotated endpoints and still refuses the annotated ones', async () => {
      const endpoints = running.gatehouse.endpoints.filter((e) => e.metadata?.kind !== 'anonymous');
      const unannotated = endpoints.filter((e) => e.metadata === undefined);
      const annotated = endpoints.filter((e) => e.metadata?.kind === 'authorize');
      expect(unannotated.map((e) => e.path)).to.include.members(['/', '/api/app-info']);
      expect(annotated.map((e) => e.path)).to.include.members([
        '/api/app-info/admin',
        '/api/app-info/manage',
        '/Account/Logout',
      ]);
      for (const endpoint of unannotated)
        expect((await request(running, endpoint)).status, endpoint.path).to.equal(200);
      for (const endpoint of annotated) expectChallenged(endpoint, await request(running, endpoint));
    });
  });

  describe("under this project's configured posture (config/appsettings.json)", () => {
    let running: RunningGatehouse;
    before(async () => (running = await startGatehouseAsConfigured()));
    after(() => running?.close());

    it('answers every endpoint as that posture says: challenged, public, or refused because authentication is off', async () => {
      const { settings, endpoints } = running.gatehouse;
      const outcomes = endpoints.map((endpoint) => expectedForAnonymous(endpoint, settings));
      // Whatever the posture, something is checked: Gatehouse ships annotated endpoints.
      expect(outcomes.filter((outcome) => outcome !== 'anonymous').length).to.be.greaterThan(2);
      for (const [index, endpoint] of endpoints.entries()) {
        const response = await request(running, endpoint);
        const label = `${endpoint.method} ${endpoint.path} (${outcomes[index]})`;
        if (outcomes[index] === 'challenged')
          expectChallenged(endpoint, response, settings.Authentication.DefaultChallengeScheme);
        if (outcomes[index] === 'public') expect(response.status, label).to.equal(200);
        if (outcomes[index] === 'refused: authentication is off') {
          expect(response.status, label).to.equal(403);
          expect(await response.text(), label).to.contain('auth.disabled');
        }
        // With authentication off no session cookie is ever issued (the --authProvider none posture).
        if (!settings.Authentication.Enabled) expect(response.headers.getSetCookie(), label).to.deep.equal([]);
      }
    });
  });
});
