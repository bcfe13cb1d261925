import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { SpanKind } from '@opentelemetry/api';
import { ALLOWED_ATTRIBUTE_KEYS } from '../../../src/adapters/telemetry/instruments.js';
import type { DemoIdentityProvider } from '../../../scripts/demo-identity-provider.js';
import { freePort, startIdentityProvider, startOidcApp, TestBrowser, type OidcApp } from '../../support/oidc-app.js';
import { adminClaims, signIn } from '../../support/sign-in.js';
import { startGatehouse, type RunningGatehouse } from '../../support/start-gatehouse.js';
import { TcpProxy } from '../../support/tcp-proxy.js';
import { telemetryReaders, total } from '../../support/telemetry-readers.js';

const redisUrl = process.env.REDIS_URL ?? '';
const redisEnv = (url: string) => ({
  ProjectTemplate__Session__Store: 'Redis',
  ProjectTemplate__Session__Redis__Url: url,
  ProjectTemplate__Session__Redis__KeyPrefix: `gatehouse-test:${randomUUID()}:`,
  ProjectTemplate__Telemetry__Enabled: 'true',
});

/** The store's calls as telemetry sees them: on Redis, each a client span and a duration; an outage, failures with their code. */
if (!redisUrl)
  it.skip('Telemetry of the Redis store (skipped: REDIS_URL is not set; e.g. REDIS_URL=redis://127.0.0.1:6379)');
else
  describe('Telemetry of the Redis store', function () {
    this.timeout(20_000);

    describe('a sign-in', () => {
      let idp: DemoIdentityProvider;
      let app: OidcApp;
      let readers: ReturnType<typeof telemetryReaders>;
      before(async () => {
        const port = await freePort();
        idp = await startIdentityProvider([`http://127.0.0.1:${port}`]);
        readers = telemetryReaders();
        app = await startOidcApp(idp.issuer, port, redisEnv(redisUrl), { telemetry: readers.parts });
      });
      after(async () => {
        await app.close();
        await idp.close();
      });

      it("makes the callback's store calls and provider requests children of its server span", async () => {
        expect((await new TestBrowser().signIn(app.url, 'user')).status).to.equal(302);
        const spans = readers.spans();
        const server = spans.find((s) => s.kind === SpanKind.SERVER && s.attributes['http.route'] === '/signin-oidc');
        expect(server, 'the callback has a server span').to.not.equal(undefined);
        const children = spans.filter((s) => s.parentSpanContext?.spanId === server?.spanContext().spanId);
        const names = children.map((s) => s.name);
        expect(names).to.include.members(['identity_provider.token', 'session_store.take', 'session_store.create']);
        for (const child of children) expect(child.spanContext().traceId).to.equal(server?.spanContext().traceId);
        const store = children.find((s) => s.name === 'session_store.create');
        expect(store?.kind).to.equal(SpanKind.CLIENT);
        expect(store?.attributes).to.deep.equal({ store: 'sessions', operation: 'create' });

        const points = await readers.points();
        const keys = new Set([...spans, ...points].flatMap((item) => Object.keys(item.attributes)));
        expect([...keys].filter((key) => !ALLOWED_ATTRIBUTE_KEYS.has(key))).to.deep.equal([]);
        const created = { store: 'sessions', operation: 'create', outcome: 'success' };
        expect(total(points, 'gatehouse.session_store.operation.duration', created)).to.be.greaterThan(0);
        expect(total(points, 'gatehouse.session_store.operation.duration', { outcome: 'failure' })).to.equal(0);
        // Redis cannot count its sessions without a SCAN of the keyspace: no gauge.
        expect(points.filter((p) => p.metric === 'gatehouse.sessions.active')).to.deep.equal([]);
      });
    });

    describe('an outage', () => {
      let proxy: TcpProxy;
      let running: RunningGatehouse;
      let readers: ReturnType<typeof telemetryReaders>;
      before(async () => {
        const target = new URL(redisUrl);
        proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 6379) });
        readers = telemetryReaders();
        running = await startGatehouse(
          { ...redisEnv(`redis://127.0.0.1:${proxy.port}`), ProjectTemplate__Session__Redis__CommandTimeoutMs: '300' },
          { telemetry: readers.parts },
        );
      });
      after(async () => {
        await running.close();
        await proxy.close();
      });

      it('counts the failed store calls with the store code, and the 503 answers by route', async () => {
        const { cookie } = await signIn(running.gatehouse, adminClaims);
        expect((await fetch(`${running.url}/api/app-info`, { headers: { cookie } })).status).to.equal(200);
        const before = total(await readers.points(), 'gatehouse.session_store.operation.duration', {
          outcome: 'failure',
        });
        expect(before).to.equal(0);

        await proxy.close();
        expect((await fetch(`${running.url}/api/app-info`, { headers: { cookie } })).status).to.equal(503);
        const points = await readers.points();
        const failed = {
          store: 'sessions',
          operation: 'get',
          outcome: 'failure',
          'error.type': 'session.store_unavailable',
        };
        expect(total(points, 'gatehouse.session_store.operation.duration', failed)).to.be.greaterThan(0);
        expect(
          total(points, 'http.server.request.duration', {
            'http.response.status_code': 503,
            'http.request.method': 'GET',
          }),
        ).to.equal(1);
      });
    });
  });
