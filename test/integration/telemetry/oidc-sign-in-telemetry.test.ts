import { expect } from 'chai';
import { SpanKind } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { DemoIdentityProvider } from '../../../scripts/demo-identity-provider.js';
import { ALLOWED_ATTRIBUTE_KEYS } from '../../../src/adapters/telemetry/instruments.js';
import { freePort, startIdentityProvider, startOidcApp, TestBrowser, type OidcApp } from '../../support/oidc-app.js';
import type { AuditEvent } from '../../../src/application/ports/audit-log.js';
import { plainClaims, signIn } from '../../support/sign-in.js';
import { startGatehouse } from '../../support/start-gatehouse.js';
import { telemetryReaders, total } from '../../support/telemetry-readers.js';

const TELEMETRY_ON = {
  ProjectTemplate__Telemetry__Enabled: 'true',
  ProjectTemplate__Telemetry__PrometheusPort: '0',
};

/**
 * Telemetry through whole OpenID Connect sign-ins against a real provider (oidc-provider),
 * read with the SDK's in-memory reader and span exporter: which counter moves on which
 * path, the spans' parent/child structure, and that no attribute carries personal data.
 */
describe('Telemetry: OpenID Connect sign-ins', function () {
  this.timeout(20_000);
  let idp: DemoIdentityProvider;
  let app: OidcApp;
  let readers: ReturnType<typeof telemetryReaders>;

  beforeEach(async () => {
    const port = await freePort();
    // The provider on another loopback address, so the client's address (127.0.0.1) is a sentinel.
    idp = await startIdentityProvider([`http://127.0.0.1:${port}`], undefined, { host: '127.0.0.2' });
    readers = telemetryReaders();
    app = await startOidcAppWith(idp.issuer, port, readers);
  });

  afterEach(async () => {
    await app.close();
    await idp.close();
  });

  it('counts a completed sign-in, its challenge and its callback duration, and nothing as failed', async () => {
    const browser = new TestBrowser();
    const answer = await browser.signIn(app.url, 'user');
    expect(answer.status).to.equal(302);

    const points = await readers.points();
    const provider = { provider: 'OpenIdConnect' };
    expect(total(points, 'gatehouse.authentication.challenges', { ...provider, outcome: 'redirected' })).to.equal(1);
    expect(total(points, 'gatehouse.authentication.sign_ins', { ...provider, outcome: 'success' })).to.equal(1);
    expect(total(points, 'gatehouse.authentication.sign_ins', { outcome: 'failure' })).to.equal(0);
    expect(total(points, 'gatehouse.authentication.callback.duration', { ...provider, outcome: 'success' })).to.equal(
      1,
    );
    expect(
      total(points, 'gatehouse.identity_provider.request.duration', {
        ...provider,
        endpoint: 'token',
        outcome: 'success',
      }),
    ).to.equal(1);
    expect(total(points, 'gatehouse.identity_provider.request.duration', { endpoint: 'discovery' })).to.equal(1);
    expect(total(points, 'http.server.request.duration', { 'http.route': '/signin-oidc' })).to.equal(1);
    expect(total(points, 'http.server.request.duration', { 'http.route': '/External/Challenge' })).to.equal(1);
    // The memory store's calls are map lookups: neither timed nor traced (redis-store-telemetry.test.ts has Redis's).
    expect(total(points, 'gatehouse.session_store.operation.duration')).to.equal(0);
  });

  it('counts a refused callback as a failed sign-in with its code', async () => {
    const browser = new TestBrowser();
    const callback = await browser.startSignIn(app.url, 'user');
    callback.searchParams.set('state', 'not-the-state');
    const answer = await browser.get(callback.href);
    expect(answer.status).to.be.greaterThanOrEqual(400);

    const points = await readers.points();
    const failures = points.filter(
      (p) => p.metric === 'gatehouse.authentication.sign_ins' && p.attributes.outcome === 'failure',
    );
    expect(failures).to.have.length(1);
    expect(failures[0]?.attributes).to.deep.include({ provider: 'OpenIdConnect', 'error.type': 'idp.flow_missing' });
    expect(total(points, 'gatehouse.authentication.sign_ins', { outcome: 'success' })).to.equal(0);
  });

  it('makes the provider requests of a callback children of its server span', async () => {
    await new TestBrowser().signIn(app.url, 'user');
    const spans = readers.spans();
    const callback = spans.find((s) => s.kind === SpanKind.SERVER && s.attributes['http.route'] === '/signin-oidc');
    expect(callback, 'the callback request has a server span').to.not.equal(undefined);
    const server = callback as ReadableSpan;
    expect(server.name).to.equal('GET /signin-oidc');
    const children = spans.filter((s) => s.parentSpanContext?.spanId === server.spanContext().spanId);
    const names = children.map((s) => s.name);
    expect(names).to.include('identity_provider.token');
    for (const child of children) expect(child.spanContext().traceId).to.equal(server.spanContext().traceId);
    const token = children.find((s) => s.name === 'identity_provider.token');
    expect(token?.kind).to.equal(SpanKind.CLIENT);
    expect(token?.attributes['http.response.status_code']).to.equal(200);
  });

  it('carries the active span in the log lines of a request', async () => {
    await new TestBrowser().signIn(app.url, 'user');
    const server = readers
      .spans()
      .find((s) => s.kind === SpanKind.SERVER && s.attributes['http.route'] === '/signin-oidc');
    const audit = app.logs
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((l) => l.event === 'signin.succeeded');
    expect(audit?.trace_id).to.equal(server?.spanContext().traceId);
    expect(audit?.span_id).to.match(/^[0-9a-f]{16}$/);
  });

  it('exports no attribute outside the bounded set, and no personal value or secret anywhere', async () => {
    const browser = new TestBrowser();
    await browser.signIn(app.url, 'user', '/Account/Sessions?mail=sentinel');
    const admin = await browser.get(`${app.url}/Admin`);
    expect(admin.status).to.be.oneOf([302, 403]);
    const token = browser.sessionToken(app.url);
    expect(token).to.be.a('string');

    const points = await readers.points();
    const spans = readers.spans();
    const keys = new Set([
      ...points.flatMap((p) => Object.keys(p.attributes)),
      ...spans.flatMap((s) => Object.keys(s.attributes)),
    ]);
    const unexpected = [...keys].filter((key) => !ALLOWED_ATTRIBUTE_KEYS.has(key));
    expect(unexpected, 'attribute keys outside the allowed set').to.deep.equal([]);
    expect(total(points, 'gatehouse.authorization.attempts', { result: 'denied' })).to.equal(1);

    const exported = JSON.stringify({
      points,
      spans: spans.map((s) => ({ name: s.name, attributes: s.attributes, events: s.events, status: s.status })),
    });
    // The demo user's login is the word `user`, which attribute names hold too: its e-mail and name stand for it.
    const user = idp.users.user;
    for (const sentinel of [user?.email, user?.name, token, '127.0.0.1', 'sentinel', 'code=', 'state=']) {
      expect(exported, `${String(sentinel)} in exported telemetry`).to.not.include(String(sentinel));
    }
  });
});

