import { expect } from 'chai';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApp } from '../../../src/adapters/koa/app.js';
import type { Endpoint } from '../../../src/adapters/koa/endpoint.js';
import { authorizeEndpoint } from '../../../src/adapters/koa/middleware/authorize-endpoint.js';
import { authorize } from '../../../src/domain/authorization/endpoint-metadata.js';
import {
  PolicyRegistry,
  definePolicy,
  requireAuthenticationContext,
  requireRecentAuthentication,
  requireRole,
} from '../../../src/domain/authorization/policies.js';
import type { Principal } from '../../../src/domain/claims/principal.js';
import { RecordingAuditLog } from '../../support/recording-audit-log.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const NOW = 1_800_000_000_000;
const SCHEME = 'Corp IdP';

/** Signed in with `scheme` an hour ago at the class `silver`, with the role `Payroll` when `payroll`. */
const principal = (payroll: boolean): Principal => ({
  scheme: SCHEME,
  claims: [
    { type: 'application:subject', value: 'u', issuer: SCHEME },
    { type: 'application:auth_time', value: String(NOW / 1000 - 3600), issuer: SCHEME },
    { type: 'application:acr', value: 'silver', issuer: SCHEME },
    ...(payroll ? [{ type: 'application:role', value: 'Payroll', issuer: SCHEME }] : []),
  ],
});

/**
 * How the authorization check answers a step_up decision, through the real Koa app: a
 * browser's GET and POST, an API client, and a caller who would be refused anyway. The
 * `x-as` header stands in for the signed-in session.
 */
describe('the answer to a step-up decision (authorize middleware)', () => {
  const audit = new RecordingAuditLog();
  const policies = new PolicyRegistry()
    .add(
      definePolicy(
        'payroll.Change',
        requireRole('application:role', ['Payroll']),
        requireRecentAuthentication(300),
        requireAuthenticationContext('gold', 'platinum'),
      ),
    )
    .add(definePolicy('plain'));
  const handler = (ctx: { body: unknown }) => void (ctx.body = 'done');
  const endpoints: Endpoint[] = [
    { method: 'GET', path: '/payroll', metadata: authorize('payroll.Change'), handler },
    { method: 'POST', path: '/payroll', metadata: authorize('payroll.Change'), handler },
    { method: 'GET', path: '/api/payroll', metadata: authorize('payroll.Change'), handler },
  ];
  let server: Server;
  let url: string;
  const publicOrigin = 'https://app.example';

  before(async () => {
    const app = createApp({
      logger: { debug() {}, info() {}, warn() {}, error() {} },
      production: false,
      showStackTraces: false,
      trustProxy: false,
      viewsDir: join(root, 'views'),
      publicDir: join(root, 'public'),
      applicationName: 'Gatehouse',
      formActionOrigins: [],
      endpoints,
      authorizeEndpoint: (endpoint) => {
        const check = authorizeEndpoint(
          endpoint,
          { requireAuthenticatedUserByDefault: true, authenticationEnabled: true, policies },
          { challengeScheme: 'Cookies', publicOrigin, now: () => NOW },
          audit,
        );
        return async (ctx, next) => {
          const as = ctx.get('x-as');
          if (as !== '') ctx.state.principal = principal(as === 'payroll');
          return check ? check(ctx, next) : next();
        };
      },
    });
    server = await new Promise((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    const address = server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  const request = (method: string, path: string, headers: Record<string, string>) =>
    fetch(`${url}${path}`, { method, headers: { 'x-as': 'payroll', ...headers }, redirect: 'manual' });
  const challengeOf = (response: Response) => {
    const location = new URL(response.headers.get('location') ?? '', 'https://app.example');
    return { path: location.pathname, ...Object.fromEntries(location.searchParams) };
  };

  it('sends a browser GET to the challenge of its own provider, back to the same URL', async () => {
    const response = await request('GET', '/payroll?month=11&x=%2F', { accept: 'text/html' });
    expect(response.status).to.equal(302);
    expect(challengeOf(response)).to.deep.equal({
      path: '/External/Challenge',
      provider: SCHEME,
      stepUp: 'payroll.Change',
      returnUrl: '/payroll?month=11&x=%2F',
    });
    expect(audit.ofType('access.denied').at(-1)).to.include({ code: 'auth.step_up_required' });
  });

  for (const [label, referer, returnUrl] of [
    ['the page it was posted from (same origin)', 'https://app.example/payroll/edit?id=7', '/payroll/edit?id=7'],
    ['the home page when the Referer is another site', 'https://evil.example/payroll', '/'],
    ['the home page without a Referer', undefined, '/'],
    ['the home page when the Referer is not a URL', 'not a url', '/'],
  ] as const) {
    it(`sends a browser POST back to ${label}`, async () => {
      const headers: Record<string, string> = {
        accept: 'text/html',
        'content-type': 'application/x-www-form-urlencoded',
      };
      if (referer !== undefined) headers.referer = referer;
      const response = await request('POST', '/payroll', headers);
      expect(response.status).to.equal(302);
      expect(challengeOf(response)).to.include({ path: '/External/Challenge', returnUrl });
    });
  }

  it('answers an API client 401 with the RFC 9470 challenge: age and classes, no redirect', async () => {
    const response = await request('GET', '/api/payroll', { accept: 'application/json' });
    expect(response.status).to.equal(401);
    expect(response.headers.get('location')).to.equal(null);
    const description =
      'This page needs a sign-in within the last 5 minutes and a sign-in at the assurance level gold or platinum.';
    expect(response.headers.get('www-authenticate')).to.equal(
      `Bearer error="insufficient_user_authentication", error_description="${description}", acr_values="gold platinum", max_age=300`,
    );
    expect(await response.json()).to.deep.include({
      status: 401,
      code: 'auth.step_up_required',
      detail: description,
      max_age: 300,
      acr_values: 'gold platinum',
    });
  });

  it('refuses (403), with no step-up, a caller the policy refuses for more than the sign-in', async () => {
    const api = await request('GET', '/api/payroll', { accept: 'application/json', 'x-as': 'other' });
    expect(api.status).to.equal(403);
    expect(api.headers.get('www-authenticate')).to.equal(null);
    const page = await request('GET', '/payroll', { accept: 'text/html', 'x-as': 'other' });
    expect(page.headers.get('location')).to.equal('/Account/AccessDenied');
  });
});
