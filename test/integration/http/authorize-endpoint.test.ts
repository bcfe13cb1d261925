import { builtInProviders } from '../../../src/bootstrap/provider-catalogue.js';
import { expect } from 'chai';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApp } from '../../../src/adapters/koa/app.js';
import type { Endpoint } from '../../../src/adapters/koa/endpoint.js';
import { authorizeEndpoint } from '../../../src/adapters/koa/middleware/authorize-endpoint.js';
import { authorize } from '../../../src/domain/authorization/endpoint-metadata.js';
import { builtInPolicies } from '../../../src/domain/authorization/policies.js';
import { PolicyNames } from '../../../src/domain/authorization/policy-names.js';
import type { Principal } from '../../../src/domain/claims/principal.js';
import { defaultSettings } from '../../../src/domain/settings/default-settings.js';
import { RecordingAuditLog } from '../../support/recording-audit-log.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const user: Principal = {
  scheme: 'OpenIdConnect',
  claims: [{ type: 'application:subject', value: 'u', issuer: 'OpenIdConnect' }],
};

/** A page (not under /api/) that needs the administrator role; `x-as-user` stands in for a signed-in session. */
async function serve(challengeScheme: string, audit = new RecordingAuditLog()) {
  const page: Endpoint = {
    method: 'GET',
    path: '/reports',
    metadata: authorize(PolicyNames.AdministratorRole),
    handler: (ctx) => void (ctx.body = 'reports'),
  };
  const access = {
    requireAuthenticatedUserByDefault: true,
    authenticationEnabled: true,
    policies: builtInPolicies(defaultSettings(builtInProviders).Authorization),
  };
  const app = createApp({
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    production: false,
    showStackTraces: false,
    trustProxy: false,
    viewsDir: join(root, 'views'),
    publicDir: join(root, 'public'),
    applicationName: 'Gatehouse',
    formActionOrigins: [],
    endpoints: [page],
    // The principal an authenticate step would have set, from a test header.
    authorizeEndpoint: (endpoint) => {
      const check = authorizeEndpoint(
        endpoint,
        access,
        { challengeScheme, publicOrigin: '', now: () => Date.now() },
        audit,
      );
      return async (ctx, next) => {
        if (ctx.get('x-as-user') === 'yes') ctx.state.principal = user;
        return check ? check(ctx, next) : next();
      };
    },
  });
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const get = (headers: Record<string, string>) => fetch(`${url}/reports?x=1`, { headers, redirect: 'manual' });
  return { get, close: () => new Promise((r) => server.close(r)) };
}

describe('the per-endpoint authorization check on a page', () => {
  it('sends a signed-in browser that fails a policy to the access-denied page, and records access.denied', async () => {
    const audit = new RecordingAuditLog();
    const running = await serve('Cookies', audit);
    const response = await running.get({ 'x-as-user': 'yes', accept: 'text/html' });
    expect(response.status).to.equal(302);
    expect(response.headers.get('location')).to.equal('/Account/AccessDenied');
    expect(audit.events).to.have.length(1);
    expect(audit.events[0]).to.deep.include({
      type: 'access.denied',
      subject: 'u',
      policies: [PolicyNames.AdministratorRole],
    });
    expect(audit.events[0]?.request?.clientAddress).to.match(/127\.0\.0\.1/);
    // A challenge is no denial: an anonymous visitor records nothing.
    await running.get({ accept: 'text/html' });
    expect(audit.events).to.have.length(1);
    await running.close();
  });

  it('answers a JSON client on the same page with 401 / 403 problem details, never a redirect', async () => {
    const running = await serve('Cookies');
    const anonymous = await running.get({ accept: 'application/json' });
    expect(anonymous.status).to.equal(401);
    expect(await anonymous.json()).to.include({ code: 'auth.unauthenticated' });
    const forbidden = await running.get({ 'x-as-user': 'yes', accept: 'application/json' });
    expect(forbidden.status).to.equal(403);
    expect(forbidden.headers.get('location')).to.equal(null);
    await running.close();
  });

  it('challenges an anonymous browser with the default challenge scheme', async () => {
    const cookies = await serve('Cookies');
    expect((await cookies.get({ accept: 'text/html' })).headers.get('location')).to.equal(
      `/Account/Login?returnUrl=${encodeURIComponent('/reports?x=1')}`,
    );
    await cookies.close();
    const provider = await serve('OpenIdConnect');
    expect((await provider.get({ accept: 'text/html' })).headers.get('location')).to.equal(
      `/External/Challenge?provider=OpenIdConnect&returnUrl=${encodeURIComponent('/reports?x=1')}`,
    );
    await provider.close();
  });
});
