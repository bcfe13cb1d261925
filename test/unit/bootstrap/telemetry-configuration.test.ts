import { expect } from 'chai';
import { StartupError } from '../../../src/bootstrap/startup-error.js';
import { resourceAttributes, telemetryConfiguration } from '../../../src/bootstrap/telemetry-configuration.js';
import type { TelemetrySettings } from '../../../src/domain/settings/settings.js';

const defaults: TelemetrySettings = {
  Enabled: false,
  Metrics: true,
  Traces: true,
  PrometheusPort: -1,
  PrometheusHost: '127.0.0.1',
};
const application = () => ({ name: 'gatehouse', version: '0.1.0' });
const configured = (settings: Partial<TelemetrySettings>, env: Record<string, string> = {}) =>
  telemetryConfiguration({ ...defaults, ...settings }, env, application);

describe('telemetryConfiguration: the precedence of ProjectTemplate:Telemetry and OTEL_*', () => {
  it('is off by default, and then reads nothing of the package', () => {
    let read = false;
    const off = telemetryConfiguration(defaults, {}, () => {
      read = true;
      return application();
    });
    expect(off).to.equal(undefined);
    expect(read).to.equal(false);
  });

  it('is on with Enabled, without an OTLP destination', () => {
    const on = configured({ Enabled: true });
    expect(on).to.include({ metrics: true, traces: true, serviceName: 'gatehouse', serviceVersion: '0.1.0' });
    expect(on?.otlpTraces?.url).to.equal(undefined);
    expect(on?.otlpMetrics?.url).to.equal(undefined);
  });

  it('is on with OTEL_EXPORTER_OTLP_ENDPOINT alone, each signal at its /v1 path', () => {
    const on = configured({}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' });
    expect(on?.otlpTraces?.url).to.equal('http://collector:4318/v1/traces');
    expect(on?.otlpMetrics?.url).to.equal('http://collector:4318/v1/metrics');
  });

  it("takes a signal's own endpoint as given, before the base", () => {
    const on = configured(
      {},
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://base:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces/x' },
    );
    expect(on?.otlpTraces?.url).to.equal('http://traces/x');
    expect(on?.otlpMetrics?.url).to.equal('http://base:4318/v1/metrics');
  });

  it('is off with OTEL_SDK_DISABLED=true, whatever else says on', () => {
    expect(
      configured(
        { Enabled: true, PrometheusPort: 9464 },
        { OTEL_SDK_DISABLED: 'TRUE', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' },
      ),
    ).to.equal(undefined);
    expect(configured({ Enabled: true }, { OTEL_SDK_DISABLED: 'false' })).to.not.equal(undefined);
  });

  it('drops a signal switched off in settings, or its OTLP export with OTEL_<SIGNAL>_EXPORTER=none', () => {
    const base = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(configured({ Traces: false }, base))
      .to.include({ traces: false })
      .and.not.have.property('otlpTraces');
    const noMetricsExport = configured({ PrometheusPort: 0 }, { ...base, OTEL_METRICS_EXPORTER: 'none' });
    expect(noMetricsExport).to.not.have.property('otlpMetrics');
    expect(noMetricsExport?.prometheus).to.deep.equal({ port: 0, host: '127.0.0.1' });
    expect(configured({ Enabled: true, Metrics: false, PrometheusPort: 0 })).to.not.have.property('prometheus');
  });

  it('opens Prometheus only from port 0 up (-1 is none)', () => {
    expect(configured({ Enabled: true })).to.not.have.property('prometheus');
    expect(configured({ Enabled: true, PrometheusPort: 9464, PrometheusHost: '0.0.0.0' })?.prometheus).to.deep.equal({
      port: 9464,
      host: '0.0.0.0',
    });
  });

  it('reads the service name, sampler, ratio, interval and time-out, falling back on values it cannot use', () => {
    const on = configured(
      { Enabled: true },
      {
        OTEL_SERVICE_NAME: 'shop-web',
        OTEL_TRACES_SAMPLER: 'ParentBased_TraceIdRatio',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
        OTEL_METRIC_EXPORT_INTERVAL: '5000',
        OTEL_EXPORTER_OTLP_TIMEOUT: '2000',
      },
    );
    expect(on).to.include({
      serviceName: 'shop-web',
      sampler: 'parentbased_traceidratio',
      samplerRatio: 0.25,
      metricExportIntervalMs: 5000,
      exportTimeoutMs: 2000,
    });
    const odd = configured(
      { Enabled: true },
      { OTEL_TRACES_SAMPLER: 'jaeger_remote', OTEL_TRACES_SAMPLER_ARG: '7', OTEL_METRIC_EXPORT_INTERVAL: '-1' },
    );
    expect(odd).to.include({ sampler: 'parentbased_always_on', samplerRatio: 1, metricExportIntervalMs: 60_000 });
  });

  it("reads the batch span processor's OTEL_BSP_* settings, with the specification's defaults and a batch no larger than the queue", () => {
    expect(configured({ Enabled: true })?.spanBatches).to.deep.equal({
      scheduledDelayMs: 5_000,
      maxQueueSize: 2_048,
      maxExportBatchSize: 512,
      exportTimeoutMs: 30_000,
    });
    const tuned = configured(
      { Enabled: true },
      {
        OTEL_BSP_SCHEDULE_DELAY: '1000',
        OTEL_BSP_MAX_QUEUE_SIZE: '100',
        OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '500',
        OTEL_BSP_EXPORT_TIMEOUT: '2500',
      },
    );
    expect(tuned?.spanBatches).to.deep.equal({
      scheduledDelayMs: 1_000,
      maxQueueSize: 100,
      maxExportBatchSize: 100,
      exportTimeoutMs: 2_500,
    });
    const odd = configured({ Enabled: true }, { OTEL_BSP_MAX_QUEUE_SIZE: '-5', OTEL_BSP_SCHEDULE_DELAY: '1.5' });
    expect(odd?.spanBatches).to.include({ maxQueueSize: 2_048, scheduledDelayMs: 5_000 });
  });

  it('reads OTEL_RESOURCE_ATTRIBUTES as percent-encoded key=value pairs, leaving out what does not parse', () => {
    const on = configured(
      { Enabled: true },
      { OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=prod, team=a%2Cb,broken,=x,bad=%E0%A4%A' },
    );
    expect(on?.resourceAttributes).to.deep.equal({ 'deployment.environment.name': 'prod', team: 'a,b' });
    expect(resourceAttributes(undefined)).to.deep.equal({});
  });

  it('keeps service.name and service.version to OTEL_SERVICE_NAME and the package', () => {
    expect(resourceAttributes('service.name=other,service.version=9,region=eu')).to.deep.equal({ region: 'eu' });
  });

  it("exports OTLP as protobuf by default, as JSON when OTEL_EXPORTER_OTLP_PROTOCOL or a signal's own says so", () => {
    const base = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    const byDefault = configured({}, base);
    expect(byDefault?.otlpTraces?.protocol).to.equal('http/protobuf');
    expect(byDefault?.otlpMetrics?.protocol).to.equal('http/protobuf');
    const json = configured({}, { ...base, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' });
    expect([json?.otlpTraces?.protocol, json?.otlpMetrics?.protocol]).to.deep.equal(['http/json', 'http/json']);
    const mixed = configured(
      {},
      { ...base, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/protobuf' },
    );
    expect([mixed?.otlpTraces?.protocol, mixed?.otlpMetrics?.protocol]).to.deep.equal(['http/json', 'http/protobuf']);
  });

  it('refuses to start with a protocol it cannot speak (grpc), naming the variable', () => {
    const attempt = () =>
      configured(
        {},
        { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4317', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' },
      );
    expect(attempt).to.throw(StartupError);
    try {
      attempt();
    } catch (thrown) {
      expect((thrown as StartupError).problems).to.deep.equal([
        {
          key: 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL',
          message: 'must be http/protobuf (the default) or http/json; grpc is not supported',
          severity: 'error',
        },
      ]);
    }
  });
});