describe('Telemetry: the trace context of an incoming request', function () {
  this.timeout(20_000);
  const parent = '0af7651916cd43dd8448eb211c80319c';
  const traceparent = `00-${parent}-b7ad6b7169203331-01`;

  for (const trustProxy of [true, false]) {
    it(`${trustProxy ? 'follows' : 'ignores'} traceparent when Hosting:TrustProxy is ${String(trustProxy)}`, async () => {
      const readers = telemetryReaders();
      const running = await startGatehouse(
        { ...TELEMETRY_ON, ProjectTemplate__Hosting__TrustProxy: String(trustProxy) },
        { telemetry: readers.parts },
      );
      try {
        await fetch(`${running.url}/`, { headers: { traceparent } });
        const server = readers.spans().find((s) => s.kind === SpanKind.SERVER);
        expect(server?.spanContext().traceId === parent).to.equal(trustProxy);
        expect(server?.parentSpanContext?.spanId === 'b7ad6b7169203331').to.equal(trustProxy);
      } finally {
        await running.close();
      }
    });
  }
});

describe("Telemetry: an application's own AuditLog", function () {
  this.timeout(20_000);

  for (const sampled of [true, false]) {
    it(`gets the request's trace and server span ids on an event${sampled ? '' : ': none for a request left out'}`, async () => {
      const readers = telemetryReaders();
      const events: AuditEvent[] = [];
      const running = await startGatehouse(
        { ...TELEMETRY_ON, ...(sampled ? {} : { OTEL_TRACES_SAMPLER: 'always_off' }) },
        { telemetry: readers.parts, auditLog: { record: (event) => events.push(event) } },
      );
      try {
        const { cookie } = await signIn(running.gatehouse, plainClaims);
        const admin = await fetch(`${running.url}/Admin`, { headers: { cookie, accept: 'application/json' } });
        expect(admin.status).to.equal(403);
        const denied = events.find((event) => event.type === 'access.denied');
        const server = readers
          .spans()
          .find((s) => s.kind === SpanKind.SERVER && s.attributes['http.route'] === '/Admin');
        if (sampled) {
          expect(denied?.request?.trace).to.deep.equal({
            traceId: server?.spanContext().traceId,
            spanId: server?.spanContext().spanId,
          });
        } else {
          expect(server).to.equal(undefined);
          expect(denied?.request).to.not.equal(undefined);
          expect(denied?.request?.trace).to.equal(undefined);
        }
      } finally {
        await running.close();
      }
    });
  }
});

describe('Telemetry: a request the sampler leaves out', function () {
  this.timeout(20_000);

  it('records no span and puts no trace ids in its log lines, and is measured all the same', async () => {
    const readers = telemetryReaders();
    const running = await startGatehouse(
      { ...TELEMETRY_ON, OTEL_TRACES_SAMPLER: 'always_off' },
      { telemetry: readers.parts },
    );
    try {
      expect((await fetch(`${running.url}/Account/Login`)).status).to.equal(200);
      expect(readers.spans()).to.deep.equal([]);
      const line = running.logs.find((l) => l.includes('"msg":"request"') && l.includes('/Account/Login'));
      expect(line).to.be.a('string').and.not.include('trace_id');
      const points = await readers.points();
      expect(total(points, 'http.server.request.duration', { 'http.route': '/Account/Login' })).to.equal(1);
    } finally {
      await running.close();
    }
  });
});

function startOidcAppWith(issuer: string, port: number, readers: ReturnType<typeof telemetryReaders>) {
  return startOidcApp(issuer, port, TELEMETRY_ON, { telemetry: readers.parts });
}
