import { createServer, type IncomingMessage, type Server } from 'node:http';
import { expect } from 'chai';
import { signIn, plainClaims } from '../../support/sign-in.js';
import { startGatehouse } from '../../support/start-gatehouse.js';

/** One export as received: its content type and body. */
interface Received {
  contentType: string;
  body: Buffer;
}

/** A minimal OTLP/HTTP receiver on loopback: keeps each body POSTed to /v1/traces and /v1/metrics. */
async function otlpReceiver(): Promise<{ url: string; received: Map<string, Received[]>; close(): Promise<void> }> {
  const received = new Map<string, Received[]>();
  const server: Server = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '';
      const list = received.get(path) ?? [];
      list.push({ contentType: request.headers['content-type'] ?? '', body: Buffer.concat(chunks) });
      received.set(path, list);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('not listening');
  return {
    url: `http://127.0.0.1:${address.port}`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The JSON exports received at `path`, as one text. */
/** Polls `condition` every 25 ms for up to two seconds: an export arrives when the SDK's batch timer says. */
async function waitUntil(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition() && waited < 2000; waited += 25) await new Promise((r) => setTimeout(r, 25));
}

function jsonExports(received: Map<string, Received[]>, path: string): string {
  return JSON.stringify((received.get(path) ?? []).map((item) => JSON.parse(item.body.toString('utf8')) as unknown));
}

/** The samples of a Prometheus text exposition: `name{labels} value` lines, comments skipped. */
function prometheusSamples(text: string): Array<{ name: string; labels: Record<string, string>; value: number }> {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)/.exec(line);
      if (!match) throw new Error(`not a Prometheus sample line: ${line}`);
      const labels: Record<string, string> = {};
      for (const label of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
        labels[label[1] ?? ''] = label[2] ?? '';
      }
      return { name: match[1] ?? '', labels, value: Number(match[3]) };
    });
}

