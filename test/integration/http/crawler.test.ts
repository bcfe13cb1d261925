import { expect } from 'chai';
import type { Endpoint } from '../../../src/adapters/koa/endpoint.js';
import { startGatehouse, type RunningGatehouse } from '../../support/start-gatehouse.js';

/** A concrete URL for a route pattern: optional segments dropped, parameters filled. */
const concrete = (path: string) => path.replace(/\{[^}]*\}/g, '').replace(/:(\w+)/g, 'x');

function request(running: RunningGatehouse, endpoint: Endpoint): Promise<Response> {
  return fetch(running.url + concrete(endpoint.path), { method: endpoint.method, redirect: 'manual' });
}

function expectChallenged(endpoint: Endpoint, response: Response) {
  const label = `${endpoint.method} ${endpoint.path}`;
  if (endpoint.path.startsWith('/api/')) {
    expect(response.status, label).to.equal(401);
  } else {
    expect(response.status, label).to.equal(302);
    expect(response.headers.get('location'), label).to.match(/^\/Account\/Login\?returnUrl=/);
  }
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
});
