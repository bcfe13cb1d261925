import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { expect } from 'chai';
import { context, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { timeLimitedFetch } from '../../../src/adapters/oauth2/time-limited-fetch.js';
import { providerEndpoint } from '../../../src/adapters/outbound-requests.js';
import { OtelTelemetry } from '../../../src/adapters/telemetry/otel-telemetry.js';
import { providerRequests } from '../../../src/adapters/telemetry/provider-requests.js';
import { telemetryReaders, total } from '../../support/telemetry-readers.js';

/**
 * The requests to identity providers, through the fetch openid-client is given: a client
 * span under the active one, its context sent on in `traceparent` beside the library's own
 * headers, and a duration by endpoint and outcome. Against a real server on loopback.
 */
describe('Telemetry: requests to an identity provider', () => {
  let server: Server;
  let origin: string;
  let received: IncomingHttpHeaders[];
  const readers = telemetryReaders();
  const spans = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }).getTracer('test');
  const meter = new MeterProvider({ readers: [...(readers.parts.metricReaders ?? [])] }).getMeter('test');
  const telemetry = new OtelTelemetry(meter, tracer);
  const fetchFor = (endpoints: { token_endpoint: string }) =>
    timeLimitedFetch(2000, {
      observe: providerRequests(telemetry, new W3CTraceContextPropagator())('Acme'),
      endpointOf: (url) => providerEndpoint(url, endpoints, 'other'),
    });

  before(async () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    received = [];
    server = createServer((request, response) => {
      received.push(request.headers);
      response.statusCode = request.url?.startsWith('/token') ? 200 : 500;
      response.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (typeof address !== 'object' || !address) throw new Error('not listening');
    origin = `http://127.0.0.1:${address.port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('sends the trace context of a client span under the active one, beside the headers it was given', async () => {
    const parent = tracer.startSpan('GET /signin-oidc', { kind: SpanKind.SERVER });
    const fetch = fetchFor({ token_endpoint: `${origin}/token` });
    const response = await context.with(trace.setSpan(context.active(), parent), () =>
      fetch(`${origin}/token?x=1`, {
        method: 'POST',
        headers: { accept: 'application/json' },
        redirect: 'manual',
        body: undefined,
      }),
    );
    parent.end();
    expect(response.status).to.equal(200);

    const client = spans.getFinishedSpans().find((s) => s.name === 'identity_provider.token');
    expect(client?.kind).to.equal(SpanKind.CLIENT);
    expect(client?.parentSpanContext?.spanId).to.equal(parent.spanContext().spanId);
    const headers = received.at(-1);
    expect(headers?.accept).to.equal('application/json');
    expect(headers?.traceparent).to.equal(`00-${parent.spanContext().traceId}-${client?.spanContext().spanId}-01`);
    const points = await readers.points();
    expect(
      total(points, 'gatehouse.identity_provider.request.duration', {
        provider: 'Acme',
        endpoint: 'token',
        outcome: 'success',
      }),
    ).to.equal(1);
  });

  it('counts an answer of 400 or more, and no answer at all, as failures', async () => {
    const fetch = fetchFor({ token_endpoint: `${origin}/token` });
    expect(
      (await fetch(`${origin}/userinfo`, { method: 'GET', headers: {}, redirect: 'manual', body: undefined })).status,
    ).to.equal(500);
    const closed = `http://127.0.0.1:9/token`;
    let refused: unknown;
    await fetch(closed, { method: 'POST', headers: {}, redirect: 'manual', body: undefined }).catch(
      (error: unknown) => {
        refused = error;
      },
    );
    expect(refused).to.be.instanceOf(Error);
    const points = await readers.points();
    expect(
      total(points, 'gatehouse.identity_provider.request.duration', { endpoint: 'other', outcome: 'failure' }),
    ).to.equal(2);
    const unanswered = points.filter(
      (p) => p.metric === 'gatehouse.identity_provider.request.duration' && p.attributes['error.type'] !== undefined,
    );
    expect(unanswered).to.have.length(1);
    expect(unanswered[0]?.attributes).to.include({ outcome: 'failure', endpoint: 'other', 'error.type': 'TypeError' });
  });
});

describe('providerEndpoint: which endpoint a URL is', () => {
  const known = {
    token_endpoint: 'https://idp.example/oauth/token',
    userinfo_endpoint: 'https://idp.example/me',
    jwks_uri: 'https://idp.example/keys',
  };
  const cases: Array<[string, string]> = [
    ['https://idp.example/.well-known/openid-configuration', 'discovery'],
    ['https://idp.example/oauth/token', 'token'],
    ['https://idp.example/me?fields=email', 'userinfo'],
    ['https://idp.example/keys', 'jwks'],
    ['https://other.example/oauth/token', 'other'],
    ['https://idp.example/oauth/revoke', 'other'],
  ];
  for (const [url, endpoint] of cases) {
    it(`${url} is ${endpoint}`, () => expect(providerEndpoint(new URL(url), known, 'other')).to.equal(endpoint));
  }
  it('is the fallback before the configuration is known', () => {
    expect(providerEndpoint(new URL('https://idp.example/oauth/token'), undefined, 'userinfo')).to.equal('userinfo');
  });
});