describe('Telemetry: export', function () {
  this.timeout(20_000);

  it('serves /metrics in the Prometheus text format on its own loopback listener, not on the application port', async () => {
    const running = await startGatehouse({
      ProjectTemplate__Telemetry__Enabled: 'true',
      ProjectTemplate__Telemetry__PrometheusPort: '0',
    });
    try {
      const signedIn = await signIn(running.gatehouse, plainClaims);
      const page = await fetch(`${running.url}/Admin`, {
        headers: { cookie: signedIn.cookie, accept: 'application/json' },
      });
      expect(page.status).to.equal(403);
      const metricsUrl = await running.gatehouse.metricsUrl();
      expect(metricsUrl).to.match(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      expect(new URL(metricsUrl ?? '').port).to.not.equal(new URL(running.url).port);

      const scrape = await fetch(metricsUrl ?? '');
      expect(scrape.status).to.equal(200);
      expect(scrape.headers.get('content-type')).to.match(/^text\/plain/);
      const samples = prometheusSamples(await scrape.text());
      const denied = samples.find(
        (s) => s.name === 'gatehouse_authorization_attempts_total' && s.labels.result === 'denied',
      );
      expect(denied?.value).to.equal(1);
      expect(denied?.labels.policy).to.be.a('string');
      const requests = samples.filter(
        (s) => s.name === 'http_server_request_duration_count' && s.labels.http_route === '/Admin',
      );
      expect(requests.map((s) => s.labels.http_response_status_code)).to.deep.equal(['403']);
      // A probe, answered before any router, is a route of its own too.
      expect((await fetch(`${running.url}/health/live`)).status).to.equal(200);
      const again = prometheusSamples(await (await fetch(metricsUrl ?? '')).text());
      expect(
        again.some((s) => s.name === 'http_server_request_duration_count' && s.labels.http_route === '/health/live'),
      ).to.equal(true);

      expect((await fetch(`${running.url}/metrics`)).status).to.equal(404);
      expect((await fetch(metricsUrl?.replace('/metrics', '/other') ?? '')).status).to.equal(404);
    } finally {
      await running.close();
    }
  });

  it('opens no Prometheus listener while telemetry is off, whatever PrometheusPort says', async () => {
    const running = await startGatehouse({ ProjectTemplate__Telemetry__PrometheusPort: '0' });
    try {
      expect(await running.gatehouse.metricsUrl()).to.equal(undefined);
      expect(running.logs.join('\n')).to.not.include('Prometheus');
    } finally {
      await running.close();
    }
  });

  it('sends spans and metrics as protobuf to an OTLP/HTTP endpoint named by OTEL_EXPORTER_OTLP_ENDPOINT', async () => {
    const receiver = await otlpReceiver();
    const running = await startGatehouse({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: 'gatehouse-under-test',
    });
    try {
      await fetch(`${running.url}/Account/Login`);
    } finally {
      await running.close(); // flushes both signals
      await receiver.close();
    }
    const [traces] = receiver.received.get('/v1/traces') ?? [];
    const [metrics] = receiver.received.get('/v1/metrics') ?? [];
    expect([traces?.contentType, metrics?.contentType]).to.deep.equal([
      'application/x-protobuf',
      'application/x-protobuf',
    ]);
    // A protobuf string field is its UTF-8 bytes, whole.
    expect(traces?.body.includes('GET /Account/Login')).to.equal(true);
    expect(traces?.body.includes('gatehouse-under-test')).to.equal(true);
    expect(metrics?.body.includes('http.server.request.duration')).to.equal(true);
  });

  it('sends them as JSON when OTEL_EXPORTER_OTLP_PROTOCOL is http/json', async () => {
    const receiver = await otlpReceiver();
    const running = await startGatehouse({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'gatehouse-under-test',
    });
    try {
      await fetch(`${running.url}/Account/Login`);
    } finally {
      await running.close();
      await receiver.close();
    }
    expect(receiver.received.get('/v1/traces')?.[0]?.contentType).to.equal('application/json');
    const traces = jsonExports(receiver.received, '/v1/traces');
    expect(traces).to.include('"GET /Account/Login"');
    expect(traces).to.include('gatehouse-under-test');
    expect(jsonExports(receiver.received, '/v1/metrics')).to.include('http.server.request.duration');
  });

  it('batches spans as OTEL_BSP_* say and names the resource by OTEL_RESOURCE_ATTRIBUTES', async () => {
    const receiver = await otlpReceiver();
    const running = await startGatehouse({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_METRICS_EXPORTER: 'none',
      // Spans leave when two are queued, and otherwise not for a minute.
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '2',
      OTEL_BSP_SCHEDULE_DELAY: '60000',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=staging%2Deu',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    });
    const exports = () => receiver.received.get('/v1/traces')?.length ?? 0;
    try {
      await fetch(`${running.url}/Account/Login`);
      await new Promise((r) => setTimeout(r, 300));
      expect(exports(), 'one span queued: no batch yet').to.equal(0);
      await fetch(`${running.url}/Account/Login`);
      await waitUntil(() => exports() > 0);
      expect(exports(), 'two spans queued: one batch').to.equal(1);
      await fetch(`${running.url}/Account/Login`);
      await new Promise((r) => setTimeout(r, 300));
      expect(exports(), 'the third waits for the schedule').to.equal(1);
    } finally {
      await running.close(); // flushes the third
      await receiver.close();
    }
    expect(exports()).to.equal(2);
    expect(jsonExports(receiver.received, '/v1/traces')).to.include(
      '{"key":"deployment.environment.name","value":{"stringValue":"staging-eu"}}',
    );
  });

  it('sends a lone span after OTEL_BSP_SCHEDULE_DELAY rather than the default five seconds', async () => {
    const receiver = await otlpReceiver();
    const running = await startGatehouse({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_METRICS_EXPORTER: 'none',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    try {
      await fetch(`${running.url}/Account/Login`);
      await waitUntil(() => receiver.received.has('/v1/traces'));
      expect(receiver.received.get('/v1/traces'), 'exported before the stop').to.have.length(1);
    } finally {
      await running.close();
      await receiver.close();
    }
  });

  it('answers requests at their usual pace while the OTLP endpoint accepts exports and never answers', async () => {
    const held: Array<import('node:http').ServerResponse> = [];
    const silent = createServer((_request, response) => void held.push(response));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const address = silent.address();
    if (typeof address !== 'object' || !address) throw new Error('not listening');
    const running = await startGatehouse({
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${address.port}`,
      OTEL_METRIC_EXPORT_INTERVAL: '100',
      OTEL_EXPORTER_OTLP_TIMEOUT: '5000',
    });
    try {
      await fetch(`${running.url}/Account/Login`); // something to export
      for (let waited = 0; held.length === 0 && waited < 3000; waited += 50) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(held.length, 'exports held by the endpoint').to.be.greaterThan(0);
      for (let i = 0; i < 5; i += 1) {
        const started = performance.now();
        expect((await fetch(`${running.url}/Account/Login`)).status).to.equal(200);
        expect(performance.now() - started).to.be.lessThan(1000);
      }
    } finally {
      await running.close(); // waits at most a second for the exports held
      for (const response of held) response.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('reports an OTLP endpoint that is down once in the log, and answers requests all the same', async () => {
    const receiver = await otlpReceiver();
    await receiver.close(); // nothing listens there now
    const running = await startGatehouse({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_METRIC_EXPORT_INTERVAL: '100',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_EXPORTER_OTLP_TIMEOUT: '100',
    });
    try {
      for (let i = 0; i < 5; i += 1) expect((await fetch(`${running.url}/Account/Login`)).status).to.equal(200);
      await new Promise((resolve) => setTimeout(resolve, 600));
    } finally {
      await running.close();
    }
    for (const signal of ['metrics', 'traces']) {
      const reports = running.logs.filter((line) => line.includes(`telemetry: exporting ${signal} failed`));
      expect(reports, signal).to.have.length(1);
    }
  });
});
